import Foundation

/// A word with its time in the utterance, in seconds, and its probability (the mean of its tokens').
struct TimedWhisperWord: Equatable {
    var word: String
    var start: Double
    var end: Double
    var probability: Double
}

/// Words and their times from a ``TokenAlignment``, as faster-whisper's `find_alignment` and
/// `add_word_timestamps` make them (so SRT cues and word lists agree with the reference): tokens are
/// grouped into words at spaces and punctuation, a word's start and end are where the path enters its
/// first and its following word's row, over-long words at sentence ends and after pauses are
/// clipped to twice the median word length, leading and trailing punctuation is merged into the
/// neighbouring word, and the first and last words are reconciled with the segment's timestamps.
enum WordTiming {
    static let prependedPunctuation = "\"'“¿([{-"
    static let appendedPunctuation = "\"'.。,，!！?？:：”)]}、"
    static let sentenceEnds = ".。!！?？"
    /// Python's `string.punctuation`.
    static let asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    /// Encoder positions per second (20 ms each).
    static let positionsPerSecond = 50.0

    struct AlignedWord {
        var word: String
        var tokens: [Int]
        var start: Double
        var end: Double
        var probability: Double
    }

    /// A decoded segment of a window: its times and tokens (timestamps included).
    struct Segment {
        var start: Double
        var end: Double
        var tokens: [Int]
        var words: [TimedWhisperWord] = []
    }

    /// Splits text tokens into words (faster-whisper's `split_tokens_on_spaces`, for languages that
    /// write spaces): a piece that decodes to whole characters starts a word when it begins with a
    /// space, is punctuation, or is a special token; otherwise it joins the word before.
    static func words(of tokens: [Int], tokenizer: WhisperTokenizer) -> [(word: String, tokens: [Int])] {
        // Pieces that decode to whole characters: a U+FFFD in a piece ends it only where the whole
        // text has one too (bytes that are not UTF-8 at all).
        let whole = Array(String(decoding: tokenizer.bytes(of: tokens), as: UTF8.self).unicodeScalars)
        var pieces: [(String, [Int])] = []
        var current: [Int] = []
        var offset = 0
        for token in tokens {
            current.append(token)
            let decoded = String(decoding: tokenizer.bytes(of: current), as: UTF8.self)
            let scalars = Array(decoded.unicodeScalars)
            let replacement = scalars.firstIndex(of: "\u{FFFD}").map { $0 + offset }
            if replacement == nil || (replacement! < whole.count && whole[replacement!] == "\u{FFFD}") {
                pieces.append((decoded, current))
                current = []
                offset += scalars.count
            }
        }
        var words: [(word: String, tokens: [Int])] = []
        for (piece, pieceTokens) in pieces {
            let special = pieceTokens[0] >= tokenizer.endOfText
            let stripped = piece.trimmingCharacters(in: .whitespacesAndNewlines)
            // Python's `in` on strings: a substring test (so "" counts as punctuation).
            let punctuation = isSubstring(stripped, of: asciiPunctuation)
            if special || piece.hasPrefix(" ") || punctuation || words.isEmpty {
                words.append((piece, pieceTokens))
            } else {
                words[words.count - 1].word += piece
                words[words.count - 1].tokens += pieceTokens
            }
        }
        return words
    }

    /// The words of `text` with their times in the window (seconds from its start).
    static func alignedWords(text: [Int], alignment: TokenAlignment, tokenizer: WhisperTokenizer) -> [AlignedWord] {
        let words = words(of: text + [tokenizer.endOfText], tokenizer: tokenizer)
        guard words.count > 1 else { return [] }
        var boundaries = [0]
        for word in words.dropLast() { boundaries.append(boundaries.last! + word.tokens.count) }
        let jumpTimes = jumpFrames(alignment.path).map { Double($0) / positionsPerSecond }
        return (0..<(words.count - 1)).map { index in
            let (from, to) = (boundaries[index], boundaries[index + 1])
            let probabilities = alignment.textProbabilities[from..<to]
            return AlignedWord(
                word: words[index].word, tokens: words[index].tokens, start: jumpTimes[from], end: jumpTimes[to],
                probability: Double(probabilities.reduce(0, +)) / Double(max(probabilities.count, 1)))
        }
    }

    /// The frame where the path enters each row (the first step of the path, then every step that
    /// changes row).
    static func jumpFrames(_ path: [(row: Int, frame: Int)]) -> [Int] {
        var frames: [Int] = []
        var previousRow = -1
        for step in path where step.row != previousRow {
            frames.append(step.frame)
            previousRow = step.row
        }
        return frames
    }

    /// Gives each segment of a window its words (times from the utterance's start, `offset` being the
    /// window's), adjusting segment bounds as faster-whisper does; returns the end of the last word,
    /// the new `lastSpeech`.
    static func assign(
        _ aligned: [AlignedWord], to segments: inout [Segment], offset: Double, lastSpeech: Double,
        tokenizer: WhisperTokenizer
    ) -> Double {
        var alignment = aligned
        let durations = alignment.map { $0.end - $0.start }.filter { $0 != 0 }
        let median = min(0.7, durations.isEmpty ? 0 : Self.median(durations))
        let longest = median * 2
        if !durations.isEmpty {
            for i in 1..<max(alignment.count, 1) where alignment[i].end - alignment[i].start > longest {
                if isSubstring(alignment[i].word, of: sentenceEnds) {
                    alignment[i].end = alignment[i].start + longest
                } else if isSubstring(alignment[i - 1].word, of: sentenceEnds) {
                    alignment[i].start = alignment[i].end - longest
                }
            }
        }
        mergePunctuation(&alignment)

        var lastSpeech = lastSpeech
        var index = 0
        for s in segments.indices {
            let textCount = segments[s].tokens.filter { $0 < tokenizer.endOfText }.count
            var saved = 0
            var words: [TimedWhisperWord] = []
            while index < alignment.count && saved < textCount {
                let timing = alignment[index]
                if !timing.word.isEmpty {
                    words.append(
                        TimedWhisperWord(
                            word: timing.word, start: round2(offset + timing.start), end: round2(offset + timing.end),
                            probability: timing.probability))
                }
                saved += timing.tokens.count
                index += 1
            }
            if !words.isEmpty {
                // After a pause, the first word (or two) may not be longer than twice the median.
                if words[0].end - lastSpeech > median * 4
                    && (words[0].end - words[0].start > longest
                        || (words.count > 1 && words[1].end - words[0].start > longest * 2))
                {
                    if words.count > 1 && words[1].end - words[1].start > longest {
                        let boundary = max(words[1].end / 2, words[1].end - longest)
                        words[0].end = boundary
                        words[1].start = boundary
                    }
                    words[0].start = max(0, words[0].end - longest)
                }
                // Prefer the segment's start if the first word is too long, else move the segment's.
                if segments[s].start < words[0].end && segments[s].start - 0.5 > words[0].start {
                    words[0].start = max(0, min(words[0].end - median, segments[s].start))
                } else {
                    segments[s].start = words[0].start
                }
                if segments[s].end > words[words.count - 1].start && segments[s].end + 0.5 < words[words.count - 1].end {
                    words[words.count - 1].end = max(words[words.count - 1].start + median, segments[s].end)
                } else {
                    segments[s].end = words[words.count - 1].end
                }
                lastSpeech = segments[s].end
            }
            segments[s].words = words
        }
        return lastSpeech
    }

    /// Leading punctuation joins the word after it, trailing punctuation the word before.
    static func mergePunctuation(_ alignment: inout [AlignedWord]) {
        var i = alignment.count - 2
        var j = alignment.count - 1
        while i >= 0 {
            let previous = alignment[i]
            let stripped = previous.word.trimmingCharacters(in: .whitespacesAndNewlines)
            if previous.word.hasPrefix(" ") && isSubstring(stripped, of: prependedPunctuation) {
                alignment[j].word = previous.word + alignment[j].word
                alignment[j].tokens = previous.tokens + alignment[j].tokens
                alignment[i].word = ""
                alignment[i].tokens = []
            } else {
                j = i
            }
            i -= 1
        }
        i = 0
        j = 1
        while j < alignment.count {
            if !alignment[i].word.hasSuffix(" ") && isSubstring(alignment[j].word, of: appendedPunctuation) {
                alignment[i].word += alignment[j].word
                alignment[i].tokens += alignment[j].tokens
                alignment[j].word = ""
                alignment[j].tokens = []
            } else {
                i = j
            }
            j += 1
        }
    }

    /// Python's `needle in haystack` for strings: a substring test, true for the empty string.
    static func isSubstring(_ needle: String, of haystack: String) -> Bool {
        needle.isEmpty || haystack.range(of: needle) != nil
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Python's `round(x, 2)`: to the nearest hundredth, ties to even.
    static func round2(_ x: Double) -> Double { (x * 100).rounded(.toNearestOrEven) / 100 }
}
