import EarshotCore
import Foundation

/// The synthetic corpus: utterances of two to four phrases from ``Phrases``, spoken by espeak-ng
/// (several voices, 140–200 words per minute) and festival (`text2wave`, the kal diphone voice),
/// with pauses of 0.2–1.5 s between phrases, so an endpointer that ends too early is caught.
///
/// Labels are exact: each phrase is synthesized alone, its leading and trailing synthesizer silence
/// is trimmed, and its speech is found on the clean signal (10 ms frames within 45 dB of the loudest,
/// pauses under 200 ms merged) before the phrases are joined. The file then gets 0.3–1.0 s before,
/// 3.0–4.0 s after, a level of −26 to −18 dBFS RMS over speech, and a −66 dBFS white-noise floor.
enum SyntheticRecipe {
    /// How many utterances a full build makes (about 10 minutes of audio).
    static let utteranceCount = 100

    struct Voice {
        var engine: String
        var name: String
    }

    /// espeak-ng voices and variants, and festival's kal diphone voice.
    static let voices: [Voice] = [
        Voice(engine: "espeak-ng", name: "en-us"), Voice(engine: "espeak-ng", name: "en"),
        Voice(engine: "espeak-ng", name: "en+f3"), Voice(engine: "espeak-ng", name: "en-us+m3"),
        Voice(engine: "espeak-ng", name: "en-gb-x-rp+f2"), Voice(engine: "espeak-ng", name: "en-029"),
        Voice(engine: "espeak-ng", name: "en-gb-scotland+m4"), Voice(engine: "espeak-ng", name: "en-us+f4"),
        Voice(engine: "festival", name: "kal_diphone"),
    ]

    static func utterances(options: RecipeOptions, progress: (String) -> Void) throws -> [RecipeUtterance] {
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
                let phrase = try synthesize(text, voice: voice, rate: rate, scratch: options.scratch, id: id)
                guard let active = SpeechSegments.activeRange(of: phrase, sampleRate: RecipeAudio.sampleRate) else {
                    throw EarshotError(.invalidInput, "\(voice.engine) produced silence for \"\(text)\"")
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
            let floor = NoiseFloor.samples(frames: samples.count, dBFS: NoiseFloor.syntheticDBFS, using: &random)
            samples = zip(samples, floor).map { min(max($0 * gain + $1, -1), 1) }
            let tags = [
                "source": voice.engine, "voice": voice.name, "rate_wpm": String(rate), "labels": "exact",
                "licence": voice.engine == "festival"
                    ? "festvox-kallpc16k (permissive)" : "GPL-3.0-or-later (espeak-ng)",
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
    static func synthesize(_ text: String, voice: Voice, rate: Int, scratch: String, id: String) throws -> [Float] {
        let path = scratch + "/\(id)-phrase.wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        if voice.engine == "festival" {
            // text2wave has no rate flag; stretching durations by 170/rate gives the same effect.
            let stretch = String(format: "%.3f", 170.0 / Double(rate))
            try ExternalProgram.run(
                [
                    "text2wave", "-eval", "(voice_\(voice.name))", "-eval",
                    "(Parameter.set 'Duration_Stretch \(stretch))", "-o", path,
                ],
                package: "festival festvox-kallpc16k", standardInput: text)
        } else {
            try ExternalProgram.run(
                ["espeak-ng", "-v", voice.name, "-s", String(rate), "-w", path, text], package: "espeak-ng")
        }
        return try RecipeAudio.load(path)
    }
}
