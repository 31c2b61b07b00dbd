import EarshotCore
import Foundation
import Synchronization

/// The command's messages on standard error: `earshot: …` lines, or — once a command runs with
/// `--progress ndjson` — JSON lines beside its progress lines (`{"event":"message","command":…,
/// "level":"error","text":…}`), so a script reading standard error as JSON lines gets every line.
enum Messages {
    private static let jsonCommand = Mutex<String?>(nil)

    /// From now on, messages are JSON lines naming `command`.
    static func useJSON(command: String) { jsonCommand.withLock { $0 = command } }

    /// One message: `level` is `error`, `warning` or `note`.
    static func write(_ text: String, level: String = "error") {
        if let command = jsonCommand.withLock({ $0 }) {
            ProgressLine.write("message", command: command, fields: [("level", level), ("text", text)])
        } else {
            FileHandle.standardError.write(Data("earshot: \(text)\n".utf8))
        }
    }
}
