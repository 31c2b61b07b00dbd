import EarshotCore
import Foundation

/// Runs the installed programs recipes render with (fluidsynth).
enum ExternalProgram {
    /// Runs `arguments[0]` from PATH with its output discarded, and fails with `.invalidInput`
    /// naming the Debian package when the program is missing or fails.
    static func run(_ arguments: [String], package: String, standardInput: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let input = Pipe()
        process.standardInput = standardInput == nil ? FileHandle.nullDevice : input
        do {
            try process.run()
        } catch {
            throw EarshotError(.invalidInput, "\(arguments[0]): cannot run it; install the Debian package \(package)")
        }
        if let standardInput {
            try? input.fileHandleForWriting.write(contentsOf: Data(standardInput.utf8))
            try? input.fileHandleForWriting.close()
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let detail = message.split(separator: "\n").last.map(String.init) ?? "no message"
            throw EarshotError(
                .invalidInput,
                "\(arguments[0]) failed with status \(process.terminationStatus) (\(detail)); "
                    + "is the Debian package \(package) installed?")
        }
    }
}
