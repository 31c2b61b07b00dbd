import EarshotCore
import EarshotLab
import EarshotTestTraits
import EarshotTesting
import EarshotVAD
import Foundation
import Testing

@testable import EarshotRecognizer
@testable import EarshotTranscription

/// The done-when checks of long-file transcription, on a recording of the long corpus.
@Suite(.serialized, .computing) struct LongRecordingTests {
    @Test func noLabelledWordIsCutBySegmentBoundaries() async throws {
        let recording = try await LongRecordingFixture.built.value
        let words = try #require(recording.entry.words)
        #expect(recording.audio.duration >= 120 && words.count > 150)
        let chunker = try UtteranceChunker(configuration: UtteranceChunkerConfiguration())
        var output = StageOutput<UtteranceChunk>()
        for block in Signal.blocks(of: recording.audio, frames: 4096) { try chunker.process(block, into: &output) }
        try chunker.finish(into: &output)
        let chunks = output.items
        #expect(chunks.count >= 5)
        #expect(chunks.allSatisfy { $0.audio.duration <= 25 })
        for chunk in chunks.dropLast() {
            #expect(chunk.cut == .pause)
            let cut = chunk.end.seconds
            let split = words.filter { $0.start < cut && cut < $0.end }
            #expect(split.isEmpty, "cut at \(cut) s splits \(split)")
        }
        print("long recording: \(chunks.count) segments, lengths \(chunks.map { Int($0.audio.duration.rounded()) }) s")
    }

    @Test func transcriptIsInMediaTimeOrderAndCloseToTheReference() async throws {
        let recording = try await LongRecordingFixture.built.value
        let transcript = try await LongRecordingFixture.transcript.value
        #expect(abs(transcript.duration - recording.audio.duration) < 1e-6)
        for (previous, next) in zip(transcript.segments, transcript.segments.dropFirst()) {
            #expect(previous.end == next.start)
        }
        let words = transcript.words
        for (previous, next) in zip(words, words.dropFirst()) { #expect(previous.end <= next.start) }
        let score = WordErrorRate(reference: try #require(recording.entry.transcript), hypothesis: transcript.text)
        print("long recording, 2 jobs: \(score)")
        // The short clips alone score 0.31–0.37 (LibriVox); a seam that lost words would show here.
        #expect(score.rate < 0.42)
    }

    @Test(arguments: [TranscriptFormat.srt, .vtt])
    func subtitlesParseWithFFmpegAndFollowTheLabelledSpeech(format: TranscriptFormat) async throws {
        let recording = try await LongRecordingFixture.built.value
        let transcript = try await LongRecordingFixture.transcript.value
        let parameters = TranscriptParameters(
            embedded: .default, decoder: .default, settings: try TranscriptionSettings(jobs: 2))
        let text = try format.render(transcript, parameters: parameters)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Array(text.utf8), to: "out." + format.rawValue)
        // ffmpeg reads the file and writes its cues back as SubRip: it must find every one, at our times.
        let parsed = try ExternalTool.run([
            "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0", "-c:s", "srt", "-f", "srt", "-",
        ])
        #expect(parsed.status == 0 && parsed.standardError.isEmpty, "ffmpeg: \(parsed.standardError)")

        let cues = SubtitleLayout().cues(for: transcript.words, speech: transcript.speech)
        let timings = parsed.output.split(separator: "\n").filter { $0.contains(" --> ") }.map(String.init)
        #expect(
            timings
                == cues.map {
                    "\(SubtitleWriter.timestamp($0.start, ",")) --> \(SubtitleWriter.timestamp($0.end, ","))"
                })
        #expect(cues.count >= 20)
        // Distance from a cue boundary to the nearest labelled speech (0 inside it).
        let speech = recording.entry.speech
        func distance(_ time: Double) -> Double {
            speech.map { max($0.start - time, time - $0.end, 0) }.min() ?? .infinity
        }
        var late: [String] = []
        for cue in cues {
            #expect(distance(cue.start) <= 0.3, "cue \(cue.start)–\(cue.end) \(cue.lines) starts in a pause")
            if distance(cue.end) > 0.3 { late.append("\(cue.start)–\(cue.end) \(cue.lines)") }
            // An end may trail speech only while the VAD still hears its tail (a reverberant "s").
            #expect(distance(cue.end) <= 0.6, "cue \(cue.start)–\(cue.end) \(cue.lines) ends in a pause")
            #expect(cue.end - cue.start <= 7 && cue.lines.count <= 2)
            #expect(cue.lines.allSatisfy { $0.count <= 42 || !$0.contains(" ") })
        }
        print("\(format.rawValue): \(cues.count) cues; ends more than 0.3 s past labelled speech: \(late)")
        // Only a cue ending in a word inserted over a tail may be late (one here, "clubs staff").
        #expect(late.count * 10 <= cues.count)
    }
}
