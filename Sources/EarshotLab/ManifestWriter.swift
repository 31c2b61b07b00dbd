import EarshotCore
import EarshotIO
import Foundation

/// Writes `manifest.jsonl` deterministically: one line per entry, keys in a fixed order
/// (`schema_version`, `path`, `duration_s`, `speech`, `transcript`, `words`, `tags`), tags sorted by
/// key, and every time rounded to the millisecond and printed as a short decimal (`2.125`, `0.5`, `7`),
/// never as binary floating-point noise (`2.1250000000000004`). Rebuilding a corpus from the same
/// seed therefore gives a byte-identical manifest, which is what lets a recipe be checked by `cmp`.
public enum ManifestWriter {
    /// The version of the line layout; readers reject lines of a version they do not know.
    public static let schemaVersion = 1

    /// One manifest line for `entry`, without the newline; a time that is not a finite number is
    /// refused naming the entry, never written as a broken line.
    public static func line(for entry: CorpusEntry) throws -> String {
        do { return try OrderedJSONEncoder().string(Line(entry: entry)) } catch {
            throw EarshotError(.invalidInput, "\(entry.path): a manifest holds finite times in seconds (\(error))")
        }
    }

    /// The whole manifest: one line per entry, each ending in a newline.
    public static func text(for entries: [CorpusEntry]) throws -> String {
        try entries.map { try line(for: $0) + "\n" }.joined()
    }

    /// Writes the manifest to `path` atomically (it appears only when complete), or to standard
    /// output when `path` is `-`.
    public static func write(_ entries: [CorpusEntry], to path: String) throws {
        let bytes = Array(try text(for: entries).utf8)
        if path == InputPath.standardStream {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        let file = try OutputFile(path: path)
        let handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw EarshotError(.writeFailed, "\(path): write failed (\(error.localizedDescription))")
        }
        try file.commit()
    }

    /// Seconds rounded to the millisecond, printed with no trailing zeros: 2.125, 0.5, 7, -0.01.
    public static func seconds(_ value: Double) -> String {
        let milliseconds = Int64((value * 1000).rounded())
        let magnitude = milliseconds.magnitude
        let sign = milliseconds < 0 ? "-" : ""
        let whole = magnitude / 1000
        let fraction = magnitude % 1000
        if fraction == 0 { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }

    /// Rounds `value` to the millisecond, as the manifest stores it.
    public static func roundedSeconds(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// A manifest line: the entry's fields in the layout's order, times rounded.
    private struct Line: Encodable {
        let entry: CorpusEntry

        enum Key: String, CodingKey {
            case schemaVersion = "schema_version", path, duration = "duration_s", speech, transcript, words, tags
            case word, start = "start_s", end = "end_s"
        }

        func encode(to encoder: any Encoder) throws {
            var line = encoder.container(keyedBy: Key.self)
            try line.encode(ManifestWriter.schemaVersion, forKey: .schemaVersion)
            try line.encode(entry.path, forKey: .path)
            try line.encode(roundedSeconds(entry.duration), forKey: .duration)
            var speech = line.nestedUnkeyedContainer(forKey: .speech)
            for segment in entry.speech {
                var span = speech.nestedContainer(keyedBy: Key.self)
                try span.encode(roundedSeconds(segment.start), forKey: .start)
                try span.encode(roundedSeconds(segment.end), forKey: .end)
            }
            try line.encodeIfPresent(entry.transcript, forKey: .transcript)
            if let words = entry.words {
                var list = line.nestedUnkeyedContainer(forKey: .words)
                for word in words {
                    var item = list.nestedContainer(keyedBy: Key.self)
                    try item.encode(word.word, forKey: .word)
                    try item.encode(roundedSeconds(word.start), forKey: .start)
                    try item.encode(roundedSeconds(word.end), forKey: .end)
                }
            }
            var tags = line.nestedContainer(keyedBy: NamedCodingKey.self, forKey: .tags)
            for key in entry.tags.keys.sorted() { try tags.encode(entry.tags[key]!, forKey: NamedCodingKey(key)) }
        }
    }
}
