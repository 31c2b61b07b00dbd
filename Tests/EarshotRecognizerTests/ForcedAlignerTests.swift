import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@Suite(.serialized, .computing) struct ForcedAlignerTests {
    static func load(_ path: String) throws -> [Float] {
        var source = try AudioInput.open(path: path)
        var resampler = try Resampler(inputFormat: source.format)
        var samples: [Float] = []
        try Pipeline.run(&source, through: &resampler) { output in
            for buffer in output.items { samples.append(contentsOf: buffer.samples) }
        }
        return samples
    }

    @Test func alignsEveryLibriVoxClipInOrderInsideTheClip() throws {
        let aligner = try ForcedAligner()
        for clip in try LibriVoxClips.load() {
            let samples = try Self.load(clip.path)
            let duration = Double(samples.count) / 16_000
            let words = try aligner.align(transcript: clip.transcript, samples: samples)
            #expect(words.map(\.word) == clip.transcript.split(separator: " ").map(String.init))
            var previousEnd = 0.0
            for word in words {
                #expect(word.start >= previousEnd && word.end > word.start && word.end <= duration, "\(word)")
                // Times are whole 10 ms frames.
                #expect(abs(word.start * 100 - (word.start * 100).rounded()) < 1e-6)
                previousEnd = word.end
            }
        }
    }

    @Test func aWordOutsideTheDictionaryIsNamed() throws {
        let samples = try Self.load(LibriVoxClips.load()[1].path)
        let error = try thrownEarshotError {
            _ = try ForcedAligner().align(transcript: "he was not an zqxjvbrt young man", samples: samples)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("\"zqxjvbrt\" is not in the dictionary") == true)
    }

    @Test func aTranscriptTheAudioDoesNotHoldFailsInsteadOfGuessing() throws {
        let silence = [Float](repeating: 0, count: 16_000)
        #expect(throws: EarshotError.self) {
            _ = try ForcedAligner().align(transcript: "he was not an ill disposed young man", samples: silence)
        }
    }

    /// Measures the boundary error on synthesized speech, whose true extent is known exactly (the
    /// synthesizer writes digital silence around it): the aligned start of the first word and end of
    /// the last word against the first and last sample within 45 dB of the loudest 10 ms frame.
    @Test func boundaryErrorOnSynthesizedSpeechIsTensOfMilliseconds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let aligner = try ForcedAligner()
        let phrases = [
            "turn on the kitchen lights", "set a timer for twelve minutes", "what time does the library close today",
            "the battery is almost empty",
        ]
        var errors: [Double] = []
        for voice in ["en-us", "en+f3", "en-us+m3"] {
            for phrase in phrases {
                let path = directory.file("phrase.wav")
                let result = try ExternalTool.run(["espeak-ng", "-v", voice, "-s", "160", "-w", path, phrase])
                try #require(result.status == 0)
                // Half a second of silence either side, as a file would have; the speech is measured
                // before a −66 dBFS noise floor is added, because PocketSphinx cannot align digital zeros.
                let clean =
                    [Float](repeating: 0, count: 8000) + (try Self.load(path)) + [Float](repeating: 0, count: 8000)
                let floor = Signal.whiteNoise(
                    amplitude: 0.00087, seconds: Double(clean.count) / 16_000, format: .wideband)
                let samples = zip(clean, floor.samples).map { $0 + $1 }
                let frame = 160
                let energies = stride(from: 0, to: clean.count - frame, by: frame).map { start in
                    clean[start..<start + frame].reduce(0) { $0 + Double($1 * $1) } / Double(frame)
                }
                let threshold = energies.max()! * pow(10, -4.5)
                let first = Double(energies.firstIndex { $0 >= threshold }! * frame) / 16_000
                let last = Double((energies.lastIndex { $0 >= threshold }! + 1) * frame) / 16_000
                let words = try aligner.align(transcript: phrase, samples: samples)
                errors += [abs(words.first!.start - first), abs(words.last!.end - last)]
            }
        }
        let sorted = errors.sorted()
        let mean = errors.reduce(0, +) / Double(errors.count)
        let median = sorted[sorted.count / 2]
        print("forced alignment boundary error on espeak-ng: mean \(mean) s, median \(median) s, max \(sorted.last!) s")
        #expect(median <= 0.05)
        #expect(mean <= 0.08)
    }
}
