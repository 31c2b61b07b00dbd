public import EarshotCore
import Foundation

/// Where tests run, so that none holds Swift's cooperative pool, and the few that time the code
/// under test get the cores when they need them.
///
/// The whole test process shares its cores. Synchronous work on the cooperative pool (one thread per
/// core) — a detector over a corpus, a decode, a wait for a child process — makes every task that only
/// needs a moment wait seconds for a thread: a server answering, a client reading its reply, and any
/// `Task.sleep`, which resumes through the pool. So the suites run on these executors (instances of
/// the project's one executor type, ``BlockingExecutor``), chosen by their `.computing`, `.waiting`
/// or `.timed` trait (EarshotTestTraits), which also scope ``BlockingExecutor/current`` — where the
/// code under test runs its blocking work — to the matching one here. The OS shares the cores among
/// all the threads, and the pool only hops.
///
/// Three priorities, as `nice` sets them (Linux keeps it per thread; threads and processes inherit
/// it from the thread that starts them, so a suite's servers and child processes run at its level):
/// - 0, the default: ``timed``, for tests whose assertion is a wall-clock bound on the code under
///   test (a hang-up frees its recognizer within a second), and ``service``, the in-process services'
///   request handling, which only parses and hops;
/// - 10: ``waiting`` and ``recognition``, the suites that drive servers, clients and child processes
///   (what they do is CPU work too: dozens of decodes at once, on two cores);
/// - 19: ``compute``, the CPU-bound suites, in the background of all the others.
///
/// A second's bound then measures the code under test, not the tests beside it.
///
/// How many tests run beside it is the test runner's to bound, not these executors': `make test`
/// lets Swift Testing run at most four test cases per core at once (`TEST_WIDTH` in the Makefile).
/// A bare `swift test` starts all of them at once, and a service test's request can then wait
/// minutes for its decode behind the others' on the shared ``recognition`` threads.
public enum TestExecutors {
    /// The in-process services' request handling. Handlers suspend while they wait for the network,
    /// so a few threads serve many connections.
    public static var service: BlockingExecutor { all.service }

    /// Tests that wait — on a server, a child process, a clock: a loopback client's socket read, a
    /// listener's accept, a paced dribble. Each waiting socket holds a thread, so there are many
    /// (threads that wait cost no CPU). At nice 10, with the processes they start.
    public static var waiting: BlockingExecutor { all.waiting }

    /// The waiting suites' blocking work in the code under test (``BlockingExecutor/current`` in their
    /// scope): the in-process services' recognition — loading recognizers, decoding uploads — and the
    /// clients' and transcribers' own. As many threads as the shared executor, at nice 10.
    public static var recognition: BlockingExecutor { all.recognition }

    /// CPU-bound tests and the blocking work they start: one thread per core, so they take turns on
    /// the cores as they did on the cooperative pool. The main thread's 8 MiB stacks, for
    /// PocketSphinx's recursive search. At nice 19: background work, with the processes it starts.
    public static var compute: BlockingExecutor { all.compute }

    /// Tests that bound the code under test's latency, and that code's blocking work: at the default
    /// priority, above everything else the test process runs. Few tests, each waiting most of the time.
    public static var timed: BlockingExecutor { all.timed }

    /// All five, made together on first use — when the test run builds its suites' traits, before
    /// any test runs — so each gets its priority from an un-niced thread: a thread inherits its
    /// creator's niceness, and only privilege brings it back down.
    private static let all = Executors()

    private struct Executors: Sendable {
        let service = BlockingExecutor(name: "test-service", threadCount: 8, stackSize: 1 << 20, niceness: 0)
        let waiting = BlockingExecutor(name: "test-wait", threadCount: 256, stackSize: 1 << 20, niceness: 10)
        let recognition = BlockingExecutor(
            name: "test-recog", threadCount: BlockingExecutor.shared.threadCount, niceness: 10)
        let compute = BlockingExecutor(
            name: "test-compute", threadCount: ProcessInfo.processInfo.activeProcessorCount, niceness: 19)
        let timed = BlockingExecutor(name: "test-timed", threadCount: 16, niceness: 0)
    }
}

/// Runs `body` — blocking socket or process work — on ``TestExecutors/waiting`` and returns its result.
public func onBlockingExecutor<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(executorPreference: TestExecutors.waiting) { try body() }
        return try await group.next()!
    }
}

/// Runs `body(0)`…`body(count − 1)` at once, each on ``TestExecutors/waiting``, and returns their
/// results in index order once all have finished.
public func concurrentlyOnBlockingExecutor<T: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (Int) async throws -> T
) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        for index in 0..<count {
            group.addTask(executorPreference: TestExecutors.waiting) { (index, try await body(index)) }
        }
        var results = [T?](repeating: nil, count: count)
        for try await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}
