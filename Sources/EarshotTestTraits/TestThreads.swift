import EarshotCore
public import Testing
import EarshotTesting

/// Where a suite's tests run: on threads of their own, never on Swift's cooperative pool, at the
/// priority their kind of work needs.
///
/// `swift test` runs every suite of a target in one process at once, and the runtime needs the
/// cooperative pool (one thread per core) for more than the tests: every `Task.sleep` resumes through
/// it, whatever executor the task prefers. Suites that compute (a detector over a corpus, a decode)
/// used to hold its threads for seconds, so a test that only needs a moment at a time — pacing an
/// upload, reading a reply, polling a pool — woke seconds late: its server timed it out, and its clock
/// measured the wait. The product's own rule applies to its tests: work that holds a thread runs on
/// an executor for it, and the pool only hops.
///
/// Each trait sets the test's executor and ``BlockingExecutor/current``, where the code under test
/// runs its own blocking work (a transcription's workers, an in-process service's decodes):
/// - ``computing``: CPU-bound suites, on ``TestExecutors/compute`` (one thread per core at nice 19,
///   so they take turns as they did on the pool, behind everything else).
/// - ``waiting``: suites that wait — on a server, a child process, a clock — on
///   ``TestExecutors/waiting``, where each test has a thread; the code under test on
///   ``TestExecutors/recognition``. Both at nice 10.
/// - ``timed``: tests whose assertion bounds the code under test's latency (a hang-up frees its
///   recognizer within a second; Ctrl-C stops a transcription within a second). On
///   ``TestExecutors/timed``, at the default priority: the bound measures the code, not the
///   hundreds of tests beside it. On a test, it overrides its suite's trait.
///
/// Recursive on a suite: each test gets the scope. Unstructured tasks (`Task {}`) inherit
/// ``BlockingExecutor/current`` but not the executor preference; what a test starts that way runs
/// on the pool.
public struct TestThreads: SuiteTrait, TestTrait, TestScoping {
    let executor: any TaskExecutor
    let blockingWork: BlockingExecutor

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await BlockingExecutor.$current.withValue(blockingWork) {
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == TestThreads {
    /// CPU-bound tests: on ``TestExecutors/compute``. See ``TestThreads``.
    public static var computing: Self { Self(executor: TestExecutors.compute, blockingWork: TestExecutors.compute) }

    /// Tests that wait on servers, processes or clocks: on ``TestExecutors/waiting``. See ``TestThreads``.
    public static var waiting: Self { Self(executor: TestExecutors.waiting, blockingWork: TestExecutors.recognition) }

    /// Tests that bound the latency of the code under test: on ``TestExecutors/timed``. See ``TestThreads``.
    public static var timed: Self { Self(executor: TestExecutors.timed, blockingWork: TestExecutors.timed) }
}
