import EarshotCore

/// Runs independent pieces of lab work on several cores and returns their results in input order, so
/// the output never depends on which core finished first.
enum ParallelWork {
    /// `body(i)` for every i in `0..<count`, at most `jobs` at a time, as child tasks on
    /// ``BlockingExecutor`` (the work is CPU-bound C and Swift that must not hold the cooperative pool).
    /// `completed` is called in the caller's task as each piece finishes (an error it throws fails that piece). Stops handing out work after
    /// the first error, or when the task is cancelled, and rethrows the error of the lowest index that
    /// failed (or `CancellationError`).
    static func map<Result: Sendable>(
        count: Int, jobs: Int, _ body: @escaping @Sendable (Int) throws -> Result,
        completed: (Int, Result) throws -> Void = { _, _ in }
    ) async throws -> [Result] {
        var results = [Result?](repeating: nil, count: count)
        var failure: (index: Int, error: any Error)?
        await withTaskGroup(of: (Int, Swift.Result<Result, any Error>).self) { group in
            var next = 0
            func fail(_ index: Int, _ error: any Error) {
                if failure == nil || index < failure!.index { failure = (index, error) }
            }
            func startNext() {
                guard failure == nil, next < count, !Task.isCancelled else { return }
                let index = next
                next += 1
                group.addTask(executorPreference: BlockingExecutor.current) {
                    (index, Swift.Result { try body(index) })
                }
            }
            for _ in 0..<max(1, min(jobs, count)) { startNext() }
            while let (index, outcome) = await group.next() {
                switch outcome {
                case .success(let result):
                    results[index] = result
                    do { try completed(index, result) } catch { fail(index, error) }
                case .failure(let error):
                    fail(index, error)
                }
                startNext()
            }
        }
        if let failure { throw failure.error }
        try Task.checkCancellation()
        return results.map { $0! }
    }
}
