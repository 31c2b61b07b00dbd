public import EarshotCore
public import Foundation

extension CustomLanguageModel {
    /// Builds `data` into `directory`: checks it (sizes counted before anything is expanded), expands
    /// the phrases, maps the custom pronunciations, makes sure every word can be pronounced (from the
    /// custom pronunciations, `dictionary` — the recognizer's pronouncing dictionary — or else `guess`,
    /// a grapheme-to-phoneme source giving a word's CMU phones) before estimating the trigram model,
    /// checks the files as ``init(directory:)`` will, and writes them.
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
        // Words glued across a template's slot and its text, checked once expanded.
        if let long = vocabulary.first(where: { $0.count > CustomLanguageModelData.maxWordLength }) {
            throw EarshotError(
                .invalidInput,
                "a template expands to a word of \(long.count) characters, \(CustomLanguageModelData.quoted(long)); expected at most \(CustomLanguageModelData.maxWordLength)"
            )
        }
        var missing = vocabulary.subtracting(known).subtracting(custom).sorted()
        var guessed: [String] = []
        if let guess {
            for word in missing {
                let phones: [String]
                do { phones = try guess(word) } catch {
                    throw EarshotError(
                        .invalidInput,
                        "no pronunciation for \(CustomLanguageModelData.quoted(word)): not in \(dictionary), and the grapheme-to-phoneme fallback failed (\(CustomLanguageModelData.quoted("\(error)", limit: 200))); add it to pronunciations (X-SAMPA)"
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
        let ngrams = model.probabilities.map(\.count).enumerated().map { $0.offset == 0 ? $0.element + 1 : $0.element }
        if let (index, count) = ngrams.enumerated().first(where: { $0.element > ARPAFile.maxNGrams }) {
            throw EarshotError(
                .invalidInput,
                "the phrases make \(count) \(index + 1)-grams; at most \(ARPAFile.maxNGrams) are built (use fewer or shorter phrases)"
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let files = [
            (arpaName, Data(model.arpa().utf8)), (dictionaryName, Data(entries.map { $0 + "\n" }.joined().utf8)),
            (dataName, try data.json()),
        ]
        // What is written is what opening it accepts: checked here, before the previous model is replaced.
        _ = try ARPAFile(bytes: files[0].1, path: directory + "/" + arpaName)
        _ = try CustomPronunciationEntries.parse(files[1].1, path: directory + "/" + dictionaryName)
        let manifest = Manifest(
            format: format, formatVersion: formatVersion, identifier: data.identifier, version: data.version,
            locale: data.locale, sourceSHA256: sha256(source ?? files[2].1),
            fileSHA256: Dictionary(uniqueKeysWithValues: files.map { ($0.0, sha256($0.1)) }), order: model.order,
            ngrams: ngrams, phrases: sentences.count, words: vocabulary.count, customPronunciations: custom.count,
            guessedPronunciations: guessed)
        try replaceDirectory(directory) { staging in
            for (name, bytes) in files { try bytes.write(to: URL(fileURLWithPath: staging + "/" + name)) }
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
