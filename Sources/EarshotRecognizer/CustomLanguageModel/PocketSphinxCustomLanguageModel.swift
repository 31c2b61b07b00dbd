import CPocketSphinx
import EarshotCore

/// A custom language model installed in a PocketSphinx decoder: its pronunciations added to the
/// dictionary, and its trigram model interpolated with the decoder's general model through
/// PocketSphinx's own language-model set (`ngram_model_set_init` with weights), which becomes the
/// decoder's n-gram search. Each word's probability is then w·P_custom + (1 − w)·P_general.
enum PocketSphinxCustomLanguageModel {
    static func install(_ model: CustomLanguageModel, weight: Double, decoder: OpaquePointer, search: String) throws {
        for (word, phones) in try model.pronunciations() {
            // A word the dictionary has already keeps its pronunciations; PocketSphinx refuses the second.
            _ = ps_add_word(decoder, word, phones, 0)
        }
        // The search holds its model in a set of one; interpolate the model inside it. (Interpolating the
        // wrapper itself lost 2.8 WER points on the LibriVox clips even at weight 0.05.)
        guard let searchSet = ps_get_lm(decoder, search), let iterator = ngram_model_set_iter(searchSet) else {
            throw EarshotError(.modelUnavailable, "PocketSphinx has no n-gram model to interpolate with")
        }
        let general = ngram_model_set_iter_model(iterator, nil)
        ngram_model_set_iter_free(iterator)
        guard let general else {
            throw EarshotError(.modelUnavailable, "PocketSphinx has no n-gram model to interpolate with")
        }
        guard let custom = ngram_model_read(ps_get_config(decoder), model.arpaPath, NGRAM_ARPA, ps_get_logmath(decoder))
        else {
            throw EarshotError(.invalidInput, "\(model.arpaPath): PocketSphinx cannot read this language model")
        }
        // The set retains both models; the search retains the set.
        defer { ngram_model_free(custom) }
        var models: [OpaquePointer?] = [general, custom]
        let names = ["general", "custom"]
        var weights: [Float32] = [Float32(1 - weight), Float32(weight)]
        let set = names.withCStrings { namePointers in
            var mutableNames = namePointers
            return ngram_model_set_init(ps_get_config(decoder), &models, &mutableNames, &weights, 2)
        }
        guard let set else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not interpolate \(model.arpaPath) with its model")
        }
        defer { ngram_model_free(set) }
        guard ps_set_lm(decoder, search, set) >= 0, ps_set_search(decoder, search) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not search with the custom language model")
        }
    }
}

extension Array where Element == String {
    /// Calls `body` with C strings for the elements, valid only during the call.
    fileprivate func withCStrings<Result>(_ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies)
    }
}
