import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotRecognizer

@Suite(.computing) struct SubtitleCuesTests {
    /// Words of `length` letters, each 0.3 s long with 0.05 s between, starting at `start` seconds.
    private func words(_ count: Int, length: Int = 5, start: Double = 0, gap: Double = 0.05) -> [TimedWord] {
        (0..<count).map { index in
            let begin = start + Double(index) * (0.3 + gap)
            return TimedWord(
                word: String(repeating: "a", count: length), start: time(begin), end: time(begin + 0.3),
                confidence: 1)
        }
    }

    /// `seconds` at the nearest 16 kHz sample, as a recognizer places a word.
    private func time(_ seconds: Double) -> Double {
        MediaTime(frame: Int64((seconds * 16_000).rounded()), sampleRate: 16_000).seconds
    }

    @Test func cuesHoldTwoLinesOf42Characters() {
        // Seven 5-letter words fill 41 characters; fourteen fill two lines; the fifteenth starts a cue.
        let cues = SubtitleLayout().cues(for: words(15))
        #expect(cues.count == 2)
        #expect(cues[0].lines.map(\.count) == [41, 41])
        #expect(cues[1].lines == ["aaaaa"])
        #expect(cues[1].start == time(14 * 0.35))
    }

    @Test func cuesLastAtMostSevenSecondsAndBreakAtPauses() {
        // Short words, 0.35 s apart: 20 fit in 7 s (6.95 s from first start to last end), not 21.
        let tiny = SubtitleLayout(maxLineLength: 1_000).cues(for: words(30, length: 1))
        #expect(tiny.map { $0.lines.joined(separator: " ").split(separator: " ").count } == [20, 10])
        #expect(tiny.allSatisfy { $0.end - $0.start <= 7 })

        let paused = words(2) + words(2, start: 2.0)
        let cues = SubtitleLayout().cues(for: paused)
        #expect(cues.count == 2, "a 1.35 s silence starts a new cue")
        #expect(cues[0].end == time(0.65) && cues[1].start == time(2.0))
    }

    @Test func timestampsAreSubRipAndWebVTT() {
        let cue = SubtitleCue(start: time(3_723.456), end: time(3_725), lines: ["one", "two"])
        #expect(SubtitleWriter.srt([cue]) == "1\n01:02:03,456 --> 01:02:05,000\none\ntwo\n\n")
        #expect(SubtitleWriter.vtt([cue]) == "WEBVTT\n\n01:02:03.456 --> 01:02:05.000\none\ntwo\n\n")
        #expect(SubtitleWriter.vtt([]) == "WEBVTT\n\n")
    }

    @Test func aWordLongerThanALineGetsALineOfItsOwn() {
        let layout = SubtitleLayout(maxLineLength: 10)
        #expect(layout.lines(["short", "extraordinarily", "ok"]) == ["short", "extraordinarily", "ok"])
    }
}

@Suite(.computing) struct SubtitleSpeechTrimTests {
    private func time(_ seconds: Double) -> MediaTime {
        MediaTime(frame: Int64((seconds * 16_000).rounded()), sampleRate: 16_000)
    }
    private func word(_ text: String, _ start: Double, _ end: Double) -> TimedWord {
        TimedWord(word: text, start: time(start).seconds, end: time(end).seconds, confidence: 1)
    }

    @Test func wordsAreTrimmedToTheVADsSpeechAndWordsInSilenceLeftOut() {
        let speech = [time(1.0)..<time(2.0), time(4.0)..<time(5.0)]
        let words = [word("one", 0.9, 1.5), word("two", 1.5, 2.6), word("noise", 3.0, 3.5), word("three", 4.1, 4.6)]
        let cues = SubtitleLayout().cues(for: words, speech: speech)
        // "two" ends at the end of speech (2.0, not 2.6); "noise" is in silence; 2.0 → 4.1 is a pause > 1 s.
        #expect(cues.map(\.lines) == [["one two"], ["three"]])
        #expect(cues[0].start == time(1.0).seconds && cues[0].end == time(2.0).seconds)
        #expect(cues[1].start == time(4.1).seconds && cues[1].end == time(4.6).seconds)
    }
}
