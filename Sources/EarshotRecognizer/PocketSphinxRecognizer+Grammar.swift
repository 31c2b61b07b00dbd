import CPocketSphinx
import EarshotCore
import Foundation

/// Grammars and added pronunciations: what Speech to Text Custom's `GrammarList` and `GenericHints`
/// contexts need from the embedded recognizer.
extension PocketSphinxRecognizer: GrammarRecognizer {
    // Under ``GrammarUse/only`` the grammar is a PocketSphinx finite-state grammar search; under
    // ``GrammarUse/hints`` the language model decodes as usual and the grammar decodes the same audio
    // a second time when the utterance ends (``secondGrammarPass(after:use:samples:startFrame:endFrame:)``).

    struct ActiveGrammar {
        var grammar: RecognitionGrammar
        var use: GrammarUse
    }

    static let grammarSearch = "earshot-grammar"

    /// How unlike the language model's reading the grammar's may sound and still win under
    /// ``GrammarUse/hints``: phone edits (CMU dictionary pronunciations, Levenshtein distance) per
    /// phone of the longer reading.
    ///
    /// Path scores cannot decide it: PocketSphinx's grammar and n-gram scores differ by their
    /// language weights, and out-of-grammar speech scored as well as in-grammar speech. Sound can: on
    /// the cards recordings of pocketsphinx-testdata decoded with the cards grammar, the n-gram
    /// model's readings ("for queen of clubs", "i've been up close") lie 0.00–0.73 from the grammar's, while
    /// on the LibriVox sentences the grammar's forced card names lie 0.82–0.92 from what was said.
    public static let hintTolerance = 0.75

    /// The words of `words` the dictionary lacks, in order.
    public func missingWords(_ words: [String]) -> [String] {
        words.filter { pronunciation(of: $0) == nil }
    }

    /// The dictionary's first pronunciation of `word` (CMU phones separated by spaces), or nil.
    public func pronunciation(of word: String) -> String? {
        guard let phones = ps_lookup_word(decoder, word) else { return nil }
        defer { free(phones) }
        return String(cString: phones)
    }

    /// Adds the lexicon's words to the dictionary and language model; a word the dictionary already
    /// has gains an alternate pronunciation (`word(2)`). Not undone: a recognizer that took a
    /// request's lexicon should be discarded after it (``hasAddedWords``).
    ///
    /// Throws `.invalidInput` naming an alias word the dictionary lacks; `.recognizerFailed` if
    /// PocketSphinx refuses a word. Not allowed mid-utterance.
    public func addPronunciations(_ lexicon: PronunciationLexicon) throws {
        guard utterance == nil else {
            throw EarshotError(.invalidParameter, "PocketSphinx: cannot change the dictionary while an utterance is open")
        }
        var additions: [(word: String, phones: String)] = []
        for entry in lexicon.entries {
            for pronunciation in entry.pronunciations {
                let phones: String
                switch pronunciation {
                case .phones(let list):
                    phones = list.joined(separator: " ")
                case .alias(let words):
                    phones = try words.map { word in
                        guard let known = self.pronunciation(of: word) else {
                            throw EarshotError(
                                .invalidInput,
                                "lexicon: alias word \"\(word)\" (for \"\(entry.words[0])\") is not in the dictionary")
                        }
                        return known
                    }.joined(separator: " ")
                }
                additions += entry.words.map { (word: $0, phones: phones) }
            }
        }
        for (index, addition) in additions.enumerated() {
            let name = freeName(for: addition.word)
            // Rebuilding the searches is slow (the n-gram search re-reads the whole dictionary): once, at the end.
            let update: Int32 = index == additions.count - 1 ? 1 : 0
            guard ps_add_word(decoder, name, addition.phones, update) >= 0 else {
                throw EarshotError(
                    .recognizerFailed, "PocketSphinx refused the word \"\(addition.word)\" /\(addition.phones)/")
            }
            hasAddedWords = true
        }
    }

    /// Decodes later utterances with `grammar` (nil: the language model alone, as after loading).
    ///
    /// Throws `.invalidInput` listing the grammar's words the dictionary lacks (add them with
    /// ``addPronunciations(_:)`` first), or when PocketSphinx cannot compile the grammar (e.g. a
    /// left-recursive rule). Not allowed mid-utterance.
    public func useGrammar(_ grammar: RecognitionGrammar?, as use: GrammarUse = .only) throws {
        guard utterance == nil else {
            throw EarshotError(.invalidParameter, "PocketSphinx: cannot change the grammar while an utterance is open")
        }
        guard let grammar else {
            ps_set_search(decoder, languageModelSearch)
            if self.grammar != nil { ps_unset_search(decoder, Self.grammarSearch) }
            self.grammar = nil
            return
        }
        let missing = missingWords(grammar.vocabulary)
        guard missing.isEmpty else {
            throw EarshotError(
                .invalidInput,
                "grammar: \(missing.count == 1 ? "word" : "words") not in the recognizer's dictionary: "
                    + missing.prefix(20).joined(separator: ", ") + (missing.count > 20 ? ", …" : "")
                    + "; give their pronunciations in a lexicon (x-dictionary part)")
        }
        ps_set_search(decoder, languageModelSearch)
        guard ps_set_jsgf_string(decoder, Self.grammarSearch, grammar.jsgf()) >= 0 else {
            self.grammar = nil
            throw EarshotError(
                .invalidInput,
                "grammar: PocketSphinx could not compile it to a finite-state grammar (a rule may be left-recursive "
                    + "or the root may match nothing)")
        }
        if use == .only { ps_set_search(decoder, Self.grammarSearch) }
        self.grammar = ActiveGrammar(grammar: grammar, use: use)
    }

    /// Decodes the utterance's `samples` a second time with the grammar, once the first pass has
    /// adapted the cepstral mean to this speaker and channel.
    ///
    /// A request is decoded from the model's initial mean (one client must not colour another), and a
    /// one-second command is over before a live mean settles: on the cards recordings of
    /// pocketsphinx-testdata the first pass heard "five ten of clubs" for "ten of clubs", the second
    /// pass hears all five right. The grammar's small network makes the second pass cheap. Under
    /// ``GrammarUse/only`` its reading is the result; under ``GrammarUse/hints`` it replaces the
    /// language model's when the two sound alike (``hintTolerance``).
    func secondGrammarPass(
        after first: Hypothesis, use: GrammarUse, samples: [Int16], startFrame: Int64, endFrame: Int64
    ) throws -> Hypothesis {
        let adaptedMean = CepstralMeanSnapshot(decoder: decoder)
        defer {
            // The second pass must not count the utterance twice in the running mean.
            adaptedMean?.restore(into: decoder)
            ps_set_search(decoder, use == .only ? Self.grammarSearch : languageModelSearch)
        }
        guard ps_set_search(decoder, Self.grammarSearch) >= 0, ps_start_stream(decoder) >= 0,
            ps_start_utt(decoder) >= 0
        else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not start the grammar pass")
        }
        let piece = samplesPerFrame * Self.framesPerCall
        try samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let count = min(piece, all.count - offset)
                guard ps_process_raw(decoder, all.baseAddress! + offset, count, 0, 0) >= 0 else {
                    ps_end_utt(decoder)
                    throw EarshotError(.recognizerFailed, "PocketSphinx failed to decode audio in the grammar pass")
                }
                offset += count
            }
        }
        guard ps_end_utt(decoder) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx failed to finish the grammar pass")
        }
        guard let candidate = bestHypothesis(startFrame: startFrame, endFrame: endFrame) else { return first }
        if use == .only { return candidate }
        let heard = phones(of: first.text)
        let expected = phones(of: candidate.text)
        let distance = Double(editDistance(heard, expected)) / Double(max(heard.count, expected.count, 1))
        lastHintDistance = distance
        return distance <= Self.hintTolerance ? candidate : first
    }

    func phones(of text: String) -> [String] {
        text.split(separator: " ").flatMap { (pronunciation(of: String($0)) ?? "").split(separator: " ").map(String.init) }
    }

    /// A dictionary name for another pronunciation of `word`: the word itself if new, else `word(N)`.
    private func freeName(for word: String) -> String {
        if pronunciation(of: word) == nil { return word }
        var index = 2
        while pronunciation(of: "\(word)(\(index))") != nil { index += 1 }
        return "\(word)(\(index))"
    }
}
