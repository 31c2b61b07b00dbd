import EarshotTesting
import Foundation
import Testing

/// SIGINT and SIGTERM during a command that writes a file leave nothing behind: neither the output
/// nor the hidden `.NAME.partial-XXXXXX` it was being written as.
@Suite(.serialized) struct InterruptCommandTests {
    /// Ten minutes of noisy tones at 44.1 kHz stereo: long enough that encoding it takes a while.
    static func longInput(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("long.wav")
        let made = try ExternalTool.run([
            "sox", "-n", "-r", "44100", "-c", "2", path, "synth", "600", "sine", "300-3000", "brownnoise", "vol", "0.3",
        ])
        try #require(made.status == 0, "sox: \(made.standardError)")
        return path
    }

    /// Starts `earshot` with `arguments` in `directory`, waits until its output's temporary file
    /// exists, sends `signal`, and returns the exit status and standard error.
    static func interrupt(_ arguments: [String], in directory: TemporaryDirectory, with signal: Int32) throws
        -> (status: Int32, standardError: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        while process.isRunning, !directory.contents().contains(where: { $0.contains(".partial-") }),
            Date().timeIntervalSince(started) < 60
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try #require(process.isRunning, "earshot finished before it could be interrupted")
        kill(process.processIdentifier, signal)
        let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, standardError)
    }

    @Test(arguments: [
        (["encode", "long.wav", "out.spx"], SIGINT), (["encode", "long.wav", "out.flac"], SIGTERM),
        (["decode", "long.spx", "out.wav"], SIGINT), (["level", "long.wav", "-o", "levels.txt"], SIGINT),
    ])
    func anInterruptedCommandLeavesNoFile(arguments: [String], signal: Int32) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try Self.longInput(in: directory)
        let encoded = try ExternalTool.run([ExternalTool.earshotPath, "encode", input, directory.file("long.spx")])
        try #require(encoded.status == 0, "\(encoded.standardError)")
        let result = try Self.interrupt(arguments, in: directory, with: signal)
        #expect(result.status == 128 + signal, "\(result.standardError)")
        #expect(result.standardError.contains("interrupted; no output written"))
        #expect(directory.contents() == ["long.spx", "long.wav"])
    }
}
