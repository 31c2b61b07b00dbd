import EarshotCore
import EarshotIO
import EarshotRecognizer
import Foundation

/// The real corpus: recordings Debian ships with known texts, labelled by forced alignment.
///
/// Sources: the five LibriVox clips and five "cards" clips of `pocketsphinx-testdata` (texts from
/// their `transcription` files), its `goforward.raw` ("go forward ten meters", the sentence of its
/// `goforward.gram`), and the eight voice prompts of `alsa-utils` (`Front_Center.wav` says "front
/// center"). `numbers.raw` and `something.raw` are left out: their texts are not published.
/// Each clip is resampled to 16 kHz, aligned (``ForcedAligner``), and padded with 0.3–1.0 s before
/// and 3.0–4.0 s after with noise shaped like its own background (``RoomTone``), at its background
/// level, or white noise at that level when the background is digital silence. Speech is the aligned words with pauses under 200 ms merged.
enum RealRecipe {
    static let testData = "/usr/share/pocketsphinx/test/data"
    static let alsaSounds = "/usr/share/sounds/alsa"

    struct Source {
        var id: String
        var path: String
        var raw: Bool
        var transcript: String
        var tags: [String: String]
    }

    static func sources() throws -> [Source] {
        var sources: [Source] = []
        let librivox = ["source": "pocketsphinx-testdata/librivox", "licence": "public-domain (LibriVox)"]
        for (id, text) in try transcription(testData + "/librivox/transcription") {
            sources.append(
                Source(id: id, path: testData + "/librivox/\(id).wav", raw: false, transcript: text, tags: librivox))
        }
        let cards = ["source": "pocketsphinx-testdata/cards", "licence": "BSD-2-Clause (pocketsphinx-testdata)"]
        for (id, text) in try transcription(testData + "/cards/cards.transcription") {
            sources.append(
                Source(
                    id: "cards-\(id)", path: testData + "/cards/\(id).wav", raw: false, transcript: text, tags: cards))
        }
        sources.append(
            Source(
                id: "goforward", path: testData + "/goforward.raw", raw: true, transcript: "go forward ten meters",
                tags: ["source": "pocketsphinx-testdata", "licence": "BSD-2-Clause (pocketsphinx-testdata)"]))
        for name in [
            "Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right", "Side_Left",
            "Side_Right",
        ] {
            sources.append(
                Source(
                    id: "alsa-" + name.lowercased().replacingOccurrences(of: "_", with: "-"),
                    path: alsaSounds + "/\(name).wav", raw: false,
                    transcript: name.lowercased().replacingOccurrences(of: "_", with: " "),
                    tags: ["source": "alsa-utils", "licence": "GPL-2.0 (alsa-utils)"]))
        }
        return sources
    }

    static func utterances(options: RecipeOptions, progress: (String) -> Void) throws -> [RecipeUtterance] {
        let aligner = try ForcedAligner()
        var random = options.random(1)
        var out: [RecipeUtterance] = []
        let rawFormat = RawPCMFormat(format: RecipeAudio.format, encoding: .s16le)
        for source in try sources().prefix(options.limit ?? .max) {
            progress("real: aligning \(source.id)")
            guard FileManager.default.isReadableFile(atPath: source.path) else {
                // Name what to install, not just the file: the recordings come from Debian packages.
                let package = source.path.hasPrefix(alsaSounds) ? "alsa-utils" : "pocketsphinx-testdata"
                throw EarshotError(
                    .invalidInput,
                    "\(source.path): missing; the real corpus takes it from the Debian package \(package) "
                        + "(apt-get install \(package), or make corpora-deps)")
            }
            let clip = try RecipeAudio.load(source.path, raw: source.raw ? rawFormat : nil)
            let aligned = try aligner.align(transcript: source.transcript, samples: clip)
            let lead = RecipeAudio.frames(random.uniform(0.3...1.0))
            let tail = RecipeAudio.frames(random.uniform(3.0...4.0))
            let floor = min(max(NoiseFloor.estimate(clip), NoiseFloor.syntheticDBFS), -40)
            let shape = RoomTone.predictor(RoomTone.background(of: clip))
            func pad(_ frames: Int) -> [Float] {
                guard let shape else { return NoiseFloor.samples(frames: frames, dBFS: floor, using: &random) }
                return RoomTone.noise(frames: frames, coefficients: shape, dBFS: floor, using: &random)
            }
            let samples = pad(lead) + clip + pad(tail)
            let offset = RecipeAudio.seconds(lead)
            let words = aligned.map { TimedWord(word: $0.word, start: $0.start + offset, end: $0.end + offset) }
            var tags = source.tags
            tags["labels"] = "forced-alignment"
            tags["padding"] = shape == nil ? "white-noise" : "background-shaped-noise"
            tags["noise_floor_dbfs"] = String(Int(floor.rounded()))
            out.append(
                CorpusBuilder.utterance(
                    path: "audio/\(source.id).wav", samples: samples, speech: SpeechSegments.segments(from: words),
                    transcript: source.transcript, words: words, tags: tags))
        }
        return out
    }

    /// Parses a Sphinx transcription file: `<s> words </s> (id)` per line.
    static func transcription(_ path: String) throws -> [(String, String)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw EarshotError(.invalidInput, "\(path): not found; install the Debian package pocketsphinx-testdata")
        }
        return try text.split(separator: "\n").enumerated().compactMap { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return nil }
            guard trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") else {
                throw EarshotError(.invalidInput, "\(path), line \(index + 1): expected \"<s> words </s> (id)\"")
            }
            let id = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let words = trimmed[..<open].split(separator: " ").filter { $0 != "<s>" && $0 != "</s>" }
            return (id, words.joined(separator: " "))
        }
    }
}
