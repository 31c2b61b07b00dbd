import EarshotCore
import EarshotLab
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Issue 47, item 2: the fitted encoder window (``WhisperEncoderWindow``) — its rule, and its words and
/// times against the full 30 s window's on the LibriVox clips.
@Suite(.computing) struct WhisperEncoderWindowTests {
    static let folder = "/usr/share/pocketsphinx/test/data/librivox"

    /// The five clips and their texts, from the folder's Sphinx `transcription` file.
    static func clips() throws -> [(path: String, text: String)] {
        try String(contentsOfFile: folder + "/transcription", encoding: .utf8).split(separator: "\n").map { line in
            let id = line[line.index(after: line.lastIndex(of: "(")!)..<line.lastIndex(of: ")")!]
            let text = line.replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            return ("\(folder)/\(id).wav", String(text[..<text.lastIndex(of: "(")!]))
        }
    }

    @Test func theRuleFitsTheAudioPlusAMarginAtLeastTheMinimumInWholeBlocks() {
        let live = WhisperEncoderWindow.live
        #expect(WhisperEncoderWindow.full.positions(contentFrames: 300, audioContext: 1500) == 1500)
        guard case .fitted(let minimum, let margin) = live else {
            Issue.record("the live rule is not a fitted window")
            return
        }
        // A short utterance gets the minimum; a longer one its length plus the margin, in blocks of 64.
        #expect(live.positions(contentFrames: 300, audioContext: 1500) == minimum)
        let long = live.positions(contentFrames: 2000, audioContext: 1500)
        #expect(long >= 1000 + margin && long < 1000 + margin + 64 && long % 64 == 0)
        // Never past the model's window.
        #expect(live.positions(contentFrames: 3000, audioContext: 1500) == 1500)
        let odd = WhisperEncoderWindow.fitted(minimum: 1, margin: 0)
        #expect(odd.positions(contentFrames: 129, audioContext: 1500) == 128)
        #expect(odd.positions(contentFrames: 127, audioContext: 1500) == 64)
    }

    @Test(arguments: [
        ("full", WhisperEncoderWindow.full), ("fitted", .live), ("fitted:512", .fitted(minimum: 512, margin: 128)),
        ("fitted:512:0", .fitted(minimum: 512, margin: 0)),
    ])
    func theOptionReadsItsNames(text: String, window: WhisperEncoderWindow) {
        #expect(WhisperEncoderWindow(text) == window)
    }

    @Test func otherNamesAndNumbersOutOfRangeAreRefused() {
        for text in ["", "half", "fitted:", "fitted:a", "fitted:1:2:3", "full:1"] {
            #expect(WhisperEncoderWindow(text) == nil)
        }
        #expect(throws: EarshotError.self) {
            try WhisperOptions(encoderWindow: .fitted(minimum: 0, margin: 64)).validate()
        }
        #expect(throws: EarshotError.self) {
            try WhisperOptions(encoderWindow: .fitted(minimum: 512, margin: 2000)).validate()
        }
        var partial = WhisperOptions()
        partial.partialEncoderWindow = .fitted(minimum: 2000, margin: 0)
        #expect(throws: EarshotError.self) { try partial.validate() }
    }

    /// The live rule transcribes the clips with no more word errors than the full window (the
    /// measurement in BENCHMARKS.md: the same 4 errors in 71 words), and every segment and word time lies
    /// inside the clip, in order.
    @Test func theLiveRuleKeepsTheFullWindowsWordsAndItsTimesStayInsideTheAudio() throws {
        let model = try WhisperFixtures.model()
        let transcriber = try WhisperTranscriber(model: model)
        var full = WordErrorRate.zero
        var fitted = WordErrorRate.zero
        for (path, text) in try Self.clips() {
            let samples = try WhisperFixtures.samples(path)
            let duration = Double(samples.count) / 16_000
            let (whole, short) = try samples.withUnsafeBufferPointer {
                (
                    try transcriber.transcribe($0),
                    try transcriber.transcribe($0, options: WhisperOptions(encoderWindow: .live))
                )
            }
            full = full + WordErrorRate(reference: text, hypothesis: whole.map(\.text).joined())
            fitted = fitted + WordErrorRate(reference: text, hypothesis: short.map(\.text).joined())
            #expect(!short.isEmpty, "\(path)")
            for segment in short {
                #expect(0 <= segment.start && segment.start <= segment.end && segment.end <= duration, "\(path)")
                for word in segment.words {
                    #expect(segment.start <= word.start && word.start <= word.end && word.end <= duration, "\(path)")
                }
            }
            let words = short.flatMap(\.words)
            #expect(zip(words, words.dropFirst()).allSatisfy { $0.start <= $1.start }, "\(path)")
        }
        #expect(fitted.errors <= full.errors, "fitted \(fitted), full \(full)")
    }

    /// A window fitted to exactly the audio (no margin, no minimum) may say anything past it, but no
    /// segment or word ends after the audio: its timestamps stop at the window's end, its times at the
    /// audio's.
    @Test func aTightWindowsTimesStillStayInsideTheAudio() throws {
        let model = try WhisperFixtures.model()
        let transcriber = try WhisperTranscriber(model: model)
        let (path, _) = try Self.clips()[1]
        let samples = try WhisperFixtures.samples(path)
        let duration = Double(samples.count) / 16_000
        let segments = try samples.withUnsafeBufferPointer {
            try transcriber.transcribe($0, options: WhisperOptions(encoderWindow: .fitted(minimum: 1, margin: 0)))
        }
        for segment in segments {
            #expect(segment.start <= segment.end && segment.end <= duration)
            #expect(segment.words.allSatisfy { $0.start <= $0.end && $0.end <= duration })
        }
    }

    /// A fitted window whose decode loops, is improbable or says nothing is encoded again in full, so no
    /// loop reaches the transcript. Windows fitted to exactly their audio (whisper.cpp's looping case) on
    /// the LibriVox clips and the five card recordings: some fall back, and no segment of any is a loop
    /// (its text compresses no better than the fallback's threshold, and it holds no more tokens than
    /// ten a second of its audio and sixteen more).
    @Test func aFittedWindowThatLoopsIsDecodedAgainInFull() throws {
        let model = try WhisperFixtures.model()
        let options = WhisperOptions(encoderWindow: .fitted(minimum: 1, margin: 0))
        let tight = try WhisperTranscriber(model: model, options: options)
        let cards = (1...5).map { "/usr/share/pocketsphinx/test/data/cards/00\($0).wav" }
        var fellBack: [String] = []
        for path in try Self.clips().map(\.path) + cards {
            let samples = try WhisperFixtures.samples(path)
            let before = tight.fallbacksToFullWindow
            let segments = try samples.withUnsafeBufferPointer { try tight.transcribe($0) }
            if tight.fallbacksToFullWindow > before { fellBack.append(path) }
            for segment in segments {
                let threshold = try #require(options.compressionRatioThreshold)
                #expect(segment.compressionRatio <= threshold, "\(path): \(segment.text)")
                let seconds = Double(samples.count) / 16_000
                #expect(Double(segment.tokens.count) <= 16 + 10 * seconds, "\(path): \(segment.text)")
            }
        }
        #expect(!fellBack.isEmpty, "no window fitted to its audio fell back to the full window")
    }
}

/// Issue 47: a fitted window's decode that loops stops when the loop is seen, not at its cap.
@Suite(.computing) struct WhisperLoopStopTests {
    /// "Five five" (the `real` corpus's `cards-004`) as a decode begun at the pause hears it: through the
    /// speech's end and ``WhisperRecognizer/pauseTrail``. The corpus is built once for the suite's tests.
    static let fiveFive = Task { () async throws -> [Float] in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-loop-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let corpus = try await CorpusBuilder.build(
            .real, options: RecipeOptions(seed: 1, scratch: folder), into: folder + "/real")
        guard let entry = corpus.entries.first(where: { $0.path.hasSuffix("cards-004.wav") }),
            let speechEnd = entry.speechEnd
        else { throw EarshotError(.invalidInput, "the real corpus has no labelled cards-004.wav") }
        let heard = Int((speechEnd + WhisperRecognizer.pauseTrail) * 16_000)
        return Array(try WhisperFixtures.samples(corpus.audioPath(of: entry)).prefix(heard))
    }

    @Test func aRunSaidFourTimesOverEightTokensIsALoop() {
        #expect(WhisperSearch.endsInLoop([1, 642, 11, 642, 11, 642, 11, 642, 11]))
        #expect(WhisperSearch.endsInLoop([9, 8, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7]))
        #expect(WhisperSearch.endsInLoop(Array(repeating: 3, count: 8)))
        // Three times, or a word four times, or a loop that speech has since left: not (yet) a loop.
        #expect(!WhisperSearch.endsInLoop([642, 11, 642, 11, 642, 11]))
        #expect(!WhisperSearch.endsInLoop(Array(repeating: 3, count: 7)))
        #expect(!WhisperSearch.endsInLoop([642, 11, 642, 11, 642, 11, 642, 11, 13]))
        #expect(!WhisperSearch.endsInLoop([]))
        // Nine tokens to a run is longer than any loop looked for.
        let nine = Array(1...9)
        #expect(!WhisperSearch.endsInLoop(nine + nine + nine + nine))
    }

    /// A loop that begins the text says its first word without the leading space and the repeats with
    /// it (a Realtime session's `cards-004` once went "5, 5, 5, 5, 7, 7, 7, 7, 10 or…" past the rule):
    /// with the tokenizer, the space does not hide the fourth repeat. Only the space: other spellings
    /// stay different words.
    @Test func aLoopThatBeginsTheTextIsSeenDespiteItsFirstWordsMissingSpace() throws {
        let tokenizer = try WhisperFixtures.model().tokenizer
        let fives = tokenizer.encode("5, 5, 5, 5,")
        #expect(fives.count == 8, "\(fives)")
        #expect(!WhisperSearch.endsInLoop(fives))
        #expect(WhisperSearch.endsInLoop(fives, tokenizer: tokenizer))
        #expect(!WhisperSearch.endsInLoop(tokenizer.encode("Five, five, five, five,"), tokenizer: tokenizer))
        #expect(!WhisperSearch.endsInLoop(tokenizer.encode("5, 5, 5, 6,"), tokenizer: tokenizer))
    }

    /// "Five five" as a decode begun at the pause hears it (``fiveFive``). On the live rule's window the beam says
    /// "5, 5, 5, …" (the 8-stream load test's slowest answer). With the fallback, the search stops on
    /// the loop and the window is decoded again in full, to the full window's words; without it
    /// (partial results), the window says nothing.
    @Test func aLoopingFittedDecodeStopsAtTheLoopAndIsDoneAgainOrSaysNothing() async throws {
        let samples = try await Self.fiveFive.value
        let model = try WhisperFixtures.model()
        let transcriber = try WhisperTranscriber(model: model)
        let full = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0) }
        let fitted = try samples.withUnsafeBufferPointer {
            try transcriber.transcribe($0, options: WhisperOptions(encoderWindow: .live))
        }
        #expect(transcriber.loopsCutShort == 1)
        #expect(transcriber.fallbacksToFullWindow == 1)
        #expect(fitted.map(\.text) == full.map(\.text))
        #expect(full.map(\.text).joined() == " 5 5")
        var provisional = WhisperOptions(encoderWindow: .live)
        provisional.fullWindowFallback = false
        let partial = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: provisional) }
        #expect(transcriber.loopsCutShort == 2)
        #expect(transcriber.fallbacksToFullWindow == 1)
        #expect(partial.isEmpty, "\(partial.map(\.text))")
    }

    /// The same utterance through a recognizer, its final decode begun at the pause: the answer is the
    /// full window's, and the recognizer counts it as a decode done again in full (what a service's
    /// `earshot_final_decodes_redone_total` adds up); an utterance whose fitted window holds counts nothing.
    @Test func aRecognizerCountsTheFinalDecodesItDidAgainInFull() async throws {
        let samples = try await Self.fiveFive.value
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model(), slots: ComputeSlots(count: 1))
        func answer(_ samples: [Float]) throws -> String {
            try recognizer.startUtterance()
            try recognizer.accept(AudioBuffer(format: .wideband, samples: samples, startFrame: 0))
            let trail = Int64(WhisperRecognizer.pauseTrail * 16_000)
            recognizer.speechPaused(at: MediaTime(frame: Int64(samples.count) - trail, sampleRate: 16_000))
            return try recognizer.endUtterance().text
        }
        #expect(try answer(samples) == "5 5")
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 1, used: 1, redoneInFull: 1))
        let clip = try WhisperFixtures.samples(WhisperRecognizerTests.clip)
        #expect(try answer(clip) == WhisperRecognizerTests.expected)
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 2, used: 2, redoneInFull: 1))
    }

    /// A live decode whose every temperature loops on the full window: "five five" prompted with
    /// "5, 5, 5, …" (as a Realtime session's `cards-004` once looped at each temperature, answering 25 s
    /// late; a file's decode of it runs each of the six tries to half the text context, 27.6 s of CPU).
    /// Bounded (``WhisperOptions/boundsLoops``, as a recognizer decodes), each try stops at its loop or
    /// at sixteen tokens and ten a second of audio, and the answer holds no more than that.
    @Test func aBoundedDecodeStopsEveryTemperaturesLoop() async throws {
        let samples = try await Self.fiveFive.value
        let transcriber = try WhisperTranscriber(model: try WhisperFixtures.model())
        var options = WhisperOptions(initialPrompt: "5, 5, 5, 5, 5, 5, 5, 5")
        options.boundsLoops = true
        let segments = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) }
        // Beam search at 0 and sampling at every higher temperature: each stopped on its loop.
        #expect(transcriber.loopsCutShort >= options.temperatures.count, "\(transcriber.loopsCutShort)")
        let bound = 16 + 10 * Double(samples.count) / 16_000
        #expect(Double(segments.flatMap(\.tokens).count) <= bound, "\(segments.map(\.text))")
    }
}
