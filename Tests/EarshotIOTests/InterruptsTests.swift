import EarshotIO
import EarshotTestTraits
import Glibc
import Testing
import UnixSignals

/// ``Interrupts`` on real signals sent to this process. SIGUSR1 and SIGUSR2 stand in for SIGINT: nothing
/// else in the test process traps them, and what is checked is the mechanism, not the number. Each test
/// signals only once its handler is in place (it waits for its body to begin), and never waits on time.
@Suite(.timeLimit(.minutes(1)), .waiting, .serialized) struct InterruptsTests {
    @Test func aSignalCancelsTheBodyWhichEndsItsOwnWay() async throws {
        let (begun, began) = AsyncStream.makeStream(of: Void.self)
        async let outcome = Interrupts.cancelling(on: [.sigusr1]) {
            began.yield()
            do {
                try await Task.sleep(for: .seconds(600))
                return "slept"
            } catch {
                return "cancelled"
            }
        }
        for await _ in begun { break }
        kill(getpid(), SIGUSR1)
        #expect(try await outcome == "cancelled")
    }

    @Test func aBodyThatEndsFirstGivesItsValueOrError() async throws {
        #expect(try await Interrupts.cancelling(on: [.sigusr1]) { 42 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await Interrupts.cancelling(on: [.sigusr1]) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func handlingCallsTheActionAndTheBodyGoesOn() async throws {
        let (stops, stop) = AsyncStream.makeStream(of: UnixSignal.self)
        let (begun, began) = AsyncStream.makeStream(of: Void.self)
        let sender = Task {
            for await _ in begun { break }
            kill(getpid(), SIGUSR2)
        }
        let seen = try await Interrupts.handling(
            [.sigusr2],
            with: {
                stop.yield($0); stop.finish()
            }
        ) {
            began.yield()
            var seen: [UnixSignal] = []
            for await signal in stops { seen.append(signal) }
            return seen + [.sigusr1]  // the body went on after the action, to its own end
        }
        await sender.value
        #expect(seen == [.sigusr2, .sigusr1])
    }
}
