/// How well a stream's partial results held: of the words the last partial result before the final one
/// showed, how many the final transcript did not keep. A partial result is shown to a listener as it
/// comes; a word it showed that the final result then changes or drops is a word the listener read
/// wrong for a while, which a latency figure does not show.
///
/// The last partial result is aligned against the final transcript as a reference is against a
/// hypothesis (``WordErrorRate``, with its reading of words: casing, punctuation and "ten" against "10"
/// are not revisions): a shown word the final transcript replaced or dropped is revised; words the
/// final transcript adds, before, between or after the shown ones, are not (the final result hears
/// more audio, and a word put in front of the shown ones leaves them as they were).
/// Tallies add up with `+`, as a corpus's word errors do.
public struct PartialRevision: Sendable, Hashable {
    /// Words of the last partial result.
    public var shownWords: Int
    /// Of those, the words the final transcript replaced or dropped.
    public var revisedWords: Int

    public init(shownWords: Int, revisedWords: Int) {
        self.shownWords = shownWords
        self.revisedWords = revisedWords
    }

    /// The last partial result `partial` against the final transcript `final`.
    public init(partial: String, final: String) {
        let alignment = WordErrorRate(reference: partial, hypothesis: final)
        self.init(
            shownWords: alignment.referenceWordCount, revisedWords: alignment.substitutions + alignment.deletions)
    }

    /// The empty tally, the identity of `+`.
    public static let zero = PartialRevision(shownWords: 0, revisedWords: 0)

    /// Sums two tallies, as for the utterances of one load level.
    public static func + (lhs: PartialRevision, rhs: PartialRevision) -> PartialRevision {
        PartialRevision(
            shownWords: lhs.shownWords + rhs.shownWords, revisedWords: lhs.revisedWords + rhs.revisedWords)
    }
}
