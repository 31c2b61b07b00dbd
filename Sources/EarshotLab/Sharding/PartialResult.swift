import EarshotCore
import EarshotCrypto
public import Foundation

/// What one shard of `earshot eval` or `earshot sweep` wrote (`--shard I/N`), to be merged with the
/// other shards' (`--merge`) into exactly what one run prints.
///
/// A JSON document of its own kind (`earshot.eval.partial`, `earshot.sweep.partial`), versioned, that
/// says what produced it: the command, the earshot version, the corpus folder and the SHA-256 of its
/// manifest, the shard, the parameters the report prints, and every other option that changes a
/// figure. Parts merge only when all of that agrees and the shards 1…N are each given once
/// (``PartialSet``).
public struct PartialResult<Content: Codable & Sendable>: Codable, Sendable {
    public var kind: String
    public var schemaVersion: Int
    public var earshotVersion: String
    public var command: String
    public var shard: Shard
    public var corpus: String
    public var corpusSHA256: String
    /// The report's `parameters` object, as an unsharded run prints it.
    public var parameters: [String: ParameterValue]
    /// The other options that change a figure (detectors, grid, grouping, tolerance, …).
    public var options: [String: ParameterValue]
    public var result: Content

    /// The layout of partial results; a reader refuses any other.
    public static var currentSchemaVersion: Int { 1 }

    public static func kind(of command: String) -> String { "earshot.\(command).partial" }

    public init(
        command: String, earshotVersion: String, shard: Shard, corpus: String, corpusSHA256: String,
        parameters: [String: ParameterValue], options: [String: ParameterValue], result: Content
    ) {
        kind = Self.kind(of: command)
        schemaVersion = Self.currentSchemaVersion
        self.earshotVersion = earshotVersion
        self.command = command
        self.shard = shard
        self.corpus = corpus
        self.corpusSHA256 = corpusSHA256
        self.parameters = parameters
        self.options = options
        self.result = result
    }

    enum CodingKeys: String, CodingKey {
        case kind, command, shard, corpus, parameters, options, result
        case schemaVersion = "schema_version", earshotVersion = "earshot_version"
        case corpusSHA256 = "corpus_sha256"
    }

    /// The document: sorted keys, so two runs of the same shard write the same bytes.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Reads a part written by `command`, naming `path` and the field when it is not one.
    public static func read(_ data: Data, path: String, command: String) throws -> PartialResult {
        let expected = kind(of: command)
        guard let envelope = try? JSONDecoder().decode(PartialEnvelope.self, from: data) else {
            throw EarshotError(.invalidInput, "\(path): not a JSON object; expected a partial result (\(expected))")
        }
        guard envelope.kind == expected else {
            throw EarshotError(
                .invalidInput,
                "\(path): field 'kind' is \(envelope.kind.map { "'\($0)'" } ?? "missing"); expected '\(expected)' "
                    + "(written by earshot \(command) --shard)")
        }
        guard envelope.schemaVersion == currentSchemaVersion else {
            throw EarshotError(
                .invalidInput,
                "\(path): field 'schema_version' is \(envelope.schemaVersion.map(String.init) ?? "missing"); "
                    + "expected \(currentSchemaVersion)")
        }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return try decoder.decode(PartialResult.self, from: data)
        } catch let error as DecodingError {
            throw EarshotError(.invalidInput, "\(path): \(Self.describe(error))")
        }
    }

    /// Where a decoding error is, as a field path (`result.scorers[0].files`), and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { text, key in
                key.intValue.map { "\(text)[\($0)]" } ?? (text.isEmpty ? key.stringValue : "\(text).\(key.stringValue)")
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "field '\(path(context.codingPath + [key]))' is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "field '\(path(context.codingPath))': expected \(type)"
        case .dataCorrupted(let context):
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "not a partial result"
        }
    }

    /// The fields that must agree between parts of one run, each as the text it compares by.
    var provenance: [(field: String, value: String)] {
        [
            ("earshot_version", earshotVersion), ("command", command), ("corpus", corpus),
            ("corpus_sha256", corpusSHA256), ("shard", "N = \(shard.count)"),
        ]
            + parameters.sorted { $0.key < $1.key }.map { ("parameters.\($0.key)", Self.describe($0.value)) }
            + options.sorted { $0.key < $1.key }.map { ("options.\($0.key)", Self.describe($0.value)) }
    }

    /// A value as the comparison sees it: numbers to every digit, so 0.1 and 0.10000001 differ.
    private static func describe(_ value: ParameterValue) -> String {
        if case .number(let number) = value { return "\(number)" }
        return value.description
    }
}

/// The two fields read before the rest, so a file of another kind or version is named as such.
private struct PartialEnvelope: Decodable {
    var kind: String?
    var schemaVersion: Int?

    enum CodingKeys: String, CodingKey {
        case kind
        case schemaVersion = "schema_version"
    }
}

/// Parts of one run, checked to fit together: the same provenance, and each shard 1…N exactly once.
public enum PartialSet {
    /// Checks `parts` (each with the path it was read from) and returns them in shard order. A part
    /// from another run is `.invalidInput` (exit 2), naming its file and the first field that differs;
    /// a shard missing or given twice is `.invalidParameter` (exit 1: the command names the wrong parts).
    public static func check<Content>(_ parts: [(path: String, part: PartialResult<Content>)]) throws
        -> [PartialResult<Content>]
    {
        guard let (firstPath, first) = parts.first else {
            throw EarshotError(.invalidParameter, "--merge: expected the partial results to merge")
        }
        let reference = first.provenance
        for (path, part) in parts.dropFirst() {
            let fields = part.provenance
            let keys = Set(reference.map(\.field)).union(fields.map(\.field))
            let referenceValues = Dictionary(reference, uniquingKeysWith: { a, _ in a })
            let values = Dictionary(fields, uniquingKeysWith: { a, _ in a })
            // In the provenance's own order (version, command, corpus… then parameters, options).
            let ordered = (reference.map(\.field) + fields.map(\.field)).filter(keys.contains)
            for field in ordered where referenceValues[field] != values[field] {
                throw EarshotError(
                    .invalidInput,
                    "\(path): field '\(field)' is \(values[field] ?? "absent") but \(firstPath) has "
                        + "\(referenceValues[field] ?? "none"); these parts come from different runs")
            }
        }
        var byShard: [Int: String] = [:]
        for (path, part) in parts {
            if let other = byShard[part.shard.index] {
                throw EarshotError(
                    .invalidParameter, "\(path): shard \(part.shard) is given twice (also \(other))")
            }
            byShard[part.shard.index] = path
        }
        let missing = (1...first.shard.count).filter { byShard[$0] == nil }
        guard missing.isEmpty else {
            let names = missing.prefix(10).map { "\($0)/\(first.shard.count)" }.joined(separator: ", ")
            throw EarshotError(
                .invalidParameter,
                "--merge: shard\(missing.count == 1 ? "" : "s") \(names)\(missing.count > 10 ? ", …" : "") "
                    + "missing; expected all \(first.shard.count) parts of the run")
        }
        return parts.map(\.part).sorted { $0.shard.index < $1.shard.index }
    }

    /// The SHA-256 of a corpus's manifest, in hex: what tells parts of one corpus from another's.
    public static func fingerprint(of corpus: Corpus) throws -> String {
        guard let data = FileManager.default.contents(atPath: corpus.manifestPath) else {
            throw EarshotError(.invalidInput, "\(corpus.manifestPath): cannot read the corpus manifest")
        }
        return SHA256.hash(data).hexadecimal
    }
}
