import EarshotCore
import Foundation

/// A file a command writes its output to, written so that nothing of the user's is lost or replaced:
///
/// - **A regular file, or a new name**: the data goes to a temporary file beside it (same directory,
///   so the final `rename` is atomic), and ``commit()`` moves it into place — the file appears only
///   when complete. An existing file keeps its permissions and, where the process may set it, its
///   owner; a new one gets `0666` less the umask. If the owner is dropped before `commit()` — an
///   error, a cancel — the temporary file is removed and an existing file is left as it was.
/// - **A symbolic link** is followed: its final target is written as above (created if the link
///   dangles), and the link stays a link.
/// - **A file with other hard links** is written beside as above, and ``commit()`` copies the result
///   into it in place, so every name of it sees the new contents (a rename would leave the others
///   on the old file).
/// - **A device, a FIFO or a socket** is written into directly (opened without truncating, never
///   renamed over): `/dev/null`, a named pipe another program reads, a terminal. Like any stream, it
///   may hold part of the output if the command fails.
/// - **`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`** write to the process's own descriptor, as `-`
///   does, so a shell's redirection (`>> log`) is honoured rather than reopened.
/// - **A directory** is refused at once, before any work is done.
public final class OutputFile {
    /// The path the user gave.
    public let path: String
    /// An open descriptor on what is being written, owned by this object (closed at deinit unless
    /// ``descriptorWasClosed()`` says someone else closed it).
    public let descriptor: Int32
    /// Whether the output can be rewritten in place (a header patched at the end): true for files, false
    /// for pipes, terminals and most devices.
    public let isSeekable: Bool
    /// Where the data goes until ``commit()``, for a file written atomically; nil for a direct output.
    public let temporaryPath: String?
    /// The file ``commit()`` renames the temporary file onto: the path, or a symbolic link's target.
    private let destination: String
    /// An existing file's mode and owner, to carry over to its replacement.
    private let kept: (mode: mode_t, owner: uid_t, group: gid_t)?
    /// Whether ``commit()`` copies into the destination rather than renaming onto it (hard links).
    private let inPlace: Bool
    private var committed = false
    private var descriptorClosed = false

    public init(path: String) throws {
        self.path = path
        if let inherited = Self.processDescriptor(path) {
            let copy = dup(inherited)
            guard copy >= 0 else { throw EarshotError(.writeFailed, "\(path): cannot write (\(Self.systemError()))") }
            (descriptor, isSeekable, temporaryPath, destination, kept, inPlace) = (copy, false, nil, path, nil, false)
            return
        }
        let target = Self.finalTarget(of: path)
        var info = stat()
        guard stat(target, &info) == 0 else {
            guard errno == ENOENT else {
                throw EarshotError(.writeFailed, "\(path): cannot write there (\(Self.systemError()))")
            }
            (descriptor, temporaryPath) = try Self.makeTemporary(beside: target, naming: path)
            (isSeekable, destination, kept, inPlace) = (true, target, nil, false)
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw Self.isDirectory(path)
        case S_IFREG:
            (descriptor, temporaryPath) = try Self.makeTemporary(beside: target, naming: path)
            (isSeekable, destination) = (true, target)
            kept = (info.st_mode & 0o7777, info.st_uid, info.st_gid)
            inPlace = info.st_nlink > 1
        default:  // a device, FIFO or socket: written into, never replaced
            let opened = open(target, O_WRONLY | O_CLOEXEC)
            guard opened >= 0 else {
                throw EarshotError(.writeFailed, "\(path): cannot open for writing (\(Self.systemError()))")
            }
            (descriptor, temporaryPath, destination, kept, inPlace) = (opened, nil, target, nil, false)
            isSeekable = lseek(opened, 0, SEEK_CUR) >= 0 && (info.st_mode & S_IFMT) == S_IFBLK
        }
    }

    deinit {
        if !descriptorClosed { close(descriptor) }
        if let temporaryPath {
            if !committed { unlink(temporaryPath) }
            TemporaryFiles.unregister(temporaryPath)
        }
    }

    /// Records that someone else (libsndfile's `sf_close`) has closed `descriptor`.
    public func descriptorWasClosed() { descriptorClosed = true }

    /// Makes the output final: moves a file written atomically into place (with the mode and owner of
    /// the file it replaces); a direct output needs nothing.
    public func commit() throws {
        guard let temporaryPath, !committed else { return }
        if inPlace {
            try copyIntoDestination(from: temporaryPath)
            committed = true
            return
        }
        if let kept {
            chmod(temporaryPath, kept.mode)
            if kept.owner != geteuid() || kept.group != getegid() {
                _ = chown(temporaryPath, kept.owner, kept.group)  // may be refused when not root: then it is ours
            }
        } else {
            let mask = umask(0)
            umask(mask)
            chmod(temporaryPath, 0o666 & ~mask)  // mkstemp creates 0600
        }
        // Renamed and unregistered in one step, so an interrupt cannot remove the file it just became.
        let moved = TemporaryFiles.moveOut(temporaryPath) { rename(temporaryPath, destination) == 0 }
        guard moved else {
            throw EarshotError(
                .writeFailed, "\(path): cannot move the finished file into place (\(Self.systemError()))")
        }
        committed = true
    }

    /// Copies the finished temporary file into the destination's own inode (kept mode and owner, every
    /// hard link), then removes the temporary file.
    private func copyIntoDestination(from temporaryPath: String) throws {
        func failure(_ what: String) -> EarshotError {
            EarshotError(.writeFailed, "\(path): cannot \(what) (\(Self.systemError()))")
        }
        let source = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure("read the finished output back") }
        defer { close(source) }
        let target = open(destination, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard target >= 0 else { throw failure("open it to write in place") }
        defer { close(target) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw failure("read the finished output back") }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ Self.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: target) })
            else { throw failure("write in place") }
        }
        _ = TemporaryFiles.moveOut(temporaryPath) { unlink(temporaryPath) == 0 || errno == ENOENT }
    }

    /// Writes all of `bytes` to `descriptor`, however many calls it takes; false on a write error
    /// (`errno` says which).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let step = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            guard step > 0 else { return false }
            written += step
        }
        return true
    }

    /// Refuses, before any work is done, an output path that names a directory (through symbolic
    /// links too), with the error opening it would give at the end.
    public static func refuseDirectory(_ path: String) throws {
        guard path != InputPath.standardStream, processDescriptor(path) == nil else { return }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { throw isDirectory(path) }
    }

    private static func isDirectory(_ path: String) -> EarshotError {
        EarshotError(.writeFailed, "\(path): is a directory; expected a file name to write to")
    }

    /// The descriptor a path names when it is one of this process's own: `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`, `/proc/self/fd/N`.
    static func processDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// Where a chain of symbolic links ends: the path itself when it is no link; the last link's
    /// target when the chain dangles (the file to create). Relative targets are taken from the
    /// link's directory. Stops after 40 links, as the kernel does, leaving the error to `stat`.
    static func finalTarget(of path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length > 0 else { return current }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target
                : ((current as NSString).deletingLastPathComponent as NSString)
                    .appendingPathComponent(target)
        }
        return current
    }

    /// Creates a hidden temporary file beside `path`, registered with ``TemporaryFiles`` until it is
    /// moved into place or removed; `naming` is the path errors mention.
    static func makeTemporary(beside path: String, naming: String) throws -> (Int32, String) {
        let base = (path as NSString).lastPathComponent
        return try makeTemporary(template: folder(of: path) + "/.\(base).partial-XXXXXX", naming: naming)
    }

    /// The folder of `path` as the user wrote it (NSString would tidy `//` away, and errors quote it):
    /// `.` for a bare name, `/` for a file at the root.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates a unique file from a `mkstemp` template, registered with ``TemporaryFiles`` until it
    /// is moved into place or removed; `naming` is the path errors mention.
    static func makeTemporary(template: String, naming: String) throws -> (Int32, String) {
        guard let (descriptor, path) = TemporaryFiles.create(template: template) else {
            let reason = systemError()
            let directory = folder(of: template)
            var info = stat()
            if stat(directory, &info) != 0 {
                throw EarshotError(.writeFailed, "\(naming): the folder \(directory) does not exist; create it first")
            }
            if info.st_mode & S_IFMT != S_IFDIR {
                throw EarshotError(.writeFailed, "\(naming): \(directory) is not a folder")
            }
            throw EarshotError(.writeFailed, "\(naming): cannot create a file in \(directory) (\(reason))")
        }
        return (descriptor, path)
    }

    /// The C library's description of `errno`.
    public static func systemError() -> String { String(cString: strerror(errno)) }
}
