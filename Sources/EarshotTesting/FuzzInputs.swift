public import Foundation

/// The saved inputs of a fuzz target (see RELIABILITY.md): its seeds, `Fuzz/corpus/<target>/`, and
/// every crash, timeout or out-of-memory input found and minimized, `Fuzz/regressions/<target>/`.
/// The regression tests replay them through the entry the fuzz target runs.
public enum FuzzInputs {
    /// The repository's `Fuzz/` folder.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// Paths relative to `Fuzz/` (`corpus/wav/sine-16k.wav`), seeds first, each list sorted.
    public static func files(_ target: String) -> [String] {
        ["corpus", "regressions"].flatMap { kind in
            let folder = "\(kind)/\(target)"
            let names =
                (try? FileManager.default.contentsOfDirectory(
                    atPath: directory.appendingPathComponent(folder).path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
        }
    }

    /// The bytes of `file`, a path from ``files(_:)``.
    public static func bytes(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(file)))
    }
}
