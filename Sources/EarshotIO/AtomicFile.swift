import EarshotCore
import Foundation

/// A file that appears under its final name only when complete.
///
/// Data is written to a temporary file created beside the destination (same directory, so the final
/// `rename` is atomic); `commit()` gives it ordinary permissions and moves it into place. If the owner
/// is dropped before `commit()` — an error, a cancel — the temporary file is removed and any existing
/// file of the final name is left as it was.
public final class AtomicFile {
    /// The destination.
    public let path: String
    /// Where the data is being written until `commit()`.
    public let temporaryPath: String
    /// An open descriptor on the temporary file, owned by this object until `commit()` or deinit.
    public let descriptor: Int32
    private var committed = false
    private var descriptorClosed = false

    public init(path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        (descriptor, temporaryPath) = try Self.makeTemporary(
            template: (directory.isEmpty ? "." : directory) + "/.\(base).partial-XXXXXX", naming: path)
        self.path = path
        TemporaryFiles.register(temporaryPath)
    }

    deinit {
        if !descriptorClosed { close(descriptor) }
        if !committed { unlink(temporaryPath) }
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Records that someone else (libsndfile's `sf_close`) has closed `descriptor`.
    public func descriptorWasClosed() { descriptorClosed = true }

    /// Moves the finished file into place.
    public func commit() throws {
        let mask = umask(0)
        umask(mask)
        chmod(temporaryPath, 0o666 & ~mask)  // mkstemp creates 0600
        guard rename(temporaryPath, path) == 0 else {
            throw EarshotError(
                .writeFailed, "\(path): cannot move the finished file into place (\(Self.systemError()))")
        }
        committed = true
        TemporaryFiles.unregister(temporaryPath)
    }

    /// Creates a unique file from a `mkstemp` template; `naming` is the path errors mention.
    static func makeTemporary(template: String, naming: String) throws -> (Int32, String) {
        var bytes = Array(template.utf8CString)
        let descriptor = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw EarshotError(.writeFailed, "\(naming): cannot create a temporary file beside it (\(systemError()))")
        }
        let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (descriptor, path)
    }

    /// The C library's description of `errno`.
    public static func systemError() -> String { String(cString: strerror(errno)) }
}
