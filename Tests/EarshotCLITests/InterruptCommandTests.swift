import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// SIGINT and SIGTERM during a command that writes a file leave nothing behind: neither the output
/// nor the hidden `.NAME.partial-XXXXXX` it was being written as.
@Suite(.serialized, .timed) struct InterruptCommandTests {
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
    /// exists, sends `signal`, and returns the exit status, standard error, and the seconds from the
    /// signal to the exit. With `liveInput`, its
    /// standard input is a pipe that gets those bytes and stays open until the signal is sent, as from
    /// a live source: the command is still waiting for audio when it is interrupted, however fast it is.
    static func interrupt(
        _ arguments: [String], in directory: TemporaryDirectory, with signal: Int32, liveInput: Data? = nil
    ) throws -> (status: Int32, standardError: String, seconds: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let input = Pipe()
        process.standardInput = liveInput == nil ? FileHandle.nullDevice : input
        try process.run()
        defer { try? input.fileHandleForWriting.close() }
        if let liveInput { try input.fileHandleForWriting.write(contentsOf: liveInput) }
        let started = Date()
        while process.isRunning, !directory.contents().contains(where: { $0.contains(".partial-") }),
            Date().timeIntervalSince(started) < 60
        {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try #require(process.isRunning, "earshot finished before it could be interrupted")
        let signalled = Date()
        kill(process.processIdentifier, signal)
        let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, standardError, Date().timeIntervalSince(signalled))
    }

    @Test(arguments: [
        (["encode", "long.wav", "out.spx"], SIGINT), (["encode", "long.wav", "out.flac"], SIGTERM),
        (["level", "long.wav", "-o", "levels.txt"], SIGINT),
    ])
    func anInterruptedCommandLeavesNoFile(arguments: [String], signal: Int32) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try Self.longInput(in: directory)
        let result = try Self.interrupt(arguments, in: directory, with: signal)
        #expect(result.status == 128 + signal, "\(result.standardError)")
        #expect(result.standardError.contains("interrupted; no output written"))
        #expect(result.seconds < 1, "stopped \(result.seconds) s after the signal")
        #expect(directory.contents() == ["long.wav"])
    }

    /// A command reading a live stream is interrupted while it waits for more audio: decoding runs at
    /// hundreds of times real time, so only a stream that has not ended keeps it running for certain.
    @Test func anInterruptedLiveDecodeLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let second = Data(count: 16_000 * 2)
        let result = try Self.interrupt(
            ["decode", "--rate", "16000", "-", "out.flac"], in: directory, with: SIGINT, liveInput: second)
        #expect(result.status == 128 + SIGINT, "\(result.standardError)")
        #expect(result.standardError.contains("interrupted; no output written"))
        #expect(result.seconds < 1, "stopped \(result.seconds) s after the signal")
        #expect(directory.contents() == [])
    }

    /// Interrupted after some of its files were written, a command says which, instead of "no output".
    @Test func anInterruptAfterSomeFilesSaysWhichWereWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try Self.longInput(in: directory)
        for copy in ["b.wav", "c.wav"] { try FileManager.default.copyItem(atPath: long, toPath: directory.file(copy)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = ["vad", "--detector", "energy", "--out", "preds", "long.wav", "b.wav", "c.wav"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        func written() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory.file("preds"))) ?? [] }
        while process.isRunning, !written().contains("long.prob"), Date().timeIntervalSince(started) < 60 {
            Thread.sleep(forTimeInterval: 0.005)
        }
        try #require(process.isRunning && written().contains("long.prob"), "vad finished before it could be interrupted")
        kill(process.processIdentifier, SIGINT)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT)
        #expect(
            message.contains("interrupted; written before the interrupt: ")
                && message.contains("preds/long.csv") && message.contains("preds/long.prob")
                && message.hasSuffix("; nothing else was written\n"), "\(message)")
        #expect(!message.contains("no output written"))
    }
}
