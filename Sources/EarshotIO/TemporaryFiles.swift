import Foundation
import Synchronization

/// The temporary files this process has made and not yet moved into place or removed: the
/// ``OutputFile``s being written and the spool of standard input.
///
/// A command interrupted by SIGINT or SIGTERM never reaches the code that would remove them, so the
/// command line's signal handler calls ``removeAll()`` before it exits: an interrupted command leaves
/// nothing behind, neither a half-written output nor a hidden `.NAME.partial-XXXXXX`.
public enum TemporaryFiles {
    private static let registry = Mutex<Set<String>>([])

    /// Creates a unique file from a `mkstemp` template and registers it in one step, so a signal that
    /// arrives in between cannot find the file on disk but not in the registry.
    static func create(template: String) -> (descriptor: Int32, path: String)? {
        registry.withLock { paths in
            var bytes = Array(template.utf8CString)
            let descriptor = bytes.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else { return nil }
            let path = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            paths.insert(path)
            return (descriptor, path)
        }
    }

    /// Runs `move` (which takes a registered file out of the way, e.g. renames it into place) and
    /// unregisters `path` in one step: the signal handler sees the file either before or after.
    static func moveOut<T>(_ path: String, _ move: () throws -> T) rethrows -> T {
        try registry.withLock { paths in
            let result = try move()
            paths.remove(path)
            return result
        }
    }

    static func unregister(_ path: String) { _ = registry.withLock { $0.remove(path) } }

    /// Removes every registered file; the caller is about to exit.
    public static func removeAll() {
        registry.withLock { paths in
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }
}
