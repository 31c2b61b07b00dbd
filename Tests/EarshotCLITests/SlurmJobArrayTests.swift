import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Examples/slurm/earshot-array.sh, as shipped, on a one-node Slurm that the test starts on 127.0.0.1:
/// Debian's munged with its own key and socket, slurmctld and slurmd in the foreground, all configured in
/// a temporary folder on ports picked here. The script submits a sweep as a job array of 3 shards and a
/// merge job that waits for them; the merged table must equal one run's byte for byte.
///
/// `make test` runs it with the other suites with EARSHOT_SLURM_TESTS=1 set (and installs slurm-wlm and
/// munge first), so there a Slurm that cannot start fails the test; a bare `swift test` skips it.
@Suite(.serialized, .waiting, .enabled(if: ProcessInfo.processInfo.environment["EARSHOT_SLURM_TESTS"] == "1"))
struct SlurmJobArrayTests {
    static let script = ShardMergeCommandTests.repository.appendingPathComponent("Examples/slurm/earshot-array.sh").path

    /// munged, slurmctld and slurmd as child processes, and the folder holding their configuration and state.
    final class Cluster {
        let directory: TemporaryDirectory
        var daemons: [Daemon] = []
        var environment: [String: String] { ["SLURM_CONF": directory.file("slurm.conf")] }

        init() throws {
            directory = try TemporaryDirectory("earshot-slurm")
            // munged insists that everyone may enter the folders on the way to its socket, and that its key
            // is the owner's alone.
            chmod(directory.path, 0o711)
            let munge = directory.file("munge")
            try FileManager.default.createDirectory(atPath: munge, withIntermediateDirectories: false)
            chmod(munge, 0o711)
            let key = (0..<1024).map { _ in UInt8.random(in: 0...255) }
            try #require(
                FileManager.default.createFile(
                    atPath: munge + "/munge.key", contents: Data(key), attributes: [.posixPermissions: 0o400]))
            for folder in ["state", "spool"] {
                try FileManager.default.createDirectory(
                    atPath: directory.file(folder), withIntermediateDirectories: false)
            }
            let (controllerPort, nodePort) = (try NginxScaleOutTests.freePort(), try NginxScaleOutTests.freePort())
            // One node of 2 CPUs and 4 GB whatever the machine has (config_overrides), so the script's
            // --cpus-per-task=2 --mem=2G fit on any CI runner; no cgroups, no accounting.
            let configuration = """
                ClusterName=earshot-test
                SlurmctldHost=localhost
                SlurmctldPort=\(controllerPort)
                SlurmdPort=\(nodePort)
                SlurmUser=\(NSUserName())
                AuthType=auth/munge
                CredType=cred/munge
                AuthInfo=socket=\(munge)/munge.socket
                StateSaveLocation=\(directory.file("state"))
                SlurmdSpoolDir=\(directory.file("spool"))
                SlurmctldPidFile=\(directory.file("slurmctld.pid"))
                SlurmdPidFile=\(directory.file("slurmd.pid"))
                SlurmctldLogFile=\(directory.file("slurmctld.log"))
                SlurmdLogFile=\(directory.file("slurmd.log"))
                ProctrackType=proctrack/linuxproc
                TaskPlugin=task/none
                SelectType=select/cons_tres
                SelectTypeParameters=CR_Core
                SchedulerType=sched/builtin
                JobCompType=jobcomp/none
                JobAcctGatherType=jobacct_gather/none
                AccountingStorageType=accounting_storage/none
                MpiDefault=none
                ReturnToService=2
                SlurmdParameters=config_overrides
                NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=4096 State=UNKNOWN
                PartitionName=earshot Nodes=localhost Default=YES MaxTime=INFINITE State=UP

                """
            _ = try directory.write(Array(configuration.utf8), to: "slurm.conf")
        }

        /// Starts `arguments` in the foreground, its output into NAME.out in the folder.
        func start(_ name: String, _ arguments: [String]) throws {
            do {
                daemons.append(
                    try Daemon(
                        name: name, arguments: arguments, log: directory.file(name + ".out"),
                        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }))
            } catch {
                Issue.record(
                    "\(arguments[0]) cannot run (are slurm-wlm and munge installed? make test installs them): \(error)")
                throw error
            }
        }

        func startAll() async throws {
            let munge = directory.file("munge")
            try start(
                "munged",
                [
                    "/usr/sbin/munged", "--foreground", "--socket=\(munge)/munge.socket",
                    "--key-file=\(munge)/munge.key",
                    "--log-file=\(munge)/munged.log", "--pid-file=\(munge)/munged.pid",
                    "--seed-file=\(munge)/munged.seed",
                ])
            try await waitFor("munged's socket", seconds: 30) {
                FileManager.default.fileExists(atPath: munge + "/munge.socket")
            }
            try start("slurmctld", ["/usr/sbin/slurmctld", "-D"])
            try start("slurmd", ["/usr/sbin/slurmd", "-D", "-N", "localhost"])
            try await waitFor("the node to be idle", seconds: 60) {
                let state = try? run(["sinfo", "--noheader", "--nodes", "localhost", "--format", "%T"])
                return state?.output.trimmingCharacters(in: .whitespacesAndNewlines) == "idle"
            }
        }

        /// A Slurm client command against this cluster.
        func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ExternalTool.Result {
            try ExternalTool.run(arguments, environment: environment.merging(extra) { $1 })
        }

        /// Polls `condition` every 0.2 s until it holds, or fails after `seconds` with the daemons' logs.
        func waitFor(_ what: String, seconds: Double, _ condition: () throws -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try condition() { return }
                for daemon in daemons where !daemon.isRunning {
                    Issue.record("\(daemon.name) exited (wait status \(daemon.status ?? -1)):\n\(logs)")
                    throw CancellationError()
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            // Once more after the deadline: a test task starved of a thread (CPU-bound suites beside it)
            // may not have polled at all.
            if try condition() { return }
            Issue.record("no \(what) within \(Int(seconds)) s:\n\(logs)")
            throw CancellationError()
        }

        var logs: String {
            ["munged.out", "munge/munged.log", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"].map {
                name in
                let text = (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "(none)"
                return "== \(name)\n" + text.split(separator: "\n").suffix(15).joined(separator: "\n")
            }.joined(separator: "\n")
        }

        /// Stops the daemons (SIGTERM, SIGKILL after 10 s), newest first, and removes the folder.
        func stop() async {
            for daemon in daemons.reversed() where daemon.isRunning {
                kill(daemon.pid, SIGTERM)
                for _ in 0..<100 where daemon.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
                if daemon.isRunning {
                    kill(daemon.pid, SIGKILL)
                    while daemon.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
                }
            }
            directory.remove()
        }
    }

    /// A daemon started with posix_spawn and reaped with waitpid, not Foundation's Process: slurmctld and
    /// slurmd close the descriptors they inherit, which Foundation takes for the child's exit; its monitor
    /// thread then blocks in waitpid on the live daemon, and no later Process (sinfo, sbatch) is ever seen
    /// to finish.
    final class Daemon {
        let name: String
        let pid: pid_t
        /// The wait status, once reaped.
        private(set) var status: Int32?

        init(name: String, arguments: [String], log: String, environment: [String: String]) throws {
            self.name = name
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid = pid_t()
            let error = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
            guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
            self.pid = pid
        }

        /// Whether it still runs (reaping it if it has ended).
        var isRunning: Bool {
            guard status == nil else { return false }
            var wait: Int32 = 0
            if waitpid(pid, &wait, WNOHANG) == pid { status = wait }
            return status == nil
        }
    }

    @Test func theExampleJobArrayShardsASweepAndItsMergeEqualsOneRun() async throws {
        let cluster = try Cluster()
        do {
            try await runTheExample(on: cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    private func runTheExample(on cluster: Cluster) async throws {
        try await cluster.startAll()
        let work = try TemporaryDirectory("earshot-slurm-work")
        defer { work.remove() }
        let corpus = try ShardMergeCommandTests.makeCorpus(in: work)
        let options = "--detector energy --grid endingSilence=0.3,0.6,0.9 --grid onsetThreshold=0.5,0.6"
        let out = work.file("run")
        let submitted = try cluster.run(
            ["bash", Self.script],
            environment: [
                "EARSHOT": ExternalTool.earshotPath, "COMMAND": "sweep", "CORPUS": corpus, "ARGS": options,
                "SHARDS": "3", "OUT": out, "FORMAT": "csv",
            ])
        #expect(submitted.status == 0, "\(submitted.standardError)")
        let merge = try #require(
            submitted.output.firstMatch(of: /and merge (\d+)/).map { String($0.1) }, "\(submitted.output)")

        // The merge job runs only after the three shards succeeded; it ends within 5 minutes.
        var state = ""
        try await cluster.waitFor("end of merge job \(merge)", seconds: 300) {
            let shown = try cluster.run(["scontrol", "show", "job", merge]).output
            state = shown.firstMatch(of: /JobState=(\w+)/).map { String($0.1) } ?? ""
            return !["", "PENDING", "RUNNING", "CONFIGURING", "COMPLETING"].contains(state)
        }
        let logs = ((try? FileManager.default.contentsOfDirectory(atPath: out + "/logs")) ?? []).sorted()
        let logText = logs.map {
            "== \($0)\n" + ((try? String(contentsOfFile: "\(out)/logs/\($0)", encoding: .utf8)) ?? "")
        }
        .joined(separator: "\n")
        #expect(state == "COMPLETED", "merge job \(merge): \(state)\n\(logText)")
        #expect(logs == ["merge.log", "shard-1.log", "shard-2.log", "shard-3.log"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out + "/parts").sorted()
                == ["sweep.1.json", "sweep.2.json", "sweep.3.json"])

        let single = try ExternalTool.run(
            [ExternalTool.earshotPath, "sweep"] + options.split(separator: " ").map(String.init) + [corpus])
        #expect(single.status == 0, "\(single.standardError)")
        let merged = FileManager.default.contents(atPath: out + "/sweep.csv")
        #expect(merged == single.standardOutput, "\(logText)")
        #expect(single.output.split(separator: "\n").count == 7)
    }
}
