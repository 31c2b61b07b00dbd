public import EarshotCore

/// One subtitle: the lines shown from `start` to `end`, in seconds of media time.
public struct SubtitleCue: Sendable, Equatable {
    /// The start of the cue's first word.
    public var start: Double
    /// The end of the cue's last word.
    public var end: Double
    /// One or more lines of text.
    public var lines: [String]

    public init(start: Double, end: Double, lines: [String]) {
        self.start = start
        self.end = end
        self.lines = lines
    }
}

/// How words are grouped into subtitle cues.
///
/// The defaults are the usual broadcast limits (the BBC's and Netflix's guidelines: two lines of
/// about 42 characters, at most 7 seconds on screen), plus a cue break at any pause longer than
/// ``maxWordGap``, so a cue is shown while its words are spoken and not across a silence.
public struct SubtitleLayout: Sendable, Hashable {
    /// Characters per line; a longer word gets a line of its own. Default 42.
    public var maxLineLength: Int
    /// Lines per cue. Default 2.
    public var maxLines: Int
    /// Seconds from the first word's start to the last word's end. Default 7.
    public var maxDuration: Double
    /// A silence between two words longer than this starts a new cue. Default 1 s.
    public var maxWordGap: Double

    public init(maxLineLength: Int = 42, maxLines: Int = 2, maxDuration: Double = 7, maxWordGap: Double = 1) {
        self.maxLineLength = max(1, maxLineLength)
        self.maxLines = max(1, maxLines)
        self.maxDuration = maxDuration
        self.maxWordGap = maxWordGap
    }

    /// Groups `words` (in time order) into cues, greedily: a word joins the current cue unless that
    /// would break a limit, so every cue starts at a word's start and ends at a word's end.
    ///
    /// With `speech` (the VAD's speech runs, in order), each word is first trimmed to the run it overlaps
    /// most: the recognizer tends to stretch the last word before a pause into the silence after it
    /// (by 0.3 s and more on the long corpus), which would keep a cue on screen after its speech ended.
    /// A word that overlaps no run is left out: it was "heard" in what the VAD judged silence (on the
    /// long corpus, room tone between clips read as "staff" or "if"), and showing it would put a cue on
    /// screen over silence. Text and JSON keep every word the recognizer returned.
    public func cues(for words: [TimedWord], speech: [Range<MediaTime>] = []) -> [SubtitleCue] {
        let runs = speech.map { $0.lowerBound.seconds..<$0.upperBound.seconds }
        let words = runs.isEmpty ? words : words.compactMap { Self.trimmed($0, to: runs) }
        var cues: [SubtitleCue] = []
        var current: [TimedWord] = []
        func close() {
            guard let first = current.first, let last = current.last else { return }
            cues.append(SubtitleCue(start: first.start, end: last.end, lines: lines(current.map(\.word))))
            current = []
        }
        for word in words {
            if let first = current.first, let last = current.last {
                let fits =
                    word.start - last.end <= maxWordGap && word.end - first.start <= maxDuration
                    && lines(current.map(\.word) + [word.word]).count <= maxLines
                if !fits { close() }
            }
            current.append(word)
        }
        close()
        return cues
    }

    /// `word` cut to the part inside the speech run it overlaps most; nil if it overlaps none.
    static func trimmed(_ word: TimedWord, to speech: [Range<Double>]) -> TimedWord? {
        var best: Range<Double>?
        var bestOverlap = 0.0
        // Runs are sorted: skip those that end before the word, stop at the first that starts after it.
        for run in speech where run.upperBound > word.start {
            if run.lowerBound >= word.end { break }
            let overlap = min(run.upperBound, word.end) - max(run.lowerBound, word.start)
            if overlap > bestOverlap {
                best = run
                bestOverlap = overlap
            }
        }
        guard let best else { return nil }
        var trimmed = word
        trimmed.start = max(word.start, best.lowerBound)
        trimmed.end = min(word.end, best.upperBound)
        return trimmed
    }

    /// `words` filled into lines of at most ``maxLineLength`` characters.
    func lines(_ words: [String]) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = word
            } else if line.count + 1 + word.count <= maxLineLength {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// SubRip (`.srt`) and WebVTT (`.vtt`) text for cues.
public enum SubtitleWriter {
    /// Numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each.
    public static func srt(_ cues: [SubtitleCue]) -> String {
        cues.enumerated().map { index, cue in
            "\(index + 1)\n\(timestamp(cue.start, ",")) --> \(timestamp(cue.end, ","))\n"
                + cue.lines.joined(separator: "\n") + "\n\n"
        }.joined()
    }

    /// The `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`, a blank line after each.
    public static func vtt(_ cues: [SubtitleCue]) -> String {
        "WEBVTT\n\n"
            + cues.map { cue in
                "\(timestamp(cue.start, ".")) --> \(timestamp(cue.end, "."))\n" + cue.lines.joined(separator: "\n")
                    + "\n\n"
            }.joined()
    }

    /// `seconds` as hours, minutes, seconds and milliseconds (rounded), the last two joined by `separator`.
    static func timestamp(_ time: Double, _ separator: String) -> String {
        let milliseconds = max(0, Int64((time * 1000).rounded()))
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60, fraction = milliseconds % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))\(separator)\(pad(fraction, 3))"
    }
}
