import EarshotCore
import EarshotCrypto
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotWhisper

/// Our Whisper base (multilingual) against faster-whisper 1.2.1 / CTranslate2 (float32, one thread),
/// greedy and with beam 5, the language left to detect: `Fixtures/faster-whisper-base-reference.json`,
/// written by `Benchmarks/whisper/reference_multilingual.py` from a sentence each in French, German
/// and Spanish spoken by eSpeak NG (rebuilt here byte for byte) and one LibriVox clip.
///
/// The detected language must be the reference's, its probability within 1e-3; the tokens, segment
/// times and word times exactly the reference's, greedy and with beam 5, as ``WhisperParityTests``
/// holds tiny.en to them; and translated into English (`task="translate"`), the same tokens, text
/// and segment times.
@Suite(.computing) struct WhisperMultilingualParityTests {
    struct Reference: Decodable {
        struct Clip: Decodable {
            var name: String
            /// The eSpeak NG voice and text the clip was spoken from (nil for a recording).
            var voice: String?
            var text: String?
            var sha256: String
            var samples: Int
            var language: String
            var language_probability: Double
            var greedy: [WhisperFixtures.Reference.Segment]
            var first_window: FirstWindow
            /// `transcribe` with faster-whisper's defaults: beam 5, the temperature fallback on.
            var beam5: [WhisperFixtures.Reference.Segment]
            var first_window_beam5: WhisperFixtures.Reference.Decode
            /// The sentence translated into English (eSpeak NG's clips only).
            var translate: [Translated]?
        }
        struct Translated: Decodable {
            var start: Double
            var end: Double
            var text: String
            var tokens: [Int]
        }
        struct FirstWindow: Decodable {
            var prompt: [Int]
            var tokens: [Int]
            var score: Double
            var no_speech_prob: Double
            /// The decode alone, in the shape tiny.en's reference records it, for the shared comparison.
            var decode: WhisperFixtures.Reference.Decode {
                .init(tokens: tokens, score: score, no_speech_prob: no_speech_prob)
            }
        }
        var clips: [Clip]
        var beam_sizes: [Int]
    }

    static let reference: Result<Reference, any Error> = Result {
        let url = WhisperFixtures.repository.appendingPathComponent(
            "Tests/EarshotWhisperTests/Fixtures/faster-whisper-base-reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    static let clipNames: [String] = (try? reference.get().clips.map(\.name)) ?? []
    /// The clips in another language than English.
    static let translatedClipNames: [String] =
        (try? reference.get().clips.filter { $0.translate != nil }.map(\.name)) ?? []

    /// Whisper base, found by name as `--whisper-model whisper-base` finds it (`make models` installs it).
    static let model: Result<WhisperModel, any Error> = Result {
        let places = ModelSearch.repositoryPlaces(under: [WhisperFixtures.repository.path])
        guard let folder = WhisperModel.locate(ModelCatalogue.whisperBase, in: places) else {
            throw EarshotError(.modelUnavailable, "whisper-base not installed: run `make models`")
        }
        return try WhisperModel(directory: folder)
    }

    /// The clip's 16 kHz samples: eSpeak NG's sentence taken to 16 kHz by sox (no dither), as the script
    /// made it, or the LibriVox recording; refused unless its bytes are the reference's.
    func clip(_ name: String) throws -> (Reference.Clip, [Float]) {
        let reference = try #require(try Self.reference.get().clips.first { $0.name == name })
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path: String
        if let voice = reference.voice, let text = reference.text {
            let raw = directory.file("\(voice)-22050.wav")
            path = directory.file("\(voice).wav")
            try WhisperParityTests.require(ExternalTool.run(["espeak-ng", "-v", voice, "-w", raw, text]))
            try WhisperParityTests.require(ExternalTool.run(["sox", "-D", raw, "-r", "16000", "-b", "16", path]))
        } else {
            path = "/usr/share/pocketsphinx/test/data/librivox/" + String(name.dropFirst("librivox/".count))
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let digest = SHA256.hash(data).hexadecimal
        try #require(
            digest == reference.sha256,
            "\(name): the rebuilt audio differs from the reference's (another eSpeak NG or sox?); rerun Benchmarks/whisper/reference_multilingual.py"
        )
        return (reference, try WhisperFixtures.samples(path))
    }

    @Test func theReferenceCoversThreeLanguagesBesideEnglishGreedyAndWithBeam5() throws {
        let reference = try Self.reference.get()
        #expect(reference.beam_sizes == [1, 5])
        #expect(Set(reference.clips.map(\.language)) == ["fr", "de", "es", "en"])
        // Where faster-whisper fell back to sampling, only the fallback itself could be compared.
        #expect(!reference.clips.contains { ($0.greedy + $0.beam5).contains { $0.temperature > 0 } })
    }

    @Test(arguments: clipNames)
    func theLanguageIsDetectedAsFasterWhisperDoes(name: String) throws {
        let (reference, samples) = try clip(name)
        let transcriber = try WhisperTranscriber(model: try Self.model.get())
        let languages = samples.withUnsafeBufferPointer { transcriber.detectLanguage($0) }
        #expect(languages.count == 99)
        #expect(abs(languages.map(\.probability).reduce(0, +) - 1) < 1e-9)
        #expect(languages[0].code == reference.language, "\(name): \(languages.prefix(3))")
        #expect(
            abs(languages[0].probability - reference.language_probability) < 1e-3,
            "\(name): \(languages[0].probability) vs \(reference.language_probability)")
    }

    @Test(arguments: clipNames)
    func theFirstWindowDecodesToTheReferenceTokens(name: String) throws {
        let (reference, samples) = try clip(name)
        let model = try Self.model.get()
        let transcriber = try WhisperTranscriber(model: model)
        #expect(try model.tokenizer.startSequence(language: reference.language) == reference.first_window.prompt)
        for (beam, expected) in [(1, reference.first_window.decode), (5, reference.first_window_beam5)] {
            let ours = try samples.withUnsafeBufferPointer {
                try transcriber.decodeFirstWindow(
                    $0, options: WhisperOptions(beamSize: beam, language: reference.language))
            }
            WhisperParityTests().compare(ours, expected, "\(name) beam \(beam)")
        }
    }

    /// The whole transcript with the language detected, as `transcribe(beam_size=1, temperature=0)`
    /// and as `transcribe()` with its defaults (beam 5, the temperature fallback on).
    @Test(arguments: clipNames)
    func transcriptsMatchFasterWhisperGreedyAndWithBeam5(name: String) throws {
        let (reference, samples) = try clip(name)
        let transcriber = try WhisperTranscriber(model: try Self.model.get())
        let runs = [
            ("greedy", WhisperOptions(beamSize: 1, temperatures: [0]), reference.greedy),
            ("beam 5", WhisperOptions(beamSize: 5), reference.beam5),
        ]
        for (label, options, expected) in runs {
            let ours = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) }
            #expect(transcriber.language?.code == reference.language, "\(name) \(label)")
            #expect(abs((transcriber.language?.probability ?? 0) - reference.language_probability) < 1e-3)
            WhisperParityTests().compare(ours, expected, "\(name) \(label)")
        }
    }

    /// English from French, German and Spanish, as `transcribe(task="translate", beam_size=1,
    /// temperature=0, word_timestamps=False)`: the same tokens, text and segment times.
    @Test(arguments: translatedClipNames)
    func translationsMatchFasterWhisperGreedy(name: String) throws {
        let (reference, samples) = try clip(name)
        let expected = try #require(reference.translate)
        let transcriber = try WhisperTranscriber(model: try Self.model.get())
        var options = WhisperOptions(beamSize: 1, temperatures: [0], wordTimestamps: false)
        options.task = .translate
        let ours = try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) }
        #expect(transcriber.language?.code == reference.language, "the language spoken, not English")
        #expect(ours.map(\.tokens) == expected.map(\.tokens), "\(name): \(ours.map(\.text)) vs \(expected.map(\.text))")
        #expect(ours.map(\.text) == expected.map(\.text))
        for (segment, reference) in zip(ours, expected) {
            #expect(abs(segment.start - reference.start) < 1e-3 && abs(segment.end - reference.end) < 1e-3, "\(name)")
        }
    }

    /// English-only models do not translate: refused naming the model, never a transcript passed off as
    /// a translation.
    @Test func anEnglishOnlyModelRefusesToTranslate() throws {
        let tiny = try WhisperFixtures.model()
        var options = WhisperOptions(beamSize: 1, temperatures: [0])
        options.task = .translate
        let transcriber = try WhisperTranscriber(model: tiny)
        let samples = [Float](repeating: 0.1, count: 16_000)
        let error = try #require(
            throws: EarshotError.self,
            performing: { try samples.withUnsafeBufferPointer { try transcriber.transcribe($0, options: options) } })
        #expect(error.message.contains("tiny.en") && error.message.contains("English only"), "\(error.message)")
    }
}
