public import EarshotCore
import EarshotDSP
import EarshotIO
import Foundation

/// What a decoder sweep decodes: the transcribed recordings of one or more corpora, read once at
/// 16 kHz mono and cut into utterances where their labels say speech is, so every setting decodes
/// exactly the same samples and only the decoder differs.
///
/// An utterance is a run of labelled speech, joined across pauses shorter than ``joinedPause`` (the
/// endpointer's default `endingSilence`, so it is cut where a live endpoint would cut it) and padded
/// by ``padding`` on each side (within the recording and never into the previous utterance). The
/// audio is held as 100 ms buffers, so slicing costs nothing while a setting is timed.
public struct DecoderTestSet: Sendable {
    /// Pauses shorter than this stay inside one utterance, in seconds.
    public static let joinedPause = 0.85
    /// Audio kept before and after each utterance's labelled speech, in seconds.
    public static let padding = 0.3
    /// Frames per buffer fed to the recognizer (100 ms at 16 kHz).
    static let blockFrames = 1_600

    public struct Recording: Sendable {
        /// The corpus folder and the entry's path in it, for messages.
        public var name: String
        public var transcript: String
        /// Each utterance's audio, as contiguous buffers in media time.
        public var utterances: [[AudioBuffer]]
    }

    public var recordings: [Recording]

    /// Seconds of audio decoded in all (utterances only, not the pauses between them).
    public var audioSeconds: Double {
        recordings.flatMap(\.utterances).flatMap { $0 }.map(\.duration).reduce(0, +)
    }

    public var utteranceCount: Int { recordings.map(\.utterances.count).reduce(0, +) }

    /// Reads every entry of `corpora`. An entry without a transcript is an error naming it (its words
    /// could not be scored).
    public init(corpora: [Corpus]) throws {
        recordings = try corpora.flatMap { corpus in
            try corpus.entries.map { entry in
                let name = corpus.directory + "/" + entry.path
                guard let transcript = entry.transcript, !transcript.isEmpty else {
                    throw EarshotError(
                        .invalidInput,
                        "\(corpus.manifestPath): \(entry.path): field 'transcript' is missing; a decoder sweep "
                            + "scores words, so every recording needs one")
                }
                let samples = try Self.read(corpus.audioPath(of: entry))
                let utterances = Self.cuts(of: entry.speech, duration: Double(samples.count) / 16_000).map {
                    Self.buffers(samples, from: $0.lowerBound, to: $0.upperBound)
                }
                return Recording(name: name, transcript: transcript, utterances: utterances)
            }
        }
    }

    /// Frame ranges at 16 kHz of the utterances of labelled `speech` in a recording of `duration` s.
    static func cuts(of speech: [LabeledSegment], duration: Double) -> [Range<Int>] {
        var joined: [(start: Double, end: Double)] = []
        for segment in speech.sorted(by: { $0.start < $1.start }) {
            if let last = joined.last, segment.start - last.end < joinedPause {
                joined[joined.count - 1].end = max(last.end, segment.end)
            } else {
                joined.append((segment.start, segment.end))
            }
        }
        var previousEnd = 0
        return joined.compactMap { run in
            let start = max(previousEnd, Int(((run.start - padding) * 16_000).rounded()))
            let end = min(Int((duration * 16_000).rounded()), Int(((run.end + padding) * 16_000).rounded()))
            guard end > start else { return nil }
            previousEnd = end
            return start..<end
        }
    }

    private static func buffers(_ samples: [Float], from start: Int, to end: Int) -> [AudioBuffer] {
        stride(from: start, to: end, by: blockFrames).map { first in
            AudioBuffer(
                format: .wideband, samples: Array(samples[first..<min(first + blockFrames, end)]),
                startFrame: Int64(first))
        }
    }

    /// The whole recording at `path`, resampled to 16 kHz mono.
    private static func read(_ path: String) throws -> [Float] {
        var source = try AudioInput.open(path: path, raw: nil, codec: nil, blockFrames: 4096)
        // At 16 kHz mono already, the resampler passes the samples through untouched.
        var resampler = try Resampler(inputFormat: source.format, configuration: .init(sampleRate: 16_000))
        var samples: [Float] = []
        try Pipeline.run(&source, through: &resampler) { output in
            for item in output.items { samples += item.samples }
        }
        return samples
    }
}
