/// Cuts text into chunks of at most ``maxCharacters`` characters, so that an engine speaks a long text
/// one bounded piece at a time: what a synthesis holds in memory, and how long it keeps the one
/// synthesis thread before another request's turn, then follow the chunk, not the whole text.
///
/// A cut falls after a sentence's final punctuation (`.`, `!`, `?` or `;` and the whitespace after it,
/// as Flite has always been fed sentence by sentence); in a sentence longer than the bound, after the
/// last whitespace that fits (a word bound); in a word longer than the bound, between characters.
/// Nothing is lost or added: the chunks joined give the text back.
public struct TextChunker: Sendable, Hashable {
    /// The most characters in one chunk.
    public var maxCharacters: Int

    /// 200 characters: three lines of prose, past the sentences ordinary text has, so only run-on text
    /// is cut inside a sentence. What a piece costs follows from it: Flite builds a whole piece's
    /// utterance before its first sample, some 0.9 MB a second of speech with the clustergen voices, so
    /// the worst piece — 200 digits read one by one at speed 0.25, 214 s of speech — peaks near 200 MB
    /// (libflite alone, rms), where the 4 096 digits Flite was once handed whole peaked at 6 GB.
    public static let defaultMaxCharacters = 200

    public init(maxCharacters: Int = Self.defaultMaxCharacters) {
        precondition(maxCharacters > 0, "a chunk holds at least one character")
        self.maxCharacters = maxCharacters
    }

    /// The punctuation that ends a sentence when whitespace follows it.
    static let sentenceEnds: Set<Character> = [".", "!", "?", ";"]

    /// `text` cut at every sentence's end, and each sentence longer than the bound cut further (at a
    /// word bound, else a character bound): what Flite speaks one call at a time.
    public func sentences<Text: StringProtocol>(_ text: Text) -> [Substring] where Text.SubSequence == Substring {
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        var previous: Character?
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character.isWhitespace, let previous, Self.sentenceEnds.contains(previous) {
                pieces += chunks(text[start..<next])
                start = next
            }
            previous = character
            index = next
        }
        if start < text.endIndex { pieces += chunks(text[start...]) }
        return pieces
    }

    /// `text` in as few chunks as the bound allows, each cut as late as it can be at the best kind of
    /// bound within reach (a sentence's end, else a word's, else a character's); `text` itself when it
    /// fits. What eSpeak NG speaks one call at a time, so its text parts below the bound are spoken
    /// as they always were.
    public func chunks<Text: StringProtocol>(_ text: Text) -> [Substring] where Text.SubSequence == Substring {
        var pieces: [Substring] = []
        var start = text.startIndex
        while start < text.endIndex {
            // The window of at most maxCharacters characters from start, and the latest cut of each kind.
            var end = start
            var count = 0
            var afterSentence: Substring.Index?
            var afterWord: Substring.Index?
            var previous: Character?
            while end < text.endIndex, count < maxCharacters {
                let character = text[end]
                end = text.index(after: end)
                count += 1
                if character.isWhitespace {
                    afterWord = end
                    if let previous, Self.sentenceEnds.contains(previous) { afterSentence = end }
                }
                previous = character
            }
            let cut = end == text.endIndex ? end : afterSentence ?? afterWord ?? end
            pieces.append(text[start..<cut])
            start = cut
        }
        return pieces
    }
}
