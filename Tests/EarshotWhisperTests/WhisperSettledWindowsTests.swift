import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotWhisper

/// Issue 47: a live utterance longer than one window has the windows the speaker has gone past decoded
/// while they go on (``WhisperWindowsSettled``), so only the last is left when they stop.
@Suite(.computing) struct WhisperSettledWindowsTests {
    /// 34 s of speech with no pause the service would end an utterance at: the five LibriVox clips and
    /// the five card clips back to back.
    static let speech = Result { () throws -> [Float] in
        let librivox = try WhisperEncoderWindowTests.clips().map(\.path)
        let cards = (1...5).map { "/usr/share/pocketsphinx/test/data/cards/00\($0).wav" }
        return try (librivox + cards).flatMap { try WhisperFixtures.samples($0) }
    }

    @Test func theFirstWindowsSettledAndTheRestDecodedAfterThemGiveTheWholeDecodesSegments() throws {
        let samples = try Self.speech.get()
        let transcriber = try WhisperTranscriber(model: try WhisperFixtures.model())
        let whole = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0) }
        // What a live stream has when it is 32 s in: the first window, with audio after it.
        let heard = Array(samples.prefix(32 * 16_000))
        let settled = try heard.withUnsafeBufferPointer {
            try transcriber.transcribe($0, after: nil, settlingOnly: true)
        }
        #expect(settled.samples > 0 && settled.samples <= 30 * 16_000, "\(settled.samples)")
        #expect(settled.segments.last.map { $0.end * 16_000 <= Double(settled.samples) } == true)
        // Nothing more to settle in the same audio: the window after the settled ones is the last.
        let again = try heard.withUnsafeBufferPointer {
            try transcriber.transcribe($0, after: settled, settlingOnly: true)
        }
        #expect(again == settled)
        let finished = try samples.withUnsafeBufferPointer {
            try transcriber.transcribe($0, after: settled, settlingOnly: false)
        }
        #expect(finished.segments.map(\.text) == whole.map(\.text))
        #expect(finished.segments.map(\.start) == whole.map(\.start))
    }

    /// Nothing settled yet is a fresh start: the first window keeps its initial prompt (a custom language
    /// model's words reach a live decode through it).
    @Test func nothingSettledKeepsTheInitialPrompt() throws {
        let samples = try WhisperFixtures.samples(WhisperRecognizerTests.clip)
        let transcriber = try WhisperTranscriber(model: try WhisperFixtures.model())
        let options = WhisperOptions(initialPrompt: "Marianne, Elinor, Dashwood. Had he married a more amiable woman")
        let prompted = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) }
        let unprompted = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0) }
        let fresh = try samples.withUnsafeBufferPointer {
            try transcriber.transcribe($0, options: options, after: WhisperWindowsSettled(), settlingOnly: false)
        }
        #expect(fresh.segments == prompted)
        // The prompt matters here, so the comparison above can tell a prompt kept from one dropped.
        #expect(prompted.map(\.tokens) != unprompted.map(\.tokens))
    }

    /// Through a recognizer fed at once, as a live stream's pieces come: one decode settles the first
    /// window before the utterance ends, and the result is the whole decode's, words in order.
    @Test func aRecognizerSettlesTheWindowsTheStreamHasGonePast() throws {
        let samples = try Self.speech.get()
        let model = try WhisperFixtures.model()
        let recognizer = try WhisperRecognizer(model: model, slots: ComputeSlots(count: 1))
        try recognizer.startUtterance()
        try WhisperRecognizerTests().feed(recognizer, samples, from: 0, piece: 1_600)
        let result = try recognizer.endUtterance()
        #expect(recognizer.settlingDecodes == 1)
        let transcriber = try WhisperTranscriber(model: model)
        var options = WhisperOptions()
        options.boundsLoops = true
        let whole = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) }
        let text = whole.map(\.text).joined().trimmingCharacters(in: .whitespaces)
        #expect(result.hypotheses.first?.text == text)
        let starts = result.hypotheses.first?.words.map(\.start) ?? []
        #expect(starts == starts.sorted())
        // An utterance dropped while its windows are being settled stops that decode and frees the transcriber.
        try recognizer.startUtterance()
        try WhisperRecognizerTests().feed(recognizer, samples, from: 0, piece: 1_600)
        recognizer.abandonUtterance()
        // Audio that is all there (a file's segment, an upload faster than real time) settles nothing: it
        // is decoded when it ends, to the same words.
        try recognizer.startUtterance()
        recognizer.noteStreamPace(isLive: false)
        try WhisperRecognizerTests().feed(recognizer, samples, from: 0, piece: 1_600)
        #expect(try recognizer.endUtterance().text == text)
        #expect(recognizer.settlingDecodes == 1)
        // A short utterance settles nothing.
        try recognizer.startUtterance()
        try recognizer.accept(
            AudioBuffer(format: .wideband, samples: try WhisperFixtures.samples(WhisperRecognizerTests.clip)))
        #expect(try recognizer.endUtterance().text == WhisperRecognizerTests.expected)
        #expect(recognizer.settlingDecodes == 1)
    }
}
