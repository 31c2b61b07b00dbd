import EarshotCore
import EarshotLab
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Whisper behind the ``Recognizer`` protocol: media times, contiguity, partial results that only
/// grow, request options, silence, and cancellation.
@Suite(.computing) struct WhisperRecognizerTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"
    static let expected =
        "Had he married a more amiable woman, he might have been made still more respectable than he was."

    func feed(_ recognizer: WhisperRecognizer, _ samples: [Float], from first: Int64, piece: Int = 16_000) throws {
        var offset = 0
        while offset < samples.count {
            let end = min(offset + piece, samples.count)
            try recognizer.accept(
                AudioBuffer(format: .wideband, samples: Array(samples[offset..<end]), startFrame: first + Int64(offset))
            )
            offset = end
        }
    }

    /// Feeds `samples` from frame 0 in pieces of `piece`, asking for a partial result after each; every
    /// one given, with the seconds of audio fed when it came. A partial decode begun on a thread of its
    /// own (``WhisperRecognizer/PartialPacing/sharingTime``) is waited for before the next piece, so its
    /// text is taken in at the next call whatever the machine's speed.
    static func partials(_ recognizer: WhisperRecognizer, _ samples: [Float], piece: Int = 8_000) throws
        -> [(seconds: Double, result: RecognitionResult)]
    {
        var partials: [(seconds: Double, result: RecognitionResult)] = []
        var offset = 0
        while offset < samples.count {
            let end = min(offset + piece, samples.count)
            try recognizer.accept(
                AudioBuffer(format: .wideband, samples: Array(samples[offset..<end]), startFrame: Int64(offset)))
            offset = end
            if let partial = try recognizer.partialResult() { partials.append((Double(offset) / 16_000, partial)) }
            recognizer.awaitPartialDecode()
        }
        return partials
    }

    @Test func wordsAreInTheStreamsMediaTime() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        try recognizer.startUtterance()
        try feed(recognizer, samples, from: 48_000)  // the utterance starts 3 s into the stream
        let result = try recognizer.endUtterance()
        #expect(result.text == Self.expected)
        #expect(result.start.frame == 48_000 && result.end.frame == 48_000 + Int64(samples.count))
        let words = result.hypotheses[0].words
        #expect(words.map(\.word).joined(separator: " ") == Self.expected)
        #expect(words.first!.start >= 3.0 && words.last!.end <= 3.0 + Double(samples.count) / 16_000)
        #expect(zip(words, words.dropFirst()).allSatisfy { $0.start <= $1.start && $0.end <= $1.start })
        let confidence = try #require(result.hypotheses[0].confidence)
        #expect(confidence > 0.5 && confidence <= 1)
    }

    /// Where a pause noted now puts the speech's end: ``WhisperRecognizer/pauseTrail`` before frame
    /// `fed`, so the recognizer already has the silence its early decode hears and begins it at once.
    static func speechEnd(heardThrough fed: Int) -> MediaTime {
        MediaTime(frame: Int64(fed) - Int64(WhisperRecognizer.pauseTrail * 16_000), sampleRate: 16_000)
    }

    /// Issue 47, item 1: the final decode begun at the speaker's pause is the answer when only silence
    /// follows — the same words as a decode at the end — and is stopped and dropped when speech comes
    /// back, the utterance then decoded whole, nothing lost.
    @Test func anEarlyDecodeIsTheAnswerAfterSilenceAndIsDroppedWhenSpeechResumes() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        let silence = [Float](repeating: 0, count: 13_600)  // the endpointer's 0.85 s
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        try recognizer.startUtterance()
        try feed(recognizer, samples, from: 0)
        let speechEnd = MediaTime(frame: Int64(samples.count), sampleRate: 16_000)
        recognizer.speechPaused(at: speechEnd)
        #expect(recognizer.earlyDecodes.begun == 0, "not before the trail after the speech has been heard")
        try feed(recognizer, silence, from: Int64(samples.count))
        #expect(recognizer.earlyDecodes.begun == 1, "begun in the silence")
        recognizer.speechPaused(at: speechEnd)  // a second pause with no speech between keeps the first decode
        let early = try recognizer.endUtterance()
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 1, used: 1, stopped: 0))
        #expect(early.text == Self.expected)
        #expect(early.end.frame == Int64(samples.count + silence.count))
        #expect(early.hypotheses[0].words.map(\.word).joined(separator: " ") == Self.expected)

        // Speech comes back at once: the early decode is stopped mid-way, not finished for nothing.
        try recognizer.startUtterance()
        let half = samples.count / 2
        try feed(recognizer, Array(samples[..<half]), from: 0)
        recognizer.speechPaused(at: Self.speechEnd(heardThrough: half))
        recognizer.speechResumed()
        try feed(recognizer, Array(samples[half...]), from: Int64(half))
        let resumed = try recognizer.endUtterance()
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 2, used: 1, stopped: 1))
        #expect(resumed.text == Self.expected, "the whole utterance, both halves")

        // A pause whose trail speech cuts short is never begun.
        try recognizer.startUtterance()
        try feed(recognizer, Array(samples[..<half]), from: 0)
        recognizer.speechPaused(at: MediaTime(frame: Int64(half), sampleRate: 16_000))
        recognizer.speechResumed()
        try feed(recognizer, Array(samples[half...]) + silence, from: Int64(half))
        #expect(try recognizer.endUtterance().text == Self.expected)
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 2, used: 1, stopped: 1))

        // Silence is never decoded early.
        try recognizer.startUtterance()
        try feed(recognizer, silence, from: 0)
        recognizer.speechPaused(at: Self.speechEnd(heardThrough: silence.count))
        #expect(try recognizer.endUtterance().hypotheses.isEmpty)
        #expect(recognizer.earlyDecodes.begun == 2)
    }

    /// Issue 47: a live stream's partial decode runs on a thread of its own, so the stream goes on being
    /// read; a pause seen meanwhile stops it, and the decode begun there is the answer. Partial decodes
    /// after the pause's are never begun, and an utterance left with a partial decode under way stops it.
    @Test func aPartialDecodeUnderWayGivesWayToThePausesDecode() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        let trail = [Float](repeating: 0, count: 13_600)
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        try recognizer.startUtterance()
        try feed(recognizer, samples, from: 0)
        // Begins a partial decode of the whole clip and returns at once, before its text.
        #expect(try recognizer.partialResult() == nil)
        recognizer.speechPaused(at: MediaTime(frame: Int64(samples.count), sampleRate: 16_000))
        try feed(recognizer, trail, from: Int64(samples.count))
        #expect(recognizer.earlyDecodes.begun == 1)
        _ = try recognizer.partialResult()
        let final = try recognizer.endUtterance()
        #expect(final.text == Self.expected)
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 1, used: 1, stopped: 0))

        try recognizer.startUtterance()
        try feed(recognizer, samples, from: 0)
        _ = try recognizer.partialResult()
        recognizer.abandonUtterance()
        try recognizer.startUtterance()
        try feed(recognizer, samples, from: 0)
        #expect(try recognizer.endUtterance().text == Self.expected)
    }

    /// Audio faster than real time (a file uploaded at once, ``Recognizer/noteStreamPace(isLive:)``):
    /// partial decodes run in turn with the audio, each ended when ``WhisperRecognizer/partialResult()``
    /// returns, so the text agreed comes before the audio ends.
    @Test func aStreamFasterThanRealTimeGetsPartialDecodesInTurn() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        // Cores of its own: other tests' final decodes would make partial decodes give way.
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model(), slots: ComputeSlots(count: 1))
        try recognizer.startUtterance()
        recognizer.noteStreamPace(isLive: false)
        var given: [String] = []
        var offset = 0
        while offset < samples.count {
            let end = min(offset + 8_000, samples.count)
            try recognizer.accept(
                AudioBuffer(format: .wideband, samples: Array(samples[offset..<end]), startFrame: Int64(offset)))
            offset = end
            if let partial = try recognizer.partialResult() { given.append(partial.text) }
        }
        #expect(recognizer.partialDecodes >= 2)
        #expect(!given.isEmpty, "no partial result before the end")
        #expect(try recognizer.endUtterance().text == Self.expected)
    }

    /// Issue 47: the decode begun at a pause hears the same audio however late the pause was seen (a
    /// client's 0.1 s chunks, or its 0.4 s ones): the speech and ``WhisperRecognizer/pauseTrail`` of
    /// what follows it, so the same result to its last probability.
    @Test func anEarlyDecodeHearsTheSameTrailWhereverThePauseWasSeen() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        // Room noise after the speech (about −50 dBFS), the same in each run: the trail is heard, not
        // digital silence.
        var generator = SplitMix64(seed: 47)
        let noise = (0..<16_000).map { _ in Float(Int(generator.next() % 201) - 100) / 30_000 }
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        let speechEnd = MediaTime(frame: Int64(samples.count), sampleRate: 16_000)
        var results: [RecognitionResult] = []
        for seenAfter in [0.4, 1.0] {
            try recognizer.startUtterance()
            try feed(recognizer, samples, from: 0)
            let heard = Int(seenAfter * 16_000)
            try feed(recognizer, Array(noise[..<heard]), from: Int64(samples.count))
            recognizer.speechPaused(at: speechEnd)
            try feed(recognizer, Array(noise[heard...]), from: Int64(samples.count + heard))
            results.append(try recognizer.endUtterance())
        }
        #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 2, used: 2, stopped: 0))
        #expect(results[0].text == Self.expected)
        #expect(results[0].hypotheses == results[1].hypotheses)
    }

    /// Issue 51, item 5: a phrase Whisper says again after the speech, its words of no length, never
    /// reaches the output; words of no length that repeat nothing, or a lone one, stay.
    @Test func aRepeatedTailOfWordsWithNoLengthIsDropped() {
        func words(_ spans: [(String, Double, Double)]) -> [TimedWord] {
            spans.map { TimedWord(word: $0.0, start: $0.1, end: $0.2, confidence: 0.9) }
        }
        let said = [("Play", 0.2, 0.4), ("the", 0.4, 0.5), ("Winawer", 0.5, 1.1), ("variation.", 1.1, 1.64)]
        let looped = words(said + [("The", 1.64, 1.64), ("Winawer", 1.64, 1.64), ("variation.", 1.64, 1.64)])
        #expect(WhisperRecognizer.droppingRepeatedTail(looped) == words(said))
        let new = words(said + [("Then", 1.64, 1.64), ("castle.", 1.64, 1.64)])
        #expect(WhisperRecognizer.droppingRepeatedTail(new) == new)
        let lone = words(said + [("variation.", 1.64, 1.64)])
        #expect(WhisperRecognizer.droppingRepeatedTail(lone) == lone)
    }

    @Test func aGapBetweenBuffersIsRefused() throws {
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        try recognizer.startUtterance()
        try recognizer.accept(AudioBuffer(format: .wideband, samples: [Float](repeating: 0, count: 160), startFrame: 0))
        #expect(throws: EarshotError.self) {
            try recognizer.accept(AudioBuffer(format: .wideband, samples: [0], startFrame: 161))
        }
        #expect(throws: EarshotError.self) {
            try recognizer.accept(AudioBuffer(format: .narrowband, samples: [0], startFrame: 160))
        }
    }

    @Test func silenceGivesNoHypothesisAndAnAbandonedUtteranceLeavesItReady() throws {
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        try recognizer.startUtterance()
        // Below −50 dBFS: not decoded (Whisper alone writes "You" for 2 s of zeros).
        try feed(recognizer, [Float](repeating: 0, count: 32_000) + [Float](repeating: 0.003, count: 16_000), from: 0)
        #expect(try recognizer.endUtterance().hypotheses.isEmpty)
        try recognizer.startUtterance()
        try feed(recognizer, [Float](repeating: 0.1, count: 1_000), from: 0)
        recognizer.abandonUtterance()
        try recognizer.startUtterance()
        try feed(recognizer, try WhisperFixtures.samples(Self.clip), from: 0)
        #expect(try recognizer.endUtterance().text == Self.expected)
    }

    /// With the partial decodes' default window (``WhisperEncoderWindow/live``) and a tighter one
    /// (``WhisperOptions/partialEncoderWindow``): the partial text only grows and the final result keeps it.
    @Test(arguments: [WhisperEncoderWindow.live, .fitted(minimum: 256, margin: 64)])
    func partialResultsOnlyGrowAndLeadToTheFinalText(window: WhisperEncoderWindow) throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        var options = WhisperOptions()
        options.partialEncoderWindow = window
        let recognizer = try WhisperRecognizer(
            model: try WhisperFixtures.model(), options: options, partialPacing: .everySecondOfAudio)
        try recognizer.startUtterance()
        let given = try Self.partials(recognizer, samples).map(\.result)
        for partial in given { #expect(partial.isPartial && partial.hypotheses[0].confidence == nil) }
        let partials = given.map(\.text)
        let final = try recognizer.endUtterance().text
        #expect(!partials.isEmpty, "a 6 s utterance gives partial results")
        for (earlier, later) in zip(partials, partials.dropFirst()) {
            #expect(later.hasPrefix(earlier), "\(earlier) → \(later)")
        }
        let words = partials.last!.split(separator: " ").count
        #expect(
            final.split(separator: " ").prefix(words).joined(separator: " ").lowercased().hasPrefix(
                String(partials.last!.lowercased().prefix(10))), "\(partials.last!) vs \(final)")
        #expect(
            PartialRevision(partial: partials.last!, final: final).revisedWords == 0, "\(partials.last!) vs \(final)")
    }

    /// Audio fed far faster than a decode takes: partial decodes run as audio comes until two agree on
    /// the first words (the first partial result; at 1 s and 2 s this clip is heard as "Howdy, married"
    /// and "How to marry…"), then each waits as long as the last took, so a stream's final result never
    /// queues behind partial decodes.
    @Test func partialDecodesWaitAsLongAsTheLastOneTook() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        // Cores of its own: other tests' final decodes would make partial decodes give way.
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model(), slots: ComputeSlots(count: 1))
        try recognizer.startUtterance()
        let partials = try Self.partials(recognizer, samples)
        #expect(!partials.isEmpty, "a partial result before the end")
        #expect(
            (2...5).contains(recognizer.partialDecodes),
            "\(recognizer.partialDecodes) decodes: one a second until the first agreement, then fewer")
        #expect(try recognizer.endUtterance().text == Self.expected)
    }

    /// Issue 47: with more streams than cores, partial decodes give way. While another stream's final
    /// decode holds the only core, a stream gets no partial decode (its agreed text stands) and its own
    /// final decode waits its turn; once the core is free, partial decodes run again.
    @Test func partialDecodesGiveWayAndFinalDecodesWaitTheirTurn() throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        let slots = ComputeSlots(count: 1)
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model(), slots: slots)
        try recognizer.startUtterance()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            _ = slots.runResult {
                holding.signal()
                release.wait()
            }
            released.signal()
        }.start()
        holding.wait()
        #expect(try Self.partials(recognizer, samples).isEmpty)
        #expect(recognizer.partialDecodes == 0)
        #expect(slots.tally.provisionalSkipped > 0)

        // The final decode, asked while the core is held, waits for it.
        let final = Locked<String?>(nil)
        nonisolated(unsafe) let waiting = recognizer
        let decoded = DispatchSemaphore(value: 0)
        Thread {
            let text = try? waiting.endUtterance().text
            final.withLock { $0 = text }
            decoded.signal()
        }.start()
        while slots.waitingResults == 0 { usleep(1_000) }
        #expect(final.value == nil)
        release.signal()
        released.wait()
        decoded.wait()
        #expect(final.value == Self.expected)

        // The core free, partial decodes run again.
        try recognizer.startUtterance()
        _ = try Self.partials(recognizer, Array(samples.prefix(32_000)))
        #expect(recognizer.partialDecodes > 0)
        recognizer.abandonUtterance()
    }

    @Test func requestOptionsAreCheckedAndLastOneUtterance() throws {
        let recognizer = try WhisperRecognizer(model: try WhisperFixtures.model())
        let language = #expect(throws: RecognitionOptionRefusal.self) {
            try recognizer.setRequestOptions(.init(language: "de"))
        }
        #expect(language?.option == .language)
        #expect(language?.message.contains("'de'") == true)
        let temperature = #expect(throws: RecognitionOptionRefusal.self) {
            try recognizer.setRequestOptions(.init(temperature: 1.5))
        }
        #expect(temperature?.option == .temperature)
        try recognizer.setRequestOptions(.init(language: "en", prompt: "Dashwood, Norland.", temperature: 0.2))
        try recognizer.startUtterance()
        try feed(recognizer, try WhisperFixtures.samples(Self.clip), from: 0)
        #expect(!(try recognizer.endUtterance().text.isEmpty))
    }

    @Test func aCancelledTaskStopsTheDecodeWithACancellationError() async throws {
        let samples = try WhisperFixtures.samples(Self.clip)
        let model = try WhisperFixtures.model()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let recognizer = try WhisperRecognizer(model: model)
                try recognizer.startUtterance()
                try feed(recognizer, samples + samples + samples + samples + samples, from: 0)
                withUnsafeCurrentTask { $0?.cancel() }
                #expect(throws: CancellationError.self) { try recognizer.endUtterance() }
                try recognizer.startUtterance()  // the utterance is closed: the recognizer takes the next
                recognizer.abandonUtterance()

                // An early decode under way when the caller is cancelled (a client that hung up as its
                // upload ended) is stopped, not waited out and given as the answer: the recognizer is
                // free at the decode's next check.
                try recognizer.startUtterance()
                try feed(recognizer, samples + samples, from: 0)
                recognizer.speechPaused(at: Self.speechEnd(heardThrough: 2 * samples.count))
                #expect(throws: CancellationError.self) { try recognizer.endUtterance() }
                #expect(recognizer.earlyDecodes == EarlyDecodeTally(begun: 1, used: 0, stopped: 1))
            }
            try await group.waitForAll()
        }
    }
}
