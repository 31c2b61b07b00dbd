import EarshotCore
import EarshotTesting

@testable import EarshotRecognizer

/// What the `grammar` fuzz target (`Fuzz/Targets/`) runs on each input, shared with
/// `GrammarFuzzRegressionTests`, which replays the seeds and every saved crash through the same code.
///
/// A request's grammar and lexicon parts are untrusted: each input is read as an SRGS grammar, which
/// when accepted is expanded to the JSGF the recognizer compiles, and as a PLS lexicon. A refusal
/// must be an `EarshotError` with code `.invalidInput`; an accepted grammar must give JSGF whose
/// public rule is its root. Anything else is a ``FuzzFinding``.
enum GrammarFuzzEntry {
    static func run(_ bytes: [UInt8]) throws {
        try refusedAsInvalidInput {
            let grammar = try RecognitionGrammar(srgs: bytes, origin: "fuzz grammar")
            let jsgf = grammar.jsgf()
            guard jsgf.hasPrefix("#JSGF V1.0;"), jsgf.contains("public <") else {
                throw FuzzFinding("the JSGF of an accepted grammar has no header or public rule:\n\(jsgf.prefix(400))")
            }
            _ = grammar.vocabulary
        }
        try refusedAsInvalidInput {
            _ = try PronunciationLexicon(pls: bytes, origin: "fuzz lexicon")
        }
    }

    private static func refusedAsInvalidInput(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as EarshotError {
            guard error.code == .invalidInput else { throw FuzzFinding("unexpected error code: \(error)") }
        }
    }
}
