public import Testing
import EarshotTesting

/// Where a suite's tests run: on threads of their own, never on Swift's cooperative pool.
///
/// `swift test` runs every suite of a target in one process at once, and the runtime needs the
/// cooperative pool (one thread per core) for more than the tests: every `Task.sleep` resumes through
/// it, whatever executor the task prefers. Suites that compute (a detector over a corpus, a decode)
/// used to hold its threads for seconds, so a test that only needs a moment at a time — pacing an
/// upload, reading a reply, polling a pool — woke seconds late: its server timed it out, and its clock
/// measured the wait. The product's own rule applies to its tests: work that holds a thread runs on
/// an executor for it, and the pool only hops.
///
/// - ``computing``: CPU-bound suites, on ``TestExecutors/compute`` (one thread per core at nice 10, so
///   they take turns as they did on the pool, and yield the cores to the others).
/// - ``waiting``: suites that wait — on a server, a child process, a clock — on
///   ``TestExecutors/blocking``, where each test has a thread and the OS shares the cores with it.
///
/// Recursive on a suite: each test gets the scope. Unstructured tasks (`Task {}`) do not inherit a
/// task executor preference; what a test starts that way runs on the pool.
public struct TestThreads: SuiteTrait, TestTrait, TestScoping {
    let executor: any TaskExecutor

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == TestThreads {
    /// CPU-bound tests: on ``TestExecutors/compute``. See ``TestThreads``.
    public static var computing: Self { Self(executor: TestExecutors.compute) }

    /// Tests that wait on servers, processes or clocks: on ``TestExecutors/blocking``. See ``TestThreads``.
    public static var waiting: Self { Self(executor: TestExecutors.blocking) }
}
