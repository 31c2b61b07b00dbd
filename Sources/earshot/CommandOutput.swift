import EarshotCore
import EarshotIO
import Foundation

/// Where a command writes its data: standard output, or an ``OutputFile`` — a regular file that
/// appears only when complete (if the command fails first, nothing is left under the final name), or a
/// device or FIFO written into directly.
final class CommandOutput {
    private let name: String
    private let handle: FileHandle
    private let file: OutputFile?
    /// Whether the file, once committed, is a table still being filled (`sweep -o`, rewritten after each row).
    private var resumable = false
    /// Bytes written so far.
    private(set) var byteCount = 0

    init(path: String) throws {
        if path == InputPath.standardStream {
            name = "stdout"
            handle = FileHandle.standardOutput
            file = nil
        } else {
            let file = try OutputFile(path: path)
            name = path
            handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
            self.file = file
        }
    }

    /// Refuses an output path that names a directory, for a command that opens its output only after
    /// its work: the user learns at once, not after it.
    static func check(_ path: String) throws { try OutputFile.refuseDirectory(path) }

    /// Creates the directory an `option` such as `--output-dir` names, with its parents, if missing;
    /// refuses a path that is something else. Returns the path.
    @discardableResult
    static func makeDirectory(_ path: String, option: String) throws -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw EarshotError(.writeFailed, "\(path): \(option) is not a directory")
            }
            return path
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw EarshotError(
                .writeFailed, "\(path): cannot create the \(option) directory (\(error.localizedDescription))")
        }
        return path
    }

    /// Writes `text` as the whole output at `path` and commits it: a table rewritten after every
    /// finished row replaces the previous one at once, never half-written.
    static func replace(_ path: String, with text: String, resumable: Bool = false) throws {
        let output = try CommandOutput(path: path)
        output.resumable = resumable
        try output.write(text)
        try output.commit()
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    func write(_ bytes: [UInt8]) throws {
        do {
            try handle.write(contentsOf: bytes)
            byteCount += bytes.count
            if file == nil { OutputLedger.wroteToStandardOutput(bytes.count) }
        } catch {
            throw EarshotError(.writeFailed, "\(name): write failed (\(error.localizedDescription))")
        }
    }

    /// Overwrites bytes at `offset` (a header whose lengths are known only at the end). Standard output,
    /// a pipe or a character device cannot seek, and needs no patch: what went out there was a stream,
    /// placeholder header included.
    func patch(_ bytes: [UInt8], at offset: UInt64) throws {
        guard let file, file.isSeekable else { return }
        let written = bytes.withUnsafeBytes { pwrite(file.descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count else {
            throw EarshotError(.writeFailed, "\(name): cannot rewrite the header (\(OutputFile.systemError()))")
        }
    }

    /// Makes the output visible under its final name.
    func commit() throws {
        guard let file else { return }
        try file.commit()
        OutputLedger.committed(file.path, resumable: resumable)
    }
}
