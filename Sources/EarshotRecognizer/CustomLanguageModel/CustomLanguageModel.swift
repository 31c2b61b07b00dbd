import Crypto
public import EarshotCore
public import Foundation

/// A custom language model prepared from ``CustomLanguageModelData`` (what `earshot lm build` writes,
/// the counterpart of Apple's `prepareCustomLanguageModel`): a directory holding
///
/// - `language-model.arpa`: a trigram model of the expanded phrases with interpolated modified
///   Kneser–Ney smoothing (``KneserNeyModel``), which PocketSphinx interpolates with its general model;
/// - `pronunciations.dict`: dictionary entries for the custom pronunciations (X-SAMPA mapped to the CMU
///   phones) in PocketSphinx's format;
/// - `data.json`: the training data as built, for recognizers that bias rather than interpolate;
/// - `manifest.json`: the format, identifier, version, locale, the source's SHA-256 and what was built.
///   A directory without it, or from another format version, is refused with an error saying to
///   build it again.
public struct CustomLanguageModel: Sendable, Hashable {
    public static let format = "earshot-custom-language-model"
    public static let formatVersion = 1

    /// What the directory holds and where it came from.
    public struct Manifest: Sendable, Hashable, Codable {
        public var format: String
        public var formatVersion: Int
        public var identifier: String
        public var version: String
        public var locale: String
        /// SHA-256 of the data file (or of the data's JSON, when built from the library).
        public var sourceSHA256: String
        /// The n-gram order and how many n-grams of each order the ARPA file has.
        public var order: Int
        public var ngrams: [Int]
        /// Expanded phrases, distinct words, and words given custom pronunciations.
        public var phrases: Int
        public var words: Int
        public var customPronunciations: Int
        /// Words pronounced by the grapheme-to-phoneme fallback (absent in models built before it).
        public var guessedPronunciations: [String]?

        enum CodingKeys: String, CodingKey {
            case format, identifier, version, locale, order, ngrams, phrases, words
            case formatVersion = "format_version"
            case sourceSHA256 = "source_sha256"
            case customPronunciations = "custom_pronunciations"
            case guessedPronunciations = "guessed_pronunciations"
        }
    }

    public let directory: String
    public let manifest: Manifest

    public var arpaPath: String { directory + "/language-model.arpa" }
    public var dictionaryPath: String { directory + "/pronunciations.dict" }
    public var dataPath: String { directory + "/data.json" }
    static let manifestName = "manifest.json"

    /// Opens a built directory, refusing one that is not a custom language model or is from another
    /// format version.
    public init(directory: String) throws {
        let path = directory + "/" + Self.manifestName
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw EarshotError(
                .invalidInput,
                "\(directory): not a custom language model (no \(Self.manifestName)); build one with earshot lm build")
        }
        guard let manifest = try? JSONDecoder().decode(Manifest.self, from: bytes), manifest.format == Self.format
        else {
            throw EarshotError(.invalidInput, "\(path): not an Earshot custom language model manifest")
        }
        guard manifest.formatVersion == Self.formatVersion else {
            throw EarshotError(
                .invalidInput,
                "\(directory): built in format version \(manifest.formatVersion), this earshot reads \(Self.formatVersion); build it again with earshot lm build"
            )
        }
        self.directory = directory
        self.manifest = manifest
        for file in [arpaPath, dictionaryPath, dataPath] where !FileManager.default.isReadableFile(atPath: file) {
            throw EarshotError(.invalidInput, "\(file): missing from the custom language model; build it again")
        }
    }

    /// The custom pronunciations as PocketSphinx dictionary entries: the word (a second pronunciation
    /// as `word(2)`) and its CMU phones.
    public func pronunciations() throws -> [(word: String, phones: String)] {
        guard let text = try? String(contentsOfFile: dictionaryPath, encoding: .utf8) else {
            throw EarshotError(.invalidInput, "\(dictionaryPath): cannot read the custom pronunciations")
        }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            return fields.count == 2 ? (String(fields[0]), String(fields[1])) : nil
        }
    }

    /// A prompt that primes Whisper with the model's vocabulary, as a list of words: those given
    /// pronunciations, then the words of the exact phrases, then the templates' class members, as the
    /// data spells them, once each, skipping numbers and words of fewer than four letters, up to
    /// `maxCharacters`. A list rather than the phrases themselves: prompted with sentences, Whisper
    /// tends to say them again after the speech (on the chess set's clean half, the phrases as a
    /// prompt raised its word error rate; the word list lowered it — BENCHMARKS.md).
    public func biasingPrompt(maxCharacters: Int = 400) throws -> String {
        let data = try data()
        var candidates = data.pronunciations.map(\.grapheme)
        candidates += data.phrases.flatMap { $0.phrase.split(whereSeparator: \.isWhitespace).map(String.init) }
        candidates += data.templates.flatMap { group in group.classes.keys.sorted().flatMap { group.classes[$0]! } }
        var seen: Set<String> = []
        var words: [String] = []
        for candidate in candidates {
            let word = candidate.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
            guard word.count >= 4, !word.allSatisfy(\.isNumber), seen.insert(word.lowercased()).inserted else {
                continue
            }
            if (words + [word]).joined(separator: ", ").count + 1 > maxCharacters { break }
            words.append(word)
        }
        return words.isEmpty ? "" : words.joined(separator: ", ") + "."
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

    /// The training data the directory was built from.
    public func data() throws -> CustomLanguageModelData { try CustomLanguageModelData.read(path: dataPath) }

    /// Builds `data` into `directory`: checks it, expands the phrases, maps the custom pronunciations,
    /// makes sure every word can be pronounced (from the custom pronunciations, `dictionary` — the
    /// recognizer's pronouncing dictionary — or else `guess`, a grapheme-to-phoneme source giving a
    /// word's CMU phones), estimates the trigram model and writes the files.
    ///
    /// The directory is written beside itself and renamed into place, so a failed build leaves the
    /// previous one intact; an existing directory that is not a custom language model (no manifest) and
    /// not empty is refused rather than replaced.
    public static func build(
        _ data: CustomLanguageModelData, source: Data? = nil, into directory: String,
        dictionary: String = PocketSphinxConfiguration.default.dictionary,
        guess: ((String) throws -> [String])? = nil
    ) throws -> CustomLanguageModel {
        try data.validate()
        let known = try dictionaryWords(dictionary)
        var entries: [String] = []
        var custom: Set<String> = []
        for pronunciation in data.pronunciations {
            let word = CustomLanguageModelData.words(in: pronunciation.grapheme)[0]
            for (index, phonemes) in pronunciation.phonemes.enumerated() {
                let phones = try XSAMPAToCMU.phones(phonemes).joined(separator: " ")
                entries.append((index == 0 ? word : "\(word)(\(index + 1))") + " " + phones)
            }
            custom.insert(word)
        }
        let sentences = data.expandedPhrases().map {
            (words: CustomLanguageModelData.words(in: $0.phrase), count: $0.count)
        }
        let vocabulary = Set(sentences.flatMap(\.words))
        var missing = vocabulary.subtracting(known).subtracting(custom).sorted()
        var guessed: [String] = []
        if let guess {
            for word in missing {
                let phones: [String]
                do { phones = try guess(word) } catch {
                    throw EarshotError(
                        .invalidInput,
                        "no pronunciation for '\(word)': not in \(dictionary), and the grapheme-to-phoneme fallback failed (\(error)); add it to pronunciations (X-SAMPA)"
                    )
                }
                entries.append(word + " " + phones.joined(separator: " "))
                guessed.append(word)
            }
            missing = []
        }
        if !missing.isEmpty {
            let shown = missing.prefix(10).joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
            throw EarshotError(
                .invalidInput,
                "no pronunciation for \(missing.count) word(s): \(shown); \(dictionary) lacks them: add them to pronunciations (X-SAMPA)"
            )
        }
        let model = KneserNeyModel(sentences: sentences, order: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let dataJSON = try data.json()
        let manifest = Manifest(
            format: format, formatVersion: formatVersion, identifier: data.identifier, version: data.version,
            locale: data.locale,
            sourceSHA256: SHA256.hash(data: source ?? dataJSON).map { String(format: "%02x", $0) }.joined(),
            order: model.order,
            ngrams: model.probabilities.map(\.count).enumerated().map { $0.offset == 0 ? $0.element + 1 : $0.element },
            phrases: sentences.count, words: vocabulary.count, customPronunciations: custom.count,
            guessedPronunciations: guessed)
        try replaceDirectory(directory) { staging in
            try Data(model.arpa().utf8).write(to: URL(fileURLWithPath: staging + "/language-model.arpa"))
            try Data(entries.map { $0 + "\n" }.joined().utf8).write(
                to: URL(fileURLWithPath: staging + "/pronunciations.dict"))
            try dataJSON.write(to: URL(fileURLWithPath: staging + "/data.json"))
            try encoder.encode(manifest).write(to: URL(fileURLWithPath: staging + "/" + manifestName))
        }
        return try CustomLanguageModel(directory: directory)
    }

    /// The words of a PocketSphinx dictionary (alternates such as `read(2)` under their word).
    static func dictionaryWords(_ path: String) throws -> Set<String> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw EarshotError(.modelUnavailable, "\(path): cannot read the pronouncing dictionary")
        }
        var words = Set<String>()
        for line in text.split(separator: "\n") {
            guard let first = line.split(separator: " ", maxSplits: 1).first else { continue }
            words.insert(String(first.split(separator: "(").first ?? first))
        }
        return words
    }

    /// The pronunciations `dictionary` (a PocketSphinx dictionary) gives each of `words` (lower case),
    /// alternates in the dictionary's order; words it lacks are absent.
    public static func dictionaryPronunciations(_ dictionary: String, of words: Set<String>) throws
        -> [String: [[String]]]
    {
        guard let text = try? String(contentsOfFile: dictionary, encoding: .utf8) else {
            throw EarshotError(.modelUnavailable, "\(dictionary): cannot read the pronouncing dictionary")
        }
        var found: [String: [[String]]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let first = fields.first else { continue }
            let word = String(first.split(separator: "(").first ?? first)
            if words.contains(word) { found[word, default: []].append(fields.dropFirst().map(String.init)) }
        }
        return found
    }

    /// Writes a new directory beside `directory` with `write`, then swaps it into place.
    private static func replaceDirectory(_ directory: String, write: (String) throws -> Void) throws {
        let files = FileManager.default
        // A symlink given as the output is followed: the model it points to is replaced, the link kept.
        let target = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath()
        let parent = target.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw EarshotError(.writeFailed, "\(directory): the folder \(parent) does not exist")
        }
        let exists = files.fileExists(atPath: target.path, isDirectory: &isDirectory)
        if exists {
            let ours = files.fileExists(atPath: target.path + "/" + manifestName)
            let empty = (try? files.contentsOfDirectory(atPath: target.path))?.isEmpty ?? false
            guard isDirectory.boolValue, ours || empty else {
                throw EarshotError(
                    .writeFailed,
                    "\(directory) exists and is not a custom language model; refusing to replace it (choose another --output)"
                )
            }
        }
        let staging = parent + "/." + target.lastPathComponent + ".building-\(getpid())"
        try? files.removeItem(atPath: staging)
        do {
            try files.createDirectory(atPath: staging, withIntermediateDirectories: false)
            try write(staging)
            if exists {
                let old = parent + "/." + target.lastPathComponent + ".old-\(getpid())"
                try files.moveItem(atPath: target.path, toPath: old)
                try files.moveItem(atPath: staging, toPath: target.path)
                try? files.removeItem(atPath: old)
            } else {
                try files.moveItem(atPath: staging, toPath: target.path)
            }
        } catch let error as EarshotError {
            try? files.removeItem(atPath: staging)
            throw error
        } catch {
            try? files.removeItem(atPath: staging)
            throw EarshotError(
                .writeFailed, "\(directory): cannot write the language model (\(error.localizedDescription))")
        }
    }
}
