/// A context-free grammar of the phrases a recognizer may hear: the content of an SRGS grammar
/// (W3C Speech Recognition Grammar Specification 1.0), independent of its XML spelling.
///
/// Made by ``RecognitionGrammar/init(srgs:origin:)`` and handed to the recognizer, which compiles
/// it to a PocketSphinx finite-state grammar through JSGF (``jsgf(name:)``). Tokens are words of
/// the recognizer's dictionary, lower-cased; a grammar's ``vocabulary`` lets a caller check them
/// before decoding.
public struct RecognitionGrammar: Sendable, Equatable {
    /// The rule a phrase must match.
    public var root: String
    /// The rules, in the order they were written.
    public var rules: [Rule]

    public struct Rule: Sendable, Equatable {
        public var id: String
        /// Whether other grammars may refer to it (SRGS `scope="public"`); kept for JSGF's `public`.
        public var isPublic: Bool
        public var expansion: Expansion

        public init(id: String, isPublic: Bool, expansion: Expansion) {
            self.id = id
            self.isPublic = isPublic
            self.expansion = expansion
        }
    }

    /// What a rule, or part of one, matches.
    public indirect enum Expansion: Sendable, Equatable {
        /// One spoken word.
        case token(String)
        /// Each in turn.
        case sequence([Expansion])
        /// Exactly one of them; a weight (SRGS `weight`, default 1) makes one likelier than another.
        case alternatives([Alternative])
        /// The expansion `minimum` to `maximum` times (`nil`: without limit).
        case repetition(Expansion, minimum: Int, maximum: Int?)
        /// Another rule of this grammar.
        case reference(String)
        /// Matches without any speech (SRGS `special="NULL"`).
        case empty
        /// Can never be matched (SRGS `special="VOID"`).
        case void
    }

    public struct Alternative: Sendable, Equatable {
        public var weight: Double?
        public var expansion: Expansion

        public init(weight: Double? = nil, expansion: Expansion) {
            self.weight = weight
            self.expansion = expansion
        }
    }

    public init(root: String, rules: [Rule]) {
        self.root = root
        self.rules = rules
    }

    /// Every word the grammar can produce, sorted.
    public var vocabulary: [String] {
        var words = Set<String>()
        func collect(_ expansion: Expansion) {
            switch expansion {
            case .token(let word): words.insert(word)
            case .sequence(let items): items.forEach(collect)
            case .alternatives(let choices): choices.forEach { collect($0.expansion) }
            case .repetition(let item, _, _): collect(item)
            case .reference, .empty, .void: break
            }
        }
        rules.forEach { collect($0.expansion) }
        return words.sorted()
    }
}
