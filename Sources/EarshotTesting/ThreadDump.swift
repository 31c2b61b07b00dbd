import Foundation

/// The stacks of every thread of a running process, for a test's failure message: what a process that
/// should have exited or let go of something was doing. Read with gdb in batch mode (it stops the
/// process for the moment it takes); a short note instead when gdb is missing or fails.
public enum ThreadDump {
    /// Each thread's innermost `frames` frames, Swift names left mangled (gdb's own output).
    public static func of(pid: Int32, frames: Int = 14) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else {
            return "(no thread dump: /usr/bin/gdb is not installed)"
        }
        guard
            let result = try? ExternalTool.run([
                "timeout", "60", "/usr/bin/gdb", "-p", String(pid), "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "thread apply all bt \(frames)",
            ])
        else { return "(no thread dump: gdb did not run)" }
        // Only the frames and thread headers: gdb's notes about symbols are noise in a test report.
        let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
        return lines.isEmpty ? "(no thread dump: \(result.standardError.prefix(400)))" : lines.joined(separator: "\n")
    }
}
