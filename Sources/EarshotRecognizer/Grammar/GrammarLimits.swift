/// How large a grammar or lexicon a client may make the recognizer build.
///
/// A request's grammar is unrolled into a finite-state network before decoding, and its text size says
/// little about that network: 255 bytes of three nested `repeat="0-50"` items unroll to 125 000 copies
/// of their words, and a document nested 15 000 elements deep overflows any recursive reader's stack.
/// So every dimension a client controls is bounded before anything grows with it: the nesting of the
/// XML, the number of rules, how far rule references chain, how often an item may repeat, and the
/// size of the network the grammar unrolls to. Each refusal names the limit it met.
///
/// The defaults are generous for real command grammars (the cards grammar of pocketsphinx-testdata
/// nests 6 deep, has 4 rules, references 3 deep and unrolls to 111 word arcs) and bound the cost of
/// the largest accepted grammar. Measured through `earshot serve` (debug build, shared 2-core
/// machine): a GrammarList request costs about 0.25 ms of CPU and 4 KiB of memory per arc —
/// 5 000 arcs 1.3 s and +27 MiB, 20 000 arcs 2–8 s and +80 MiB — so the 10 000-arc default keeps a
/// hostile grammar's request within a few seconds and ~40 MiB, like a long audio upload.
public struct GrammarLimits: Sendable, Hashable {
    /// The deepest nesting of elements in an SRGS or PLS document (the document element is depth 1).
    public var maxGrammarDepth: Int
    /// The most rules one grammar may define.
    public var maxGrammarRules: Int
    /// The most repetitions a bounded `repeat` may ask for.
    public var maxGrammarRepeat: Int
    /// The longest chain of rule references from the root (PocketSphinx inlines each reference).
    public var maxGrammarReferenceDepth: Int
    /// The most word and null arcs the unrolled grammar may have: repeats unrolled, references inlined.
    public var maxGrammarArcs: Int
    /// The most lexemes one PLS lexicon may hold.
    public var maxLexemes: Int

    public init(
        maxGrammarDepth: Int = 32, maxGrammarRules: Int = 256, maxGrammarRepeat: Int = 50,
        maxGrammarReferenceDepth: Int = 32,
        maxGrammarArcs: Int = 10_000, maxLexemes: Int = 1_000
    ) {
        self.maxGrammarDepth = maxGrammarDepth
        self.maxGrammarRules = maxGrammarRules
        self.maxGrammarRepeat = maxGrammarRepeat
        self.maxGrammarReferenceDepth = maxGrammarReferenceDepth
        self.maxGrammarArcs = maxGrammarArcs
        self.maxLexemes = maxLexemes
    }

    /// The limits a service applies unless told otherwise.
    public static let `default` = GrammarLimits()
}
