import Foundation

/// The temporary files this process has made and not yet moved into place or removed: the
/// ``AtomicFile``s being written and the spool of standard input.
///
/// A command interrupted by SIGINT or SIGTERM never reaches the code that would remove them, so the
/// command line's signal handler calls ``removeAll()`` before it exits: an interrupted command leaves
/// nothing behind, neither a half-written output nor a hidden `.NAME.partial-XXXXXX`.
public enum TemporaryFiles {
    // Guarded by `lock`.
    nonisolated(unsafe) private static var paths: Set<String> = []
    private static let lock = NSLock()

    static func register(_ path: String) { _ = lock.withLock { paths.insert(path) } }

    static func unregister(_ path: String) { _ = lock.withLock { paths.remove(path) } }

    /// Removes every registered file; the caller is about to exit.
    public static func removeAll() {
        lock.withLock {
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}
