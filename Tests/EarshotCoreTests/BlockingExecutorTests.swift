import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The executor for blocking work: its threads' names and priorities, and the scope that chooses it
/// (`BlockingExecutor.current`), as the test traits set it.
@Suite(.waiting) struct BlockingExecutorTests {
    /// The name and niceness of the thread a job runs on, as the kernel reports them.
    struct Worker: Equatable, Sendable {
        let name: String
        let niceness: Int32

        static var calling: Worker {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            // PRIO_PROCESS with 0 is the calling thread under Linux's threads.
            let niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            return Worker(name: name.trimmingCharacters(in: .newlines), niceness: niceness)
        }
    }

    static func thread(of executor: BlockingExecutor) async -> Worker {
        await withTaskGroup(of: Worker.self) { group in
            group.addTask(executorPreference: executor) { .calling }
            return await group.next()!
        }
    }

    @Test func itsThreadsCarryItsNameAndNiceness() async {
        // Above the waiting suites' 10: raising a niceness needs no privilege.
        let executor = BlockingExecutor(name: "unit-background", threadCount: 2, niceness: 15)
        let thread = await Self.thread(of: executor)
        // Linux keeps 15 bytes of a name.
        #expect(thread.name.hasPrefix("unit-background"))
        #expect(thread.niceness == 15)
    }

    @Test func currentIsWhatTheScopeSaysAndTasksInheritIt() async {
        // A waiting suite scopes its recognition executor.
        #expect(BlockingExecutor.current === TestExecutors.recognition)
        let mine = BlockingExecutor(name: "unit-scope", threadCount: 1)
        await BlockingExecutor.$current.withValue(mine) {
            let child = await withTaskGroup(of: Bool.self) { group in
                group.addTask { BlockingExecutor.current === mine }
                return await group.next()!
            }
            #expect(child)
            #expect(await Task { BlockingExecutor.current === mine }.value)
            #expect(await Task.detached { BlockingExecutor.current === BlockingExecutor.shared }.value)
        }
    }

    @Test func aWaitingTestRunsAtNiceTenAndItsServicesRecognizeThere() async {
        #expect(Worker.calling.name.hasPrefix("test-wait-"))
        #expect(Worker.calling.niceness == 10)
        #expect(await Self.thread(of: BlockingExecutor.current).niceness == 10)
    }

    @Test(.timed) func aTimedTestRunsAtTheDefaultPriorityWhateverItsSuite() async {
        #expect(Worker.calling.name.hasPrefix("test-timed-"))
        #expect(Worker.calling.niceness == 0)
        #expect(BlockingExecutor.current === TestExecutors.timed)
    }

    @Test(.computing) func aComputingTestRunsBehindEverythingElse() async {
        #expect(Worker.calling.name.hasPrefix("test-compute-"))
        #expect(Worker.calling.niceness == 19)
        #expect(BlockingExecutor.current === TestExecutors.compute)
    }
}
