import EarshotCore
import EarshotSynthesis
import Foundation

/// The synthetic corpus: utterances of two to four phrases from ``Phrases``, spoken in-process by the
/// synthesis stage (``Synthesis``): eSpeak NG (several voices and variants, 140–200 words per minute) and
/// Flite's kal16 diphone voice, with pauses of 0.2–1.5 s between phrases, so an endpointer that ends
/// too early is caught.
///
/// Labels are exact: each phrase is synthesized alone, its leading and trailing synthesizer silence
/// is trimmed, and its speech is found on the clean signal (10 ms frames within 45 dB of the loudest,
/// pauses under 200 ms merged) before the phrases are joined. The file then gets 0.3–1.0 s before,
/// 3.0–4.0 s after, a level of −26 to −18 dBFS RMS over speech, and a −66 dBFS white-noise floor.
/// The same seed gives byte-identical files from a fresh process, as `earshot corpus build` runs it
/// (a second build in one process differs by a few samples: see ``ESpeakEngine``).
enum SyntheticRecipe {
    /// How many utterances a full build makes (about 19 minutes of audio).
    static let utteranceCount = 100

    /// eSpeak NG voices and variants, and Flite's kal16 (the CMU kal diphone voice, which the recipe
    /// had from festival's `text2wave`, and its eSpeak voices from the `espeak-ng` program, until the
    /// synthesis stage existed; the corpus changed with that on 2026-11-27).
    static let voiceNames = [
        "espeak-ng:en-us", "espeak-ng:en-gb", "espeak-ng:en-gb+f3", "espeak-ng:en-us+m3",
        "espeak-ng:en-gb-x-rp+f2", "espeak-ng:en-029", "espeak-ng:en-gb-scotland+m4", "espeak-ng:en-us+f4",
        "flite:kal16",
    ]

    /// The speaking rate Flite's voices are taken to have at rate 1, in words per minute.
    static let fliteWordsPerMinute = 170.0

    static func utterances(options: RecipeOptions, progress: (String) -> Void) async throws -> [RecipeUtterance] {
        var voices: [Voice] = []
        for name in voiceNames {
            voices.append(try await Synthesis.voice(named: name, field: "synthetic recipe voice"))
        }
        var random = options.random(2)
        var out: [RecipeUtterance] = []
        let count = min(utteranceCount, options.limit ?? .max)
        for index in 0..<count {
            let voice = voices[index % voices.count]
            let rate = random.integer(140...200)
            let phraseCount = random.integer(2...4)
            let texts = Array(random.shuffled(Phrases.all).prefix(phraseCount))
            let id = String(format: "syn-%03d", index + 1)
            progress("synthetic: \(id) (\(voice.name), \(rate) wpm)")
            var samples = [Float](repeating: 0, count: RecipeAudio.frames(random.uniform(0.3...1.0)))
            var speech: [LabeledSegment] = []
            for (position, text) in texts.enumerated() {
                if position > 0 {
                    samples += [Float](repeating: 0, count: RecipeAudio.frames(random.uniform(0.2...1.5)))
                }
                let phrase = try await synthesize(text, voice: voice, wordsPerMinute: rate)
                guard let active = SpeechSegments.activeRange(of: phrase, sampleRate: RecipeAudio.sampleRate) else {
                    throw EarshotError(.invalidInput, "\(voice.qualifiedName) produced silence for \"\(text)\"")
                }
                let trimmed = Array(phrase[active])
                let offset = RecipeAudio.seconds(samples.count)
                speech += SpeechSegments.activeSegments(of: trimmed, sampleRate: RecipeAudio.sampleRate).map {
                    LabeledSegment(start: $0.start + offset, end: $0.end + offset)
                }
                samples += trimmed
            }
            samples += [Float](repeating: 0, count: RecipeAudio.frames(random.uniform(3.0...4.0)))
            speech = SpeechSegments.merged(speech)
            let level = pow(10, random.uniform(-26 ... -18) / 20)
            let gain = Float(level / SNRMixer.power(samples, over: speech).squareRoot())
            // The floor draws as many numbers as the file has samples: from a generator of its own, so a
            // synthesizer that makes one phrase a frame longer changes that file only, not every later choice.
            var floorRandom = options.random(1_000 + UInt64(index))
            let floor = NoiseFloor.samples(frames: samples.count, dBFS: NoiseFloor.syntheticDBFS, using: &floorRandom)
            samples = zip(samples, floor).map { min(max($0 * gain + $1, -1), 1) }
            let tags = [
                "source": voice.engine, "voice": voice.name, "rate_wpm": String(rate), "labels": "exact",
                "licence": voice.engine == "flite"
                    ? "cmu_us_kal16 (Flite, BSD-style)" : "GPL-3.0-or-later (espeak-ng)",
                "noise_floor_dbfs": String(Int(NoiseFloor.syntheticDBFS)),
            ]
            out.append(
                CorpusBuilder.utterance(
                    path: "audio/\(id).wav", samples: samples, speech: speech,
                    transcript: texts.joined(separator: " "), words: nil, tags: tags))
        }
        return out
    }

    /// One phrase, synthesized alone, as 16 kHz samples.
    static func synthesize(_ text: String, voice: Voice, wordsPerMinute: Int) async throws -> [Float] {
        let normal = voice.engine == "flite" ? fliteWordsPerMinute : ESpeakEngine.normalWordsPerMinute
        var buffers: [AudioBuffer] = []
        for try await buffer in Synthesis.stream(
            try SpeechScript(text: text), voice: voice, rate: Double(wordsPerMinute) / normal)
        {
            buffers.append(buffer)
        }
        return try RecipeAudio.resampled(buffers)
    }
}
