import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "earshot-test") throws {
        var template = Array((NSTemporaryDirectory() + "/\(label)-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Names of the files in the directory, sorted (hidden files included).
    public func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

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
        if let standardInput {
            // Feed stdin from another thread so a child that writes a lot before reading cannot deadlock us.
            let writer = input.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: standardInput)
                try? writer.close()
            }
        }
        // Drain stderr on another thread while this one drains stdout, so neither pipe fills and blocks the child.
        let errorData = LockedData()
        let errorDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errorData.set(err.fileHandleForReading.readDataToEndOfFile())
            errorDone.signal()
        }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorDone.wait()
        return Result(
            status: process.terminationStatus, standardOutput: outputData,
            standardError: String(decoding: errorData.value, as: UTF8.self))
    }

    /// The `earshot` executable built beside the running test bundle.
    public static var earshotPath: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("earshot").path
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    var value: Data { lock.withLock { data } }
}
