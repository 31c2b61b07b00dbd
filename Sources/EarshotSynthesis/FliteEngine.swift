import CFlite
import Foundation
public import EarshotCore

/// Flite (Debian's `flite1-dev`): CMU's small synthesizer with the US English voices Debian ships —
/// `kal` (diphone, 8 kHz), `kal16` (diphone, 16 kHz), and the clustergen voices `slt` (female),
/// `awb` (Scottish male) and `rms` (male), at 16 kHz.
///
/// Flite synthesizes a whole utterance at a time, so the script is cut into sentences (and a sentence
/// longer than ``TextChunker``'s bound into shorter pieces) and each is handed out as soon as it is made. A request's rate and pitch are set on the shared voice object and
/// restored after, so calls run on ``Synthesis/executor`` under ``Synthesis/libraryLock``. Flite has no
/// phoneme input: `<phoneme>` speaks the element's text.
public struct FliteEngine: SpeechEngine {
    public let name = "flite"

    /// The voices and the rates their models are made at.
    static let catalogue: [(name: String, sampleRate: Int, register: @Sendable (UnsafePointer<CChar>?) -> UnsafeMutablePointer<cst_voice>?)] = [
        ("kal", 8_000, register_cmu_us_kal),
        ("kal16", 16_000, register_cmu_us_kal16),
        ("slt", 16_000, register_cmu_us_slt),
        ("awb", 16_000, register_cmu_us_awb),
        ("rms", 16_000, register_cmu_us_rms),
    ]

    public init() {}

    /// Flite keeps a feature's name by pointer, not by copy, so the names it is given must live as long
    /// as the process (a Swift string's temporary C string would be freed after the call).
    nonisolated(unsafe) private static let durationStretch: UnsafeMutablePointer<CChar> = strdup("duration_stretch")!
    nonisolated(unsafe) private static let meanPitch: UnsafeMutablePointer<CChar> = strdup("int_f0_target_mean")!

    /// Registered voices, made once under the library lock.
    nonisolated(unsafe) private static var registered: [String: UnsafeMutablePointer<cst_voice>] = [:]
    nonisolated(unsafe) private static var initialized = false

    private static func voice(named name: String) throws -> UnsafeMutablePointer<cst_voice> {
        if !initialized {
            flite_init()
            initialized = true
        }
        if let voice = registered[name] { return voice }
        guard let entry = catalogue.first(where: { $0.name == name }), let voice = entry.register(nil) else {
            throw EarshotError(.invalidParameter, "voice: flite has no voice '\(name)'")
        }
        registered[name] = voice
        return voice
    }

    public func voices() throws -> [Voice] {
        Self.catalogue.map { Voice(name: $0.name, engine: name, language: "en-us", sampleRate: $0.sampleRate) }
    }

    /// Every sentence a piece of its own, as Flite has always been fed (a sentence longer than the bound
    /// is cut further): Flite builds a whole piece's utterance before its first sample, and its memory
    /// grows with the piece's speech (about 0.9 MB a second with the clustergen voices).
    public func pieces(of text: String, chunker: TextChunker) -> [Substring] { chunker.sentences(text) }

    public func synthesize(
        _ part: SpeechPart, voice: Voice, rate: Double, resuming: Bool, emit: (AudioBuffer) -> Bool
    ) throws {
        let text: String, prosody: Prosody
        switch part {
        case .pause: return
        case .text(let words, let how), .phonemes(_, _, let words, let how): (text, prosody) = (words, how)
        }
        // The whitespace that ended a sentence is not spoken, as when Flite was handed whole sentences;
        // a piece with no letter or digit is not spoken at all.
        var sentence = Substring(text)
        if let last = sentence.last, last.isWhitespace, let end = sentence.dropLast().last,
            TextChunker.sentenceEnds.contains(end)
        {
            sentence = sentence.dropLast()
        }
        guard sentence.contains(where: { $0.isLetter || $0.isNumber }) else { return }
        try Synthesis.libraryLock.withLock {
            let flite = try Self.voice(named: voice.name)
            let features = flite.pointee.features
            let meanPitch = flite_get_param_float(features, Self.meanPitch, 100)
            let stretch = flite_get_param_float(features, Self.durationStretch, 1)
            defer {
                flite_feat_set_float(features, Self.meanPitch, meanPitch)
                flite_feat_set_float(features, Self.durationStretch, stretch)
            }
            flite_feat_set_float(features, Self.durationStretch, stretch / Float(prosody.rate * rate))
            flite_feat_set_float(features, Self.meanPitch, meanPitch * Float(prosody.pitch))
            try withoutActuallyEscaping(emit) { emit in
                var emitter = try SampleEmitter(sampleRate: voice.sampleRate, emit: emit)
                try speak(String(sentence), with: flite, volume: prosody.volume, into: &emitter)
            }
        }
    }

    private func speak(
        _ sentence: String, with voice: UnsafeMutablePointer<cst_voice>, volume: Double,
        into emitter: inout SampleEmitter
    ) throws {
        guard let wave = flite_text_to_wave(sentence, voice) else {
            throw EarshotError(.synthesisFailed, "flite: synthesis failed")
        }
        defer { delete_wave(wave) }
        guard Int(wave.pointee.sample_rate) == emitter.format.sampleRate else {
            throw EarshotError(
                .synthesisFailed,
                "flite: voice made \(wave.pointee.sample_rate) Hz; expected \(emitter.format.sampleRate) Hz")
        }
        emitter.send(UnsafeBufferPointer(start: wave.pointee.samples, count: Int(wave.pointee.num_samples)), volume: volume)
    }
}
