import Dispatch
import Synchronization

/// Runs independent pieces of lab work on several cores and returns their results in input order, so
/// the output never depends on which core finished first.
enum ParallelWork {
    /// `body(i)` for every i in `0..<count`, on up to `jobs` threads. Stops handing out work after the
    /// first error and rethrows the error of the lowest index that failed.
    static func map<Result: Sendable>(
        count: Int, jobs: Int, _ body: @Sendable (Int) throws -> Result,
        completed: @Sendable (Int, Result) -> Void = { _, _ in }
    ) throws -> [Result] {
        let state = Mutex(State<Result>(results: Array(repeating: nil, count: count)))
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
            while let index = state.withLock({ $0.take(count: count) }) {
                do {
                    let result = try body(index)
                    state.withLock { $0.results[index] = result }
                    completed(index, result)
                } catch {
                    state.withLock { $0.fail(index, error) }
                }
            }
        }
        return try state.withLock { state in
            if let failure = state.failure { throw failure.error }
            return state.results.map { $0! }
        }
    }

    private struct State<Result: Sendable>: ~Copyable {
        var results: [Result?]
        var next = 0
        var failure: (index: Int, error: any Error)?

        mutating func take(count: Int) -> Int? {
            guard failure == nil, next < count else { return nil }
            defer { next += 1 }
            return next
        }

        mutating func fail(_ index: Int, _ error: any Error) {
            if failure == nil || index < failure!.index { failure = (index, error) }
        }
    }
}
