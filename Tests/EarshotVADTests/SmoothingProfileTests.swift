import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotVAD

/// The two smoothing profiles on ONNX Runtime's Silero probabilities (the parity fixture), against
/// Silero's own `get_speech_timestamps` of the same probabilities (`Benchmarks/vad/timestamps.py
/// --fixture`): `speech` reports what Silero reports, `cutting` ends each segment later.
@Suite(.computing) struct SmoothingProfileTests {
    struct Timestamps: Decodable {
        struct Recording: Decodable {
            var path: String
            var segments: [[Double]]
        }
        var recordings: [Recording]
    }

    static func timestamps() throws -> Timestamps {
        let url = SileroFixtures.repository.appendingPathComponent("Tests/EarshotVADTests/Fixtures/silero_timestamps.json")
        return try JSONDecoder().decode(Timestamps.self, from: Data(contentsOf: url))
    }

    /// Speech segments, in seconds, from the reference probabilities of one recording, 512-sample hops
    /// as the Silero detector delivers them (the last one short).
    static func segments(_ recording: SileroFixtures.Reference.Recording, _ profile: SmoothingProfile) throws
        -> [[Double]]
    {
        var smoother = try DecisionSmoother(configuration: try profile.configuration(), sampleRate: 16_000, hopLength: 512)
        var output = StageOutput<VADDecision>()
        for (index, probability) in recording.probabilities.enumerated() {
            let start = index * 512
            let frame = VADFrame(
                start: MediaTime(frame: Int64(start), sampleRate: 16_000),
                frameCount: min(512, recording.samples - start), probability: probability)
            try smoother.process(frame, into: &output)
        }
        try smoother.finish(into: &output)
        var segments: [[Double]] = []
        for decision in output.items where decision.isSpeech {
            let start = Double(decision.start.frame) / 16_000
            let end = Double(decision.end.frame) / 16_000
            if let last = segments.last, abs(last[1] - start) < 1e-9 {
                segments[segments.count - 1][1] = end
            } else {
                segments.append([start, end])
            }
        }
        return segments
    }

    @Test func speechProfileReportsSileroTimestamps() throws {
        let reference = try SileroFixtures.reference()
        let expected = try Self.timestamps()
        try #require(reference.recordings.map(\.path) == expected.recordings.map(\.path))
        var lateEnds: [Double] = []
        for (recording, silero) in zip(reference.recordings, expected.recordings) {
            let speech = try Self.segments(recording, .speech)
            #expect(speech.count == silero.segments.count, "\(recording.path)")
            // Silero pads by 30 ms; the smoother pads by whole 32 ms hops: 2 ms apart, plus rounding.
            for (ours, theirs) in zip(speech, silero.segments) {
                #expect(abs(ours[0] - theirs[0]) <= 0.003, "\(recording.path): start \(ours[0]) vs \(theirs[0])")
                // One difference, at the end of a stream: Silero keeps a segment open through a final
                // silence shorter than its minimum and ends it with the audio; the smoother ends it where
                // the silence began (cards/001.wav: 1.024 s vs the recording's end, 1.095 s).
                let duration = Double(recording.samples) / 16_000
                if theirs[1] >= duration - 1e-3 && ours[1] < theirs[1] { continue }
                #expect(abs(ours[1] - theirs[1]) <= 0.003, "\(recording.path): end \(ours[1]) vs \(theirs[1])")
            }
            let cutting = try Self.segments(recording, .cutting)
            lateEnds += zip(cutting, silero.segments).map { $0[1] - $1[1] }
        }
        // The recordings hold speech, and the cutting profile's hangover ends it later (unless at the
        // end of the recording), so the comparison above can tell the two apart.
        #expect(expected.recordings.contains { !$0.segments.isEmpty })
        #expect(lateEnds.contains { $0 >= 0.04 }, "cutting ends: \(lateEnds)")
    }

    @Test func cuttingIsTheLibraryDefaultAndSpeechDiffersOnlyInHangover() throws {
        #expect(try SmoothingProfile.cutting.configuration() == SmoothingConfiguration())
        let speech = try SmoothingProfile.speech.configuration()
        #expect(speech.hangover == 0)
        #expect(try SmoothingConfiguration(hangover: 0) == speech)
    }
}
