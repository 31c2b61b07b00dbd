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
        // Renamed and unregistered in one step, so an interrupt cannot remove the file it just became.
        let moved = TemporaryFiles.moveOut(temporaryPath) { rename(temporaryPath, path) == 0 }
        guard moved else {
            throw EarshotError(
                .writeFailed, "\(path): cannot move the finished file into place (\(Self.systemError()))")
        }
        committed = true
    }

    /// Creates a unique file from a `mkstemp` template, registered with ``TemporaryFiles`` until it
    /// is moved into place or removed; `naming` is the path errors mention.
    static func makeTemporary(template: String, naming: String) throws -> (Int32, String) {
        guard let (descriptor, path) = TemporaryFiles.create(template: template) else {
            throw EarshotError(.writeFailed, "\(naming): cannot create a temporary file beside it (\(systemError()))")
        }
        return (descriptor, path)
    }

    /// The C library's description of `errno`.
    public static func systemError() -> String { String(cString: strerror(errno)) }
}
