import EarshotCore
import Foundation

/// How a custom language model's files are read: only regular files — a FIFO would block the reader
/// until someone writes, a device such as `/dev/zero` never ends — and only up to a size bound checked
/// before reading, so a damaged or hostile model folder is refused at once instead of hanging a request
/// or exhausting memory.
enum RegularFile {
    /// The bytes of the regular file at `path` (a symlink is followed), at most `limit` of them.
    /// Throws `.invalidInput` naming `path` for a missing file, one that is not regular, or a larger one.
    static func read(_ path: String, limit: Int) throws -> Data {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw EarshotError(.invalidInput, "\(path): cannot read it (\(String(cString: strerror(errno))))")
        }
        try check(status, path: path, limit: limit)
        // Should the path be swapped for a FIFO after the check, opening it without O_NONBLOCK would wait
        // for a writer; fstat below then refuses what was opened.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw EarshotError(.invalidInput, "\(path): cannot open it (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else {
            throw EarshotError(.invalidInput, "\(path): cannot read it (\(String(cString: strerror(errno))))")
        }
        try check(status, path: path, limit: limit)
        // The file may grow after fstat: read no more than one byte past the limit to tell.
        var bytes = [UInt8](repeating: 0, count: min(Int(status.st_size), limit) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count <= limit else { break }
                bytes += [UInt8](repeating: 0, count: min(bytes.count, limit + 1 - bytes.count))
            }
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else {
                throw EarshotError(.invalidInput, "\(path): cannot read it (\(String(cString: strerror(errno))))")
            }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { throw tooLarge(path, limit: limit) }
        return Data(bytes[..<count])
    }

    private static func check(_ status: stat, path: String, limit: Int) throws {
        guard status.st_mode & S_IFMT == S_IFREG else {
            let kind =
                switch status.st_mode & S_IFMT {
                case S_IFIFO: "a FIFO"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFDIR: "a folder"
                case S_IFSOCK: "a socket"
                default: "a special file"
                }
            throw EarshotError(.invalidInput, "\(path): is \(kind); expected a regular file")
        }
        guard status.st_size <= limit else { throw tooLarge(path, limit: limit) }
    }

    private static func tooLarge(_ path: String, limit: Int) -> EarshotError {
        EarshotError(
            .invalidInput, "\(path): larger than \(limit) bytes, the most a custom language model's file may be")
    }
}
