import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where blocking work runs: a fixed set of threads, each with an 8 MiB stack, as a Swift task
/// executor.
///
/// The C libraries under Earshot block their thread while they work — PocketSphinx for the seconds a
/// segment takes, libsndfile on a read, a detector over a block — and Swift's cooperative pool has one
/// thread per core, so blocking it starves every other task. Work that blocks runs here instead:
/// `group.addTask(executorPreference: BlockingExecutor.current) { … }`, or
/// `withTaskExecutorPreference(BlockingExecutor.current) { … }` (``current`` is ``shared`` unless a
/// caller has scoped another). Synchronous code called from such a task runs on one
/// of these threads, and an `await` in it frees the thread for another task, so tasks that spend their
/// time waiting on the network (an upload) share the threads with ones that compute.
///
/// At most ``threadCount`` jobs run at once; the rest wait in order of arrival. A job runs to its next
/// suspension, which for C work may be a second (a final decode, loading a model), so the shared
/// executor has more threads than cores: with one per core, a service request's millisecond decode of
/// its next chunk waited behind other requests' final decodes (a 1 s response timeout in the client
/// tests fired under load). How much CPU work runs at once is bounded where the work is made —
/// `--jobs` workers, the service's recognizer pool — and the OS shares the cores among those threads;
/// the executor's bound only keeps the thread count from growing with the load, as Dispatch's would.
/// PocketSphinx's search recurses, so the threads get the main thread's 8 MiB stack rather than a
/// secondary thread's 512 KiB (reserved address space; only the pages used are backed).
///
/// `@unchecked Sendable`: `jobs` is read and written only with `condition` locked.
public final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    /// The process's executor for blocking work: twice as many threads as cores, at least 16.
    public static let shared = BlockingExecutor(threadCount: max(16, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// Where Earshot runs blocking work started in the current task: ``shared``, unless a caller
    /// scopes another with `BlockingExecutor.$current.withValue(executor) { … }` — an application
    /// that keeps Earshot's decoding apart from its own threads, or a test suite that runs its
    /// CPU-bound work in the background. Child tasks, and tasks started with `Task {}`, inherit it.
    @TaskLocal public static var current: BlockingExecutor = shared

    /// How many jobs run at once.
    public let threadCount: Int
    private let condition = NSCondition()
    private var jobs = FIFO<UnownedJob>()

    /// Starts `threadCount` threads that live as long as the process (an executor is made once).
    /// They run at `niceness` (from -20, first, to 19, last; Linux keeps it per thread, and the
    /// processes they start inherit it): by default the process's, as `nice` started it — not the
    /// creating thread's, which for a Swift task is a Dispatch worker that Dispatch has set to 0 —
    /// so `nice earshot …` runs its decoding in the background. Above that, for background work that
    /// should yield the cores to latency-bound work in the same process. A niceness below the
    /// creating thread's (a higher priority) needs privilege; without it, the threads keep the one
    /// they inherited. The threads are named `name-0`, `name-1`, … as `top -H`, `ps -L` and
    /// debuggers show them (Linux keeps 15 bytes of a name).
    public init(name: String = "earshot-work", threadCount: Int, stackSize: Int = 8 << 20, niceness: Int32? = nil) {
        precondition(threadCount > 0, "an executor needs at least one thread")
        self.threadCount = threadCount
        let niceness = niceness ?? Self.processNiceness
        for index in 0..<threadCount {
            let threadName = String(decoding: "\(name)-\(index)".utf8.prefix(15), as: UTF8.self)
            let thread = Thread { [self] in
                // PRIO_PROCESS with 0 names the calling thread under Linux's threads. Before the name, so
                // a thread that shows as `name-i` (in `top -H`, or to a test) already runs at its niceness.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
                Self.setCallingThreadsName(threadName)
                serve()
            }
            thread.stackSize = stackSize
            thread.name = threadName
            thread.start()
        }
    }

    /// The niceness `nice` started the process with: its main thread's (PRIO_PROCESS with the process
    /// ID names that thread under Linux's threads).
    static var processNiceness: Int32 {
        errno = 0
        let niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        return errno == 0 ? niceness : 0
    }

    /// Gives the calling thread its kernel name (what `top -H` shows): Foundation's `Thread.name` on
    /// Linux does not, and Glibc's `pthread_setname_np` is not imported into Swift.
    private static func setCallingThreadsName(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = name.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// One thread's loop: the oldest job, run to its next suspension, forever.
    private func serve() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.popFirst()!
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
