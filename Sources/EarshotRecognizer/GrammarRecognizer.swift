/// How a recognizer uses a request's grammar (Speech to Text Custom's two contexts).
public enum GrammarUse: Sendable, Equatable {
    /// Only the grammar's phrases can be recognized (`GrammarList`).
    case only
    /// The recognizer decodes as usual and the grammar's reading wins where it fits the audio about as
    /// well, so in-grammar phrases come out exactly as the grammar spells them and other speech is
    /// still transcribed (`GenericHints`).
    case hints
}

/// A ``Recognizer`` a request can steer: a grammar that narrows or hints what it hears, and
/// pronunciations for words its dictionary lacks. What the service's Speech to Text Custom routes need
/// of a recognizer, and all they know of it.
///
/// A class: a service lends one loaded recognizer to one request at a time and takes the same one back.
public protocol GrammarRecognizer: Recognizer, AnyObject {
    /// Adds the lexicon's words to the dictionary; a word it already has gains an alternate
    /// pronunciation. Throws `.invalidInput` naming a word it cannot take. Between utterances only.
    func addPronunciations(_ lexicon: PronunciationLexicon) throws

    /// Decodes later utterances with `grammar` used as `use` (nil: no grammar, as after loading).
    /// Throws `.invalidInput` naming what is wrong with the grammar (words the dictionary lacks, a rule
    /// it cannot compile). Between utterances only.
    func useGrammar(_ grammar: RecognitionGrammar?, as use: GrammarUse) throws

    /// Whether ``addPronunciations(_:)`` changed the dictionary: such a recognizer should not be lent
    /// to another request (one request's words would be heard in another's audio).
    var hasAddedWords: Bool { get }
}
