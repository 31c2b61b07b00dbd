import EarshotCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs external programs from tests: independent tools (sox) and the built `earshot` executable.
public enum ExternalTool {
    /// What a finished process left behind.
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: Data
        public var standardError: String
        public var output: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// Runs `arguments[0]` (looked up on PATH unless it is a path) and waits for it.
    ///
    /// One loop over the child's three pipes with `poll(2)` feeds its standard input as it takes it
    /// and drains its output and errors as they come, so a child that writes a lot before it reads
    /// cannot deadlock either side, and no thread is started. A child that closes its input early
    /// ends the feeding (SIGPIPE is ignored in this process, so the write fails with EPIPE instead).
    public static func run(_ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:])
        throws -> Result
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = standardInput == nil ? FileHandle.nullDevice : input
        try process.run()
        // (Process closes the parent's copies of the child's ends of the pipes once it has started.)
        var streams = Streams(
            output: out.fileHandleForReading.fileDescriptor, error: err.fileHandleForReading.fileDescriptor,
            input: standardInput == nil ? nil : input.fileHandleForWriting,
            pending: standardInput.map { [UInt8]($0) } ?? [])
        defer { streams.closeInput() }
        try streams.pump()
        streams.closeInput()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: Data(streams.outputBytes),
            standardError: String(decoding: streams.errorBytes, as: UTF8.self))
    }

    /// Encodes `input` with the `ffmpeg` CLI (real FFmpeg, Debian's) into `output`, with `options` between
    /// them; throws with ffmpeg's message if it fails.
    public static func ffmpeg(_ input: String, _ options: [String], to output: String) throws {
        let run = try run(["ffmpeg", "-loglevel", "error", "-y", "-i", input] + options + [output])
        guard run.status == 0 else {
            throw EarshotError(.invalidInput, "ffmpeg -i \(input) \(options.joined(separator: " ")) \(output): \(run.standardError)")
        }
    }

    /// The `earshot` executable built beside the running test bundle.
    public static var earshotPath: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("earshot").path
    }
}

/// The parent's ends of a child's pipes, pumped until both outputs reach end of file.
private struct Streams {
    var output: Int32?
    var error: Int32?
    /// Closed through its handle, which owns the descriptor.
    var input: FileHandle?
    var pending: [UInt8]
    var written = 0
    var outputBytes: [UInt8] = []
    var errorBytes: [UInt8] = []

    init(output: Int32, error: Int32, input: FileHandle?, pending: [UInt8]) {
        self.output = output
        self.error = error
        self.input = input
        self.pending = pending
        if let fd = input?.fileDescriptor {
            signal(SIGPIPE, SIG_IGN)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
    }

    /// Closes the child's input however the pumping ended.
    func closeInput() { try? input?.close() }

    mutating func pump() throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while output != nil || error != nil {
            var fds: [pollfd] = []
            if let output { fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
            if let error { fds.append(pollfd(fd: error, events: Int16(POLLIN), revents: 0)) }
            if let input, written < pending.count {
                fds.append(pollfd(fd: input.fileDescriptor, events: Int16(POLLOUT), revents: 0))
            }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            for entry in fds where entry.revents != 0 {
                if entry.fd == input?.fileDescriptor {
                    let count = pending[written...].withUnsafeBytes { write(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 { written += count } else if errno != EAGAIN && errno != EINTR { written = pending.count }
                    if written == pending.count { finishInput() }
                } else {
                    let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        if entry.fd == output { outputBytes += chunk[..<count] } else { errorBytes += chunk[..<count] }
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        if entry.fd == output { output = nil } else { error = nil }
                    }
                }
            }
            if input != nil, written == pending.count { finishInput() }
        }
    }

    /// All of the input is written (or the child stopped reading): close it so the child sees EOF.
    private mutating func finishInput() {
        try? input?.close()
        input = nil
    }
}
