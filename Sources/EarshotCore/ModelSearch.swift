import Foundation

/// Where Earshot looks for a model it was not given a path to: the model folders below, in this order,
/// each holding one folder per model (`silero-vad/`, `whisper-tiny.en/`, as ``ModelCatalogue`` names them).
///
/// 1. `$XDG_DATA_HOME/earshot/models` (`~/.local/share/earshot/models` when unset), where
///    `earshot models fetch` puts them for one user;
/// 2. `share/earshot/models` beside the running binary's `bin/` folder, where `make install` puts them
///    (so `/usr/local/bin/earshot` looks in `/usr/local/share/earshot/models`, and a copy staged with
///    `DESTDIR` looks in its own tree);
/// 3. the repository's `.earshot/models`, in or above the current folder or the binary's, where
///    `make models` puts them (so `.build/release/earshot` finds them from anywhere in the checkout).
///
/// A command's own flag (`--vad-model`, `--whisper-model`), or the config file's key for it, then its
/// environment variable come before all three: ``locate(given:variable:environment:relativePath:in:)``,
/// the one rule the model types' `locate` functions and the models report apply.
public enum ModelSearch {
    /// Which rule of the search a model folder comes from.
    public enum Origin: String, Sendable, Codable {
        case userData = "user data"
        case installation
        case repository
    }

    /// One model folder and the rule it comes from.
    public struct Place: Sendable, Equatable, Codable {
        public let folder: String
        public let origin: Origin

        public init(_ folder: String, _ origin: Origin) {
            self.folder = folder
            self.origin = origin
        }
    }

    /// The repository's model folder, relative to its root.
    public static let repositoryFolder = ".earshot/models"

    /// The model folders in search order for this process (the folders need not exist).
    public static func places() -> [Place] {
        places(
            environment: ProcessInfo.processInfo.environment, executable: runningExecutable,
            workingDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The model folders in search order (the folders need not exist): see the type's description.
    public static func places(environment: [String: String], executable: String?, workingDirectory: String) -> [Place] {
        var places: [Place] = []
        if let data = userDataFolder(environment: environment) { places.append(Place(data, .userData)) }
        let binaryFolder = executable.map { ($0 as NSString).deletingLastPathComponent }
        if let binaryFolder, !binaryFolder.isEmpty {
            let prefix = (binaryFolder as NSString).deletingLastPathComponent
            places.append(Place((prefix.isEmpty ? "/" : prefix) + "/share/earshot/models", .installation))
        }
        places += repositoryPlaces(under: [workingDirectory] + (binaryFolder.map { [$0] } ?? []))
        var seen = Set<String>()
        return places.filter { seen.insert($0.folder).inserted }
    }

    /// `$XDG_DATA_HOME/earshot/models`, or `$HOME/.local/share/earshot/models` when the variable is unset,
    /// empty or relative (as the XDG Base Directory specification says to treat it); nil without either.
    public static func userDataFolder(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/earshot/models" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home == "/" ? "" : home) + "/.local/share/earshot/models"
    }

    /// The first existing `.earshot/models` in or above each of `roots`.
    public static func repositoryPlaces(under roots: [String]) -> [Place] {
        roots.compactMap { root -> Place? in
            guard !root.isEmpty else { return nil }
            var folder = root
            while true {
                let candidate = (folder.hasSuffix("/") ? folder : folder + "/") + repositoryFolder
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate, isDirectory: &isFolder), isFolder.boolValue {
                    return Place(candidate, .repository)
                }
                guard let parent = parentFolder(of: folder) else { return nil }
                folder = parent
            }
        }
    }

    /// How a model's location was decided.
    public enum Source: Sendable, Equatable {
        /// The command's flag, or the config file's key for it.
        case flag
        /// This environment variable.
        case variable(String)
        /// The search, in this place.
        case place(Place)
    }

    /// Where a model is, by the one rule every model follows: the value `given` by the flag (or the config
    /// file), then `variable` in `environment`, then the first of `places` holding `relativePath`; nil
    /// when none has it. An empty value counts as not given. A value given is returned as it is, even if
    /// nothing is there, so a typo fails when loading, naming it, and never falls back to another model;
    /// what it means (a folder, a file, a catalogue name, `none`) is the caller's to say.
    public static func locate(
        given: String?, variable: String, environment: [String: String], relativePath: String, in places: [Place]
    ) -> (value: String, source: Source)? {
        if let given, !given.isEmpty { return (given, .flag) }
        if let value = environment[variable], !value.isEmpty { return (value, .variable(variable)) }
        return find(relativePath, in: places).map { ($0.path, .place($0.place)) }
    }

    /// The first readable `place/relativePath` (e.g. `silero-vad/silero_vad.onnx`), with its place; nil if none.
    public static func find(_ relativePath: String, in places: [Place]) -> (path: String, place: Place)? {
        for place in places {
            let candidate = place.folder + "/" + relativePath
            if access(candidate, R_OK) == 0 { return (candidate, place) }
        }
        return nil
    }

    /// The running binary, from `/proc/self/exe` (so a symlink on `PATH` leads to the real install).
    public static var runningExecutable: String? {
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return executable
        }
        guard let first = CommandLine.arguments.first, first.contains("/") else { return nil }
        return (first as NSString).standardizingPath
    }

    /// `/a/b` → `/a`, `/a` → `/`, `/` → nil; relative paths stop at their first component.
    private static func parentFolder(of folder: String) -> String? {
        var trimmed = Substring(folder)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return nil }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
