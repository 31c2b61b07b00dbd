import EarshotCore
import Foundation

/// Reads `manifest.jsonl` and checks each line, so that a bad label is reported where it is written
/// rather than as a wrong metric later.
///
/// Every error is an ``EarshotError`` with code `.invalidInput` whose message names the file, the line
/// (1-based) and the field, e.g. `corpus/manifest.jsonl, line 3, field speech[1].end_s: 7.5 is past
/// duration_s 7.25`. Checked per line: well-formed JSON, `schema_version` 1, every required field
/// present with its type, a positive duration, speech segments and words that are non-negative, of
/// positive length, sorted, non-overlapping and within `duration_s`, and a relative path that stays
/// inside the corpus folder. Across lines: no path twice, and at least one entry.
public enum ManifestReader {
    /// Times are stored to the millisecond; half of that absorbs rounding when comparing with the duration.
    static let tolerance = 0.0005

    /// Parses and checks manifest `text`; `name` is how errors refer to the file.
    public static func entries(from text: String, name: String) throws -> [CorpusEntry] {
        try numberedEntries(from: text, name: name).map(\.entry)
    }

    /// As ``entries(from:name:)``, with the line each entry came from.
    static func numberedEntries(from text: String, name: String) throws -> [(line: Int, entry: CorpusEntry)] {
        var entries: [(line: Int, entry: CorpusEntry)] = []
        var firstLine: [String: Int] = [:]
        var lineNumber = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            if line.allSatisfy(\.isWhitespace) { continue }
            let entry = try entry(from: String(line), name: name, line: lineNumber)
            if let previous = firstLine[entry.path] {
                throw failure(name, lineNumber, "path", "\(entry.path) is listed twice (first on line \(previous))")
            }
            firstLine[entry.path] = lineNumber
            entries.append((lineNumber, entry))
        }
        guard !entries.isEmpty else {
            throw EarshotError(.invalidInput, "\(name): the corpus is empty; expected one JSON line per audio file")
        }
        return entries
    }

    /// Parses and checks one line.
    static func entry(from line: String, name: String, line number: Int) throws -> CorpusEntry {
        let data = Data(line.utf8)
        let decoder = JSONDecoder()
        let entry: CorpusEntry
        do {
            let header = try decoder.decode(LineHeader.self, from: data)
            guard header.schemaVersion == ManifestWriter.schemaVersion else {
                throw failure(
                    name, number, "schema_version",
                    "\(header.schemaVersion) is not supported; expected \(ManifestWriter.schemaVersion)")
            }
            entry = try decoder.decode(CorpusEntry.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, name: name, line: number)
        }
        try check(entry, name: name, line: number)
        return entry
    }

    /// The checks JSON decoding cannot make.
    static func check(_ entry: CorpusEntry, name: String, line: Int) throws {
        let path = entry.path
        if path.isEmpty || path.hasPrefix("/") || path.split(separator: "/").contains("..") {
            throw failure(name, line, "path", "\"\(path)\" must be a relative path inside the corpus folder")
        }
        guard entry.duration.isFinite, entry.duration > 0 else {
            throw failure(name, line, "duration_s", "\(entry.duration) must be a positive number of seconds")
        }
        try checkSpans(
            entry.speech.map { ($0.start, $0.end) }, field: "speech", duration: entry.duration, name: name, line: line)
        if let words = entry.words {
            try checkSpans(
                words.map { ($0.start, $0.end) }, field: "words", duration: entry.duration, name: name, line: line)
            if let index = words.firstIndex(where: { $0.word.isEmpty }) {
                throw failure(name, line, "words[\(index)].word", "is empty")
            }
        }
    }

    private static func checkSpans(
        _ spans: [(start: Double, end: Double)], field: String, duration: Double, name: String, line: Int
    ) throws {
        var previousEnd = -Double.infinity
        for (index, span) in spans.enumerated() {
            let here = "\(field)[\(index)]"
            guard span.start.isFinite, span.start >= 0 else {
                throw failure(name, line, here + ".start_s", "\(span.start) is negative")
            }
            guard span.end.isFinite, span.end > span.start else {
                throw failure(name, line, here + ".end_s", "\(span.end) is not after start_s \(span.start)")
            }
            guard span.end <= duration + tolerance else {
                throw failure(name, line, here + ".end_s", "\(span.end) is past duration_s \(duration)")
            }
            guard span.start >= previousEnd - tolerance else {
                let order = span.start < spans[index - 1].start ? "unsorted" : "overlapping"
                throw failure(
                    name, line, here + ".start_s",
                    "\(span.start) is before the end of \(field)[\(index - 1)] (\(previousEnd)): segments are \(order)"
                )
            }
            previousEnd = span.end
        }
    }

    static func failure(_ name: String, _ line: Int, _ field: String, _ problem: String) -> EarshotError {
        EarshotError(.invalidInput, "\(name), line \(line), field \(field): \(problem)")
    }

    /// Turns a decoding error into a message naming the line and the field path (`speech[1].end_s`).
    private static func describe(_ error: DecodingError, name: String, line: Int) -> EarshotError {
        switch error {
        case .keyNotFound(let key, let context):
            return failure(name, line, fieldPath(context.codingPath + [key]), "missing")
        case .typeMismatch(let type, let context):
            return failure(name, line, fieldPath(context.codingPath), "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return failure(name, line, fieldPath(context.codingPath), "is null; expected \(typeName(type))")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return EarshotError(.invalidInput, "\(name), line \(line): malformed JSON; expected one object per line")
        case .dataCorrupted(let context):
            return failure(name, line, fieldPath(context.codingPath), context.debugDescription)
        @unknown default:
            return EarshotError(.invalidInput, "\(name), line \(line): \(error)")
        }
    }

    private static func fieldPath(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += (out.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return out.isEmpty ? "(line)" : out
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is [String: String].Type: "an object of strings"
        default: "\(type)"
        }
    }

    private struct LineHeader: Decodable {
        var schemaVersion: Int
        enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version" }
    }
}
