import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Testing

/// Hands out prepared buffers in order, as a file source would.
private struct ListSource: AudioSource {
    let format: AudioFormat
    var buffers: [AudioBuffer]
    init(_ buffers: [AudioBuffer]) {
        format = buffers[0].format
        self.buffers = buffers
    }
    mutating func read() throws -> AudioBuffer? { buffers.isEmpty ? nil : buffers.removeFirst() }
}

@Suite(.waiting) struct PacedSourceTests {
    @Test func passesBuffersThroughUnchanged() throws {
        let noise = Signal.whiteNoise(seconds: 0.5, format: .wideband, seed: 7)
        var shifted = noise
        shifted.startFrame = 12_345
        let blocks = Signal.blocks(of: shifted, frames: 1_000)
        var paced = try PacedSource(ListSource(blocks), speed: 1_000)
        #expect(paced.format == .wideband)
        var received: [AudioBuffer] = []
        while let buffer = try paced.read() { received.append(buffer) }
        #expect(received.map(\.samples) == blocks.map(\.samples))
        #expect(received.map(\.startFrame) == blocks.map(\.startFrame))
        #expect(try paced.read() == nil)
    }

    /// 1 s of audio at speed 20 must take at least 50 ms, and each buffer must come no earlier than its
    /// end in media time; upper bounds are loose, since the machine may be busy.
    @Test func releasesNoEarlierThanMediaTime() throws {
        let speed = 20.0
        let blocks = Signal.blocks(of: Signal.silence(seconds: 1, format: .wideband), frames: 1_600)
        var paced = try PacedSource(ListSource(blocks), speed: speed)
        let clock = ContinuousClock()
        let start = clock.now
        var releases: [(end: Double, elapsed: Double)] = []
        while let buffer = try paced.read() {
            let elapsed = start.duration(to: clock.now)
            releases.append(
                (
                    buffer.endTime.seconds / speed,
                    Double(elapsed.components.seconds)
                        + Double(elapsed.components.attoseconds) / 1e18
                ))
        }
        #expect(releases.count == 10)
        for release in releases { #expect(release.elapsed >= release.end) }
        let total = try #require(releases.last).elapsed
        #expect(total >= 0.05)
        #expect(total < 5, "pacing should not be slower than real time by this much")
    }

    /// `next()` keeps the same pace as `read()`: each buffer no earlier than its end in media time.
    @Test func nextReleasesNoEarlierThanMediaTime() async throws {
        let speed = 20.0
        let blocks = Signal.blocks(of: Signal.silence(seconds: 0.5, format: .wideband), frames: 1_600)
        var paced = try PacedSource(ListSource(blocks), speed: speed)
        let start = ContinuousClock.now
        var count = 0
        while let buffer = try await paced.next() {
            count += 1
            #expect(ContinuousClock.now - start >= .seconds(buffer.endTime.seconds / speed))
        }
        #expect(count == 5)
    }

    /// While a paced stream waits for its next buffer, its thread is free: on an executor with a single
    /// thread, another task runs to the end while the paced one is still waiting.
    @Test func waitingForTheNextBufferHoldsNoThread() async throws {
        let executor = BlockingExecutor(threadCount: 1)
        let blocks = Signal.blocks(of: Signal.silence(seconds: 2, format: .wideband), frames: 16_000)
        let order = Locked<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: executor) {
                var paced = try PacedSource(ListSource(blocks), speed: 1)
                while try await paced.next() != nil {}
                order.withLock { $0.append("paced") }
            }
            group.addTask(executorPreference: executor) {
                try await Task.sleep(for: .milliseconds(50))
                order.withLock { $0.append("other") }
            }
            try await group.waitForAll()
        }
        #expect(order.value == ["other", "paced"])
    }

    /// Cancelling the task ends a wait for a buffer due far in the future at once, with CancellationError.
    /// The task runs on an executor of its own, so the moment it sees the cancellation does not depend
    /// on the cooperative pool, which CPU-bound suites may hold.
    @Test func cancellingEndsTheWait() async throws {
        let blocks = Signal.blocks(of: Signal.silence(seconds: 60, format: .wideband), frames: 16_000 * 30)
        let waiting = Task(executorPreference: BlockingExecutor(threadCount: 1)) { () -> ContinuousClock.Instant? in
            // Due in 30 000 s: however long the test waits to cancel, the buffer is not yet due.
            var paced = try PacedSource(ListSource(blocks), speed: 0.001)
            do {
                _ = try await paced.next()
            } catch is CancellationError {
                return .now
            }
            return nil
        }
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = ContinuousClock.now
        waiting.cancel()
        let ended = try #require(try await waiting.value, "the wait ended without CancellationError")
        #expect(ended - cancelled < .seconds(1))
    }

    @Test(arguments: [0.0, -1, .infinity, .nan])
    func invalidSpeedFailsNamingTheField(speed: Double) throws {
        let blocks = [Signal.silence(seconds: 0.1, format: .wideband)]
        let error = try #require(throws: EarshotError.self) { try PacedSource(ListSource(blocks), speed: speed) }
        #expect(error.code == .invalidParameter)
        #expect(error.message.contains("speed"))
    }
}
