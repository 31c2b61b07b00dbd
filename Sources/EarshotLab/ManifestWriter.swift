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

    /// One manifest line for `entry`, without the newline.
    public static func line(for entry: CorpusEntry) -> String {
        var out = "{\"schema_version\":\(schemaVersion),\"path\":\(JSONText.quoted(entry.path))"
        out += ",\"duration_s\":\(seconds(entry.duration))"
        out += ",\"speech\":[" + entry.speech.map(segment).joined(separator: ",") + "]"
        if let transcript = entry.transcript { out += ",\"transcript\":\(JSONText.quoted(transcript))" }
        if let words = entry.words {
            out += ",\"words\":[" + words.map(word).joined(separator: ",") + "]"
        }
        let tags = entry.tags.keys.sorted().map { "\(JSONText.quoted($0)):\(JSONText.quoted(entry.tags[$0]!))" }
        out += ",\"tags\":{" + tags.joined(separator: ",") + "}}"
        return out
    }

    /// The whole manifest: one line per entry, each ending in a newline.
    public static func text(for entries: [CorpusEntry]) -> String {
        entries.map { line(for: $0) + "\n" }.joined()
    }

    /// Writes the manifest to `path` atomically (it appears only when complete), or to standard
    /// output when `path` is `-`.
    public static func write(_ entries: [CorpusEntry], to path: String) throws {
        let bytes = Array(text(for: entries).utf8)
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

    private static func segment(_ segment: LabeledSegment) -> String {
        "{\"start_s\":\(seconds(segment.start)),\"end_s\":\(seconds(segment.end))}"
    }

    private static func word(_ word: TimedWord) -> String {
        "{\"word\":\(JSONText.quoted(word.word)),\"start_s\":\(seconds(word.start)),\"end_s\":\(seconds(word.end))}"
    }
}
