import EarshotCore
import Foundation

/// The noisy corpus: every real and synthetic utterance (built with the same seed, so each noisy file
/// names its clean original in the `clean` tag) mixed with one noise at one SNR, and every other one
/// a second time with another; plus files of noise, music or clicks alone (about 10% of the corpus,
/// `speech: []`) on which any detected speech is a false alarm.
///
/// Noises: generated white, pink and brown noise; babble (4–6 other utterances of the pool, each at
/// the same level over its speech, overlapped); music (pieces composed from the seed, written as
/// MIDI, rendered by fluidsynth with the TimGM6mb sound font); clicks (irregular impulse trains).
/// SNRs 0, 5, 10 and 20 dB, measured over the labelled speech (see ``SNRMixer``). The noise and SNR
/// conditions are dealt round-robin from a seeded shuffle of all 24 pairs, so each pair is used
/// equally often. Labels, transcript and words are those of the clean utterance.
enum NoisyRecipe {
    static let noises = ["white", "pink", "brown", "babble", "music", "clicks"]
    static let snrs = [0, 5, 10, 20]
    static let musicPieces = 4
    static let musicSeconds = 40.0

    static func utterances(options: RecipeOptions, progress: (String) -> Void) async throws -> [RecipeUtterance] {
        let real = try RealRecipe.utterances(options: options, progress: progress)
        let synthetic = try await SyntheticRecipe.utterances(options: options, progress: progress)
        let pool = synthetic.map { ("synthetic", $0) } + real.map { ("real", $0) }
        var random = options.random(3)
        progress("noisy: rendering music")
        var music: [[Float]] = []
        for piece in 0..<musicPieces {
            let midi = MusicComposer.piece(seconds: musicSeconds, using: &random)
            music.append(try MusicRenderer.render(midi, scratch: options.scratch, name: "piece-\(piece)"))
        }
        let conditions = random.shuffled(noises.flatMap { noise in snrs.map { (noise, $0) } })
        var next = 0
        var out: [RecipeUtterance] = []
        for (index, (corpus, clean)) in pool.enumerated() {
            for copy in 0..<(index % 2 == 0 ? 2 : 1) {
                let (noise, snr) = conditions[next % conditions.count]
                next += 1
                let stem = (clean.entry.path as NSString).lastPathComponent.replacingOccurrences(of: ".wav", with: "")
                let id = "\(stem)-\(noise)-\(snr)db" + (copy > 0 ? "-b" : "")
                progress("noisy: \(id)")
                // Noise draws as many numbers as the clean file has samples: from a generator of its own,
                // so one clean file a frame longer changes its own mixes only.
                var noiseRandom = options.random(2_000 + UInt64(next))
                let samples = try noiseSamples(
                    noise, frames: clean.samples.count, excluding: index, pool: pool.map(\.1), music: music,
                    using: &noiseRandom)
                let mix = try SNRMixer.mix(
                    speech: clean.samples, segments: clean.entry.speech, noise: samples, snrDB: Double(snr))
                var tags = clean.entry.tags
                tags["noise"] = noise
                tags["snr_db"] = String(snr)
                tags["clean"] = "\(corpus)/\(clean.entry.path)"
                tags["licence"] = licence(of: tags["licence"], noise: noise)
                out.append(
                    CorpusBuilder.utterance(
                        path: "audio/\(id).wav", samples: mix.samples, speech: clean.entry.speech,
                        transcript: clean.entry.transcript, words: clean.entry.words, tags: tags))
            }
        }
        // About one file in ten with no speech at all: noise, music or clicks at a plausible level.
        let silentCount = max(1, out.count / 9)
        for index in 0..<silentCount {
            let noise = ["white", "pink", "brown", "music", "clicks"][index % 5]
            var random = options.random(3_000 + UInt64(index))
            let frames = RecipeAudio.frames(random.uniform(4.0...8.0))
            let level = Float(pow(10, random.uniform(-40 ... -24) / 20))
            let samples = try noiseSamples(
                noise, frames: frames, excluding: -1, pool: pool.map(\.1), music: music, using: &random
            ).map { $0 * level }
            let peak = samples.map(abs).max() ?? 0
            let limited =
                peak > Float(SNRMixer.peakLimit) ? samples.map { $0 * Float(SNRMixer.peakLimit) / peak } : samples
            let id = String(format: "nospeech-%03d-\(noise)", index + 1)
            out.append(
                CorpusBuilder.utterance(
                    path: "audio/\(id).wav", samples: limited, speech: [], transcript: nil, words: nil,
                    tags: ["noise": noise, "source": "generated", "licence": licence(of: nil, noise: noise)]))
        }
        return out
    }

    /// `frames` samples of `noise` at unit RMS.
    static func noiseSamples(
        _ noise: String, frames: Int, excluding: Int, pool: [RecipeUtterance], music: [[Float]],
        using random: inout SplitMix64
    ) throws -> [Float] {
        switch noise {
        case "white": return NoiseGenerator.white(frames: frames, using: &random)
        case "pink": return NoiseGenerator.pink(frames: frames, using: &random)
        case "brown": return NoiseGenerator.brown(frames: frames, using: &random)
        case "clicks": return NoiseGenerator.clicks(frames: frames, using: &random)
        case "music":
            let piece = random.pick(music)
            return NoiseGenerator.normalized(
                looped(piece, frames: frames, from: random.integer(0...piece.count - 1)).map(Double.init))
        case "babble":
            let others = pool.indices.filter { $0 != excluding && !pool[$0].entry.speech.isEmpty }
            var sum = [Double](repeating: 0, count: frames)
            for talker in random.shuffled(others).prefix(random.integer(4...6)) {
                let utterance = pool[talker]
                let first = RecipeAudio.frames(utterance.entry.speech.first!.start)
                let last = RecipeAudio.frames(utterance.entry.speech.last!.end)
                let speech = Array(utterance.samples[first..<min(last, utterance.samples.count)])
                let scale = 1 / max(RecipeAudio.rms(speech[...]), 1e-9)
                let part = looped(speech, frames: frames, from: random.integer(0...speech.count - 1))
                for index in 0..<frames { sum[index] += Double(part[index]) * scale }
            }
            return NoiseGenerator.normalized(sum)
        default:
            throw EarshotError(.invalidParameter, "noisy corpus: unknown noise \(noise)")
        }
    }

    /// `frames` samples of `source` starting at `start`, wrapping around as often as needed.
    static func looped(_ source: [Float], frames: Int, from start: Int) -> [Float] {
        (0..<frames).map { source[(start + $0) % source.count] }
    }

    static func licence(of speech: String?, noise: String) -> String {
        let noiseLicence: String? =
            switch noise {
            case "music": "music GPL-2.0 (TimGM6mb)"
            case "babble": "babble from the synthetic and real corpora (their licences)"
            default: nil
            }
        return [speech, noiseLicence].compactMap { $0 }.joined(separator: "; ").nonEmpty ?? "generated (Earshot)"
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
