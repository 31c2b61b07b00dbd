import EarshotCore
import EarshotTestTraits
import Glibc
import Testing

@testable import EarshotLab

private struct Failure: Error, Equatable {
    let index: Int
}

@Suite(.waiting) struct ParallelWorkTests {
    /// Results come back in input order, whichever piece finished first (the later pieces are quicker).
    @Test(arguments: [1, 2, 5])
    func resultsAreInInputOrder(jobs: Int) async throws {
        var completed: [Int] = []
        let results = try await ParallelWork.map(count: 12, jobs: jobs) { index in
            var sum = 0
            for value in 0..<((12 - index) * 20_000) { sum &+= value }
            return (index, sum)
        } completed: { index, _ in
            completed.append(index)
        }
        #expect(results.map(\.0) == Array(0..<12))
        #expect(completed.sorted() == Array(0..<12))
    }

    /// The error of the lowest failed index is the one rethrown, and no piece is started after a failure.
    @Test func theLowestFailureIsRethrownAndNoMoreWorkStarts() async throws {
        let started = Locked<[Int]>([])
        await #expect(throws: Failure(index: 3)) {
            _ = try await ParallelWork.map(count: 100, jobs: 1) { index in
                started.withLock { $0.append(index) }
                if index == 3 || index == 5 { throw Failure(index: index) }
                return index
            }
        }
        #expect(started.value == [0, 1, 2, 3])
    }

    /// An error thrown by `completed` fails the run too.
    @Test func anErrorFromCompletedFailsTheRun() async throws {
        await #expect(throws: Failure(index: 1)) {
            _ = try await ParallelWork.map(count: 4, jobs: 2) {
                $0
            } completed: { index, _ in
                if index == 1 { throw Failure(index: 1) }
            }
        }
    }

    /// A cancelled task hands out no more work and throws CancellationError. The first piece runs
    /// until the task is cancelled, so the cancellation lands while work remains however late this
    /// test's clock wakes (an earlier version slept 50 ms and cancelled; on a loaded machine all 1 000
    /// pieces had finished by then).
    @Test func cancellationStopsHandingOutWork() async throws {
        let started = Locked(0)
        let run = Task {
            try await ParallelWork.map(count: 1_000, jobs: 1) { index in
                started.withLock { $0 += 1 }
                // A child task sees its parent's cancellation.
                while index == 0, !Task.isCancelled { usleep(1_000) }
                return index
            }
        }
        while started.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        run.cancel()
        await #expect(throws: CancellationError.self) { _ = try await run.value }
        #expect(started.value == 1)
    }
}
