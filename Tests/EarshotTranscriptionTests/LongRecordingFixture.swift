import EarshotCore
import EarshotIO
import EarshotLab
import EarshotRecognizer
import EarshotTesting
import EarshotTranscription
import Foundation

/// One recording of the long corpus, built once per test run (two minutes, to keep the suite quick),
/// and its transcript by the embedded recognizer with two jobs (made once, by the first test to ask).
enum LongRecordingFixture {
    struct Built: Sendable {
        var entry: CorpusEntry
        var audio: AudioBuffer
    }

    static let built = Task<Built, any Error> {
        let made = try await CorpusBuilder.utterances(
            .long, options: RecipeOptions(seed: 3, limit: 1, minimumRecordingDuration: 120))
        let utterance = made[0]
        return Built(entry: utterance.entry, audio: AudioBuffer(format: .wideband, samples: utterance.samples))
    }

    static let transcript = Task<Transcript, any Error> {
        let recording = try await built.value
        let settings = try TranscriptionSettings(jobs: 2)
        var transcripts: [Transcript] = []
        try await BatchTranscriber.run(
            count: 1, settings: settings,
            open: { _ in BufferSource(buffer: recording.audio, name: recording.entry.path) },
            makeTranscriber: { try EmbeddedTranscriber() }
        ) { event in
            if case .transcribed(_, let transcript) = event { transcripts.append(transcript) }
        }
        return transcripts[0]
    }
}

/// A buffer read back in 4096-frame blocks, as a file source would give it, described as `name`.
struct BufferSource: AudioSource {
    let buffer: AudioBuffer
    let name: String
    var position = 0
    var format: AudioFormat { buffer.format }
    var inputDescription: InputDescription {
        InputDescription(
            name: name, container: "memory", encoding: "float", sampleRate: format.sampleRate,
            channelCount: format.channelCount, duration: buffer.duration)
    }

    init(buffer: AudioBuffer, name: String = "memory") {
        self.buffer = buffer
        self.name = name
    }

    mutating func read() throws -> AudioBuffer? {
        guard position < buffer.frameCount else { return nil }
        let end = min(position + 4096, buffer.frameCount)
        defer { position = end }
        return AudioBuffer(
            format: format, samples: Array(buffer.samples[position..<end]), startFrame: Int64(position))
    }
}
