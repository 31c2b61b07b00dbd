import EarshotCore
import EarshotIO
import EarshotRecognizer
import Foundation

/// The long corpus: real speech joined into recordings of ten minutes and more, to measure what long-file
/// transcription does to words at its seams.
///
/// Sources: the LibriVox, cards and `goforward` clips of `pocketsphinx-testdata` (``RealRecipe``'s, without
/// the ALSA prompts, which are synthesized), each aligned once with ``ForcedAligner``. A recording is
/// the clips in a shuffled order, reshuffled each time they run out, each followed by a pause of
/// 0.3–2.5 s — between a breath and a change of speaker — until it is at least
/// ``RecipeOptions/minimumRecordingDuration`` long (default 600 s), with 0.3–1.0 s before the first clip
/// and 1.0–2.0 s after the last. Pauses are never digital silence: each is noise shaped like the
/// preceding clip's own background at its level (``RoomTone``), as the real corpus pads its clips.
///
/// Labels: the aligned words moved to where their clip lies; speech is those words with pauses under
/// 200 ms merged; the transcript is the clips' texts in order. The `clips` tag lists the clip ids in
/// order, so scores can be broken down by clip. ``RecipeOptions/limit`` builds only the first recordings.
enum LongRecipe {
    /// Recordings in a full build.
    static let recordingCount = 2
    static let defaultDuration = 600.0

    struct Clip {
        var id: String
        var samples: [Float]
        var transcript: String
        var words: [TimedWord]
        var shape: [Double]?
        var floor: Double
        var source: String
    }

    static func utterances(options: RecipeOptions, progress: (String) -> Void) throws -> [RecipeUtterance] {
        let target = RecipeAudio.frames(options.minimumRecordingDuration ?? defaultDuration)
        let clips = try alignedClips(progress: progress)
        var out: [RecipeUtterance] = []
        for recording in 0..<min(options.limit ?? recordingCount, recordingCount) {
            progress("long: joining recording \(recording + 1)")
            var random = options.random(100 + UInt64(recording))
            var order: [Int] = []
            var samples: [Float] = []
            var words: [TimedWord] = []
            var ids: [String] = []
            var transcripts: [String] = []
            var previous: Clip?
            while samples.count < target {
                if order.isEmpty { order = random.shuffled(Array(clips.indices)) }
                let clip = clips[order.removeFirst()]
                let lead = random.uniform(previous == nil ? 0.3...1.0 : 0.3...2.5)
                samples += roomTone(like: previous ?? clip, seconds: lead, using: &random)
                let offset = RecipeAudio.seconds(samples.count)
                words += clip.words.map { TimedWord(word: $0.word, start: $0.start + offset, end: $0.end + offset) }
                samples += clip.samples
                ids.append(clip.id)
                transcripts.append(clip.transcript)
                previous = clip
            }
            if let last = previous {
                samples += roomTone(like: last, seconds: random.uniform(1.0...2.0), using: &random)
            }
            let sources = Set(clips.map(\.source)).sorted().joined(separator: ", ")
            out.append(
                CorpusBuilder.utterance(
                    path: String(format: "audio/long-%03d.wav", recording + 1), samples: samples,
                    speech: SpeechSegments.segments(from: words), transcript: transcripts.joined(separator: " "),
                    words: words,
                    tags: [
                        "source": sources, "licence": "public-domain (LibriVox); BSD-2-Clause (pocketsphinx-testdata)",
                        "labels": "forced-alignment", "padding": "background-shaped-noise",
                        "clips": ids.joined(separator: ","),
                    ]))
        }
        return out
    }

    /// The pocketsphinx-testdata clips of the real corpus, resampled, aligned, with their backgrounds.
    static func alignedClips(progress: (String) -> Void) throws -> [Clip] {
        let aligner = try ForcedAligner()
        let rawFormat = RawPCMFormat(format: RecipeAudio.format, encoding: .s16le)
        return try RealRecipe.sources().filter { $0.tags["source"]?.hasPrefix("pocketsphinx-testdata") == true }.map {
            source in
            progress("long: aligning \(source.id)")
            let samples = try RecipeAudio.load(source.path, raw: source.raw ? rawFormat : nil)
            return Clip(
                id: source.id, samples: samples, transcript: source.transcript,
                words: try aligner.align(transcript: source.transcript, samples: samples),
                shape: RoomTone.predictor(RoomTone.background(of: samples)),
                floor: min(max(NoiseFloor.estimate(samples), NoiseFloor.syntheticDBFS), -40),
                source: source.tags["source"] ?? "pocketsphinx-testdata")
        }
    }

    /// `seconds` of noise shaped like `clip`'s background, at its level (white if it has none).
    private static func roomTone(like clip: Clip, seconds: Double, using random: inout SplitMix64) -> [Float] {
        let frames = RecipeAudio.frames(seconds)
        guard let shape = clip.shape else {
            return NoiseFloor.samples(frames: frames, dBFS: clip.floor, using: &random)
        }
        return RoomTone.noise(frames: frames, coefficients: shape, dBFS: clip.floor, using: &random)
    }
}
