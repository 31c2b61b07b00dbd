import Foundation

/// Where Earshot looks for model files it did not get a path to: under each search root, or any folder
/// above it. `make models` puts them in the repository's `.earshot/models/`, so a binary built there
/// (`.build/release/earshot`) or run from there finds them by walking up.
public enum ModelSearch {
    /// The current folder and the running binary's folder.
    public static var defaultRoots: [String] {
        var roots = [FileManager.default.currentDirectoryPath]
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            roots.append((executable as NSString).deletingLastPathComponent)
        } else if let first = CommandLine.arguments.first, first.contains("/") {
            roots.append(((first as NSString).standardizingPath as NSString).deletingLastPathComponent)
        }
        return roots
    }

    /// The first `root/…/relativePath` that is readable, from each root upwards; nil if none.
    public static func find(_ relativePath: String, under roots: [String]) -> String? {
        for root in roots where !root.isEmpty {
            var folder = root
            while true {
                let candidate = (folder.hasSuffix("/") ? folder : folder + "/") + relativePath
                if access(candidate, R_OK) == 0 { return candidate }
                guard let parent = parentFolder(of: folder) else { break }
                folder = parent
            }
        }
        return nil
    }

    /// `/a/b` → `/a`, `/a` → `/`, `/` → nil; relative paths stop at their first component.
    private static func parentFolder(of folder: String) -> String? {
        var trimmed = Substring(folder)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return nil }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
