public import EarshotCore
import Foundation

/// Where tests run, so that none holds Swift's cooperative pool.
///
/// The whole test process shares its cores. Synchronous work on the cooperative pool (one thread per
/// core) — a detector over a corpus, a decode, a wait for a child process — makes every task that only
/// needs a moment wait seconds for a thread: a server answering, a client reading its reply, and any
/// `Task.sleep`, which resumes through the pool. So the suites run on these executors (instances of
/// the project's one executor type, ``BlockingExecutor``), chosen by their `.computing` or `.waiting`
/// trait (EarshotTestTraits), and the in-process service on its own: the OS shares the cores among all
/// the threads, and the pool only hops.
public enum TestExecutors {
    /// The in-process service's request handling. Handlers suspend while they wait for the network,
    /// so a few threads serve many connections.
    public static let service = BlockingExecutor(threadCount: 8, stackSize: 1 << 20)

    /// The in-process services' recognition (loading recognizers, decoding uploads): what
    /// ``BlockingExecutor/shared`` is to `earshot serve`, apart from the one the computing suites'
    /// transcriptions queue their segments on. As many threads as the shared one.
    public static let recognition = BlockingExecutor(threadCount: BlockingExecutor.shared.threadCount)

    /// Test-side blocking work: a loopback client's socket read, a listener's accept, a paced
    /// dribble, a child process. Each waiting socket holds a thread, so there are many (threads that
    /// wait cost no CPU).
    public static let blocking = BlockingExecutor(threadCount: 256, stackSize: 1 << 20)

    /// CPU-bound tests (the `computing` trait): one thread per core, so they take turns on the cores
    /// as they did on the cooperative pool, without holding it. The main thread's 8 MiB stacks, for
    /// PocketSphinx's recursive search. At nice 10, as background work (the processes these tests
    /// start inherit it): the suites that time a server's or a client's answer share the cores with
    /// them, and a second's bound should measure the code under test, not the corpus beside it.
    public static let compute = BlockingExecutor(
        threadCount: ProcessInfo.processInfo.activeProcessorCount, niceness: 10)
}

/// Runs `body` — blocking socket or process work — on ``TestExecutors/blocking`` and returns its result.
public func onBlockingExecutor<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(executorPreference: TestExecutors.blocking) { try body() }
        return try await group.next()!
    }
}

/// Runs `body(0)`…`body(count − 1)` at once, each on ``TestExecutors/blocking``, and returns their
/// results in index order once all have finished.
public func concurrentlyOnBlockingExecutor<T: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (Int) async throws -> T
) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        for index in 0..<count {
            group.addTask(executorPreference: TestExecutors.blocking) { (index, try await body(index)) }
        }
        var results = [T?](repeating: nil, count: count)
        for try await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}
