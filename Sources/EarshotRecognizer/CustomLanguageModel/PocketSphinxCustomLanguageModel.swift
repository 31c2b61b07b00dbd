import CPocketSphinx
import EarshotCore
import Foundation

/// A custom language model installed in a PocketSphinx decoder: its pronunciations added to the
/// dictionary, and its trigram model interpolated with the decoder's general model through
/// PocketSphinx's own language-model set (`ngram_model_set_init` with weights), which becomes the
/// decoder's n-gram search. Each word's probability is then w·P_custom + (1 − w)·P_general.
///
/// PocketSphinx is given only what ``CustomLanguageModel`` checked when it opened the directory: the
/// pronunciations as parsed, and the ARPA text from memory through an anonymous in-memory file
/// (`memfd_create`, read by sphinxbase as `/proc/self/fd/N`), never the file on disk, which may have
/// changed since it was checked.
enum PocketSphinxCustomLanguageModel {
    static func install(_ model: CustomLanguageModel, weight: Double, decoder: OpaquePointer, search: String) throws {
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
        let file = try InMemoryFile(model.arpa.bytes, name: "earshot-custom-language-model")
        defer { file.close() }
        guard let custom = ngram_model_read(ps_get_config(decoder), file.path, NGRAM_ARPA, ps_get_logmath(decoder))
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
        // The pronunciations go in only once the set is the search's model. `ps_add_word` also adds its
        // word to the search's language model, and a word added to the general model's trie gets no
        // n-gram ranges of its own: sphinxbase then read past the trie when it scored a word after it
        // (SIGSEGV in `lm_trie_score`, with models `lm build` made from valid data). The set holds the
        // custom model's words already, so adding them to it adds nothing to either model. The search is
        // then made again, so its lexicon has the new words.
        guard ps_set_lm(decoder, search, set) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not search with the custom language model")
        }
        for (word, phones) in try model.pronunciations() {
            // Only words the set knows (an alternative `word(2)` by its word): any other would be added to
            // the general model's trie.
            let base = word.split(separator: "(", maxSplits: 1).first.map(String.init) ?? word
            guard ngram_wid(set, base) >= 0 else { continue }
            // A word the dictionary has already keeps its pronunciations; PocketSphinx refuses the second.
            _ = ps_add_word(decoder, word, phones, 0)
        }
        guard ps_set_lm(decoder, search, set) >= 0, ps_set_search(decoder, search) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not search with the custom language model")
        }
    }
}

/// An anonymous file in memory holding `bytes`, for a C library that reads only paths: nothing else can
/// write it, so the library reads exactly these bytes.
private struct InMemoryFile {
    let descriptor: Int32
    /// The path that opens it afresh from the start.
    var path: String { "/proc/self/fd/\(descriptor)" }

    private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
    /// Swift's Glibc module leaves out the GNU `memfd_create`; the C library has it.
    private static let memfdCreate: MemfdCreate? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "memfd_create") else { return nil }
        return unsafeBitCast(symbol, to: MemfdCreate.self)
    }()
    private static let closeOnExec: UInt32 = 1  // MFD_CLOEXEC

    init(_ bytes: Data, name: String) throws {
        guard let create = Self.memfdCreate else {
            throw EarshotError(.recognizerFailed, "this system has no memfd_create for the custom language model")
        }
        descriptor = create(name, Self.closeOnExec)
        guard descriptor >= 0 else {
            throw EarshotError(
                .recognizerFailed,
                "cannot hold the custom language model in memory (\(String(cString: strerror(errno))))")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw EarshotError(.recognizerFailed, "cannot hold the custom language model in memory (\(reason))")
            }
            written += count
        }
    }

    func close() { Glibc.close(descriptor) }
}

extension Array where Element == String {
    /// Calls `body` with C strings for the elements, valid only during the call.
    fileprivate func withCStrings<Result>(_ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies)
    }
}
