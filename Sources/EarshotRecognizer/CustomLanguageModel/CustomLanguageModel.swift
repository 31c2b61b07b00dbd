public import EarshotCore
import EarshotCrypto
public import Foundation

/// A custom language model prepared from ``CustomLanguageModelData`` (what `earshot lm build` writes,
/// the counterpart of Apple's `prepareCustomLanguageModel`): a directory holding
///
/// - `language-model.arpa`: a trigram model of the expanded phrases with interpolated modified
///   Kneser–Ney smoothing (``KneserNeyModel``), which PocketSphinx interpolates with its general model;
/// - `pronunciations.dict`: dictionary entries for the custom pronunciations (X-SAMPA mapped to the CMU
///   phones) in PocketSphinx's format;
/// - `data.json`: the training data as built, for recognizers that bias rather than interpolate;
/// - `manifest.json`: the format, identifier, version, locale, the source's SHA-256, each file's
///   SHA-256 and what was built. A directory without it, or from another format version, is refused
///   with an error saying to build it again.
///
/// Opening a directory reads and checks every file in Swift — regular files only, sizes bounded, the
/// ARPA model by ``ARPAFile``, the pronunciations by ``CustomPronunciationEntries``, the data as
/// `lm build` checks it, then each file's SHA-256 against the manifest's — and keeps what it checked:
/// the recognizers are given those bytes and entries, never the files again. A model damaged on disk is
/// refused when it is opened (`.invalidInput`, naming the file and line) rather than crashing a C
/// library at the first request.
public struct CustomLanguageModel: Sendable, Hashable {
    public static let format = "earshot-custom-language-model"
    /// 2: the manifest records each file's SHA-256.
    public static let formatVersion = 2

    /// What the directory holds and where it came from.
    public struct Manifest: Sendable, Hashable, Codable {
        public var format: String
        public var formatVersion: Int
        public var identifier: String
        public var version: String
        public var locale: String
        /// SHA-256 of the data file (or of the data's JSON, when built from the library).
        public var sourceSHA256: String
        /// SHA-256 of each file of the directory but the manifest, by file name.
        public var fileSHA256: [String: String]
        /// The n-gram order and how many n-grams of each order the ARPA file has.
        public var order: Int
        public var ngrams: [Int]
        /// Expanded phrases, distinct words, and words given custom pronunciations.
        public var phrases: Int
        public var words: Int
        public var customPronunciations: Int
        /// Words pronounced by the grapheme-to-phoneme fallback.
        public var guessedPronunciations: [String]?

        enum CodingKeys: String, CodingKey {
            case format, identifier, version, locale, order, ngrams, phrases, words
            case formatVersion = "format_version"
            case sourceSHA256 = "source_sha256"
            case fileSHA256 = "file_sha256"
            case customPronunciations = "custom_pronunciations"
            case guessedPronunciations = "guessed_pronunciations"
        }
    }

    /// The manifest's format and version, read before the rest so that another version is told to
    /// build again rather than that its manifest is malformed.
    private struct ManifestHeader: Decodable {
        var format: String
        var formatVersion: Int
        enum CodingKeys: String, CodingKey {
            case format
            case formatVersion = "format_version"
        }
    }

    public let directory: String
    public let manifest: Manifest
    /// The ARPA model as checked: PocketSphinx is given these bytes.
    let arpa: ARPAFile
    /// The custom pronunciations as checked.
    private let entries: [(word: String, phones: String)]
    private let trainingData: CustomLanguageModelData

    public var arpaPath: String { directory + "/" + Self.arpaName }
    public var dictionaryPath: String { directory + "/" + Self.dictionaryName }
    public var dataPath: String { directory + "/" + Self.dataName }
    static let manifestName = "manifest.json"
    static let arpaName = "language-model.arpa"
    static let dictionaryName = "pronunciations.dict"
    static let dataName = "data.json"
    static let maxManifestBytes = 1 << 20
    static let maxDataBytes = 16 << 20

    /// Opens a built directory, refusing one that is not a custom language model, is from another
    /// format version, or has a file that is not what was built: its content is checked first, so the
    /// error says what is wrong and where, then its SHA-256 against the manifest's.
    public init(directory: String) throws {
        let path = directory + "/" + Self.manifestName
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw EarshotError(
                .invalidInput,
                "\(directory): not a custom language model (no \(Self.manifestName)); build one with earshot lm build")
        }
        let bytes = try RegularFile.read(path, limit: Self.maxManifestBytes)
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(ManifestHeader.self, from: bytes), header.format == Self.format else {
            throw EarshotError(.invalidInput, "\(path): not an Earshot custom language model manifest")
        }
        guard header.formatVersion == Self.formatVersion else {
            throw EarshotError(
                .invalidInput,
                "\(directory): built in format version \(header.formatVersion), this earshot reads \(Self.formatVersion); build it again with earshot lm build"
            )
        }
        let manifest: Manifest
        do { manifest = try decoder.decode(Manifest.self, from: bytes) } catch {
            throw EarshotError(
                .invalidInput, "\(path): not a format version \(Self.formatVersion) manifest; build it again")
        }
        func read(_ name: String, limit: Int) throws -> (path: String, bytes: Data) {
            let file = directory + "/" + name
            var status = stat()
            guard lstat(file, &status) == 0 else {
                throw EarshotError(.invalidInput, "\(file): missing from the custom language model; build it again")
            }
            return (file, try RegularFile.read(file, limit: limit))
        }
        let arpaFile = try read(Self.arpaName, limit: ARPAFile.maxBytes)
        let dictionaryFile = try read(Self.dictionaryName, limit: CustomPronunciationEntries.maxBytes)
        let dataFile = try read(Self.dataName, limit: Self.maxDataBytes)
        arpa = try ARPAFile(bytes: arpaFile.bytes, path: arpaFile.path)
        entries = try CustomPronunciationEntries.parse(dictionaryFile.bytes, path: dictionaryFile.path)
        trainingData = try CustomLanguageModelData.decode(dataFile.bytes, path: dataFile.path)
        for (name, file) in [
            (Self.arpaName, arpaFile), (Self.dictionaryName, dictionaryFile), (Self.dataName, dataFile),
        ] {
            let hash = Self.sha256(file.bytes)
            guard hash == manifest.fileSHA256[name] else {
                throw EarshotError(
                    .invalidInput,
                    "\(file.path): its SHA-256 is \(hash), \(path) records \(CustomLanguageModelData.quoted(manifest.fileSHA256[name] ?? "none")); the file changed after it was built: build it again"
                )
            }
        }
        self.directory = directory
        self.manifest = manifest
    }

    /// Two models are equal when they come from the same directory with the same manifest, which holds
    /// every file's hash.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.directory == rhs.directory && lhs.manifest == rhs.manifest
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(directory)
        hasher.combine(manifest)
    }

    static func sha256(_ bytes: Data) -> String {
        SHA256.hash(bytes).hexadecimal
    }

    /// The custom pronunciations as PocketSphinx dictionary entries: the word (a second pronunciation
    /// as `word(2)`) and its CMU phones, as checked when the directory was opened.
    public func pronunciations() throws -> [(word: String, phones: String)] { entries }

    /// The training data the directory was built from, as checked when it was opened.
    public func data() throws -> CustomLanguageModelData { trainingData }

    /// A prompt that primes Whisper with the model's words and the shape of its sentences
    /// (``CustomLanguageModelData/biasingPrompt(maxCharacters:)``).
    public func biasingPrompt(maxCharacters: Int = 400) throws -> String {
        try data().biasingPrompt(maxCharacters: maxCharacters)
    }

    /// The words of the model as its data spells them, once each (compared without case): the custom
    /// pronunciations' words first, then those of the phrases, templates expanded, in order, at most
    /// `limit`. Whisper biases its decoding toward them.
    public func vocabulary(limit: Int = 10_000) throws -> [String] {
        let data = try data()
        var seen: Set<String> = []
        var words: [String] = []
        let phrases = data.expandedPhrases().lazy.flatMap { $0.phrase.split(whereSeparator: \.isWhitespace) }
        for candidate in data.pronunciations.lazy.map({ Substring($0.grapheme) }) + phrases {
            let word = candidate.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
            guard !word.isEmpty, seen.insert(word.lowercased()).inserted else { continue }
            words.append(word)
            if words.count == limit { break }
        }
        return words
    }
}
