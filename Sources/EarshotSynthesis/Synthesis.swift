public import EarshotCore
import Foundation

extension EarshotError.Code {
    /// A speech engine failed while synthesizing.
    public static let synthesisFailed = EarshotError.Code(rawValue: "SynthesisFailed")
}

/// The synthesis stage: a source of the pipeline that speaks text or SSML, through eSpeak NG or Flite.
///
/// ``stream(_:voice:rate:chunker:)`` hands out mono buffers at the voice's rate as the engine makes
/// them (eSpeak NG: every 100 ms of audio; Flite: every sentence), stamped with their media time, and
/// makes them only as fast as they are read. Both C libraries keep process-wide state, so every call
/// into them runs on one thread, ``executor``, and also holds ``libraryLock``; syntheses take turns on
/// it a piece at a time.
public enum Synthesis {
    /// The one thread that runs the engines.
    public static let executor = BlockingExecutor(name: "earshot-synth", threadCount: 1)
    /// Held around every call into eSpeak NG or Flite.
    static let libraryLock = NSLock()

    /// The engines, Flite first.
    public static let engines: [any SpeechEngine] = [FliteEngine(), ESpeakEngine()]

    /// The voice used when none is named: Flite's rms, which Whisper tiny.en read back best of the
    /// voices measured on 100 sentences of our own (`Benchmarks/tts/sentences-a.txt`: rms 7.6 % WER, slt
    /// 9.1 %, awb 10.9 %, kal16 22.4 %, eSpeak NG en-us 26.6 %) and again on 100 others that took no part
    /// in the choice (`sentences-b.txt`: rms 7.4 %, slt 11.1 %); `python3 Benchmarks/tts/round_trip.py
    /// Benchmarks/tts/sentences-a.txt Benchmarks/tts/sentences-b.txt`. (Ten sentences had put slt first.)
    /// The diphone voices synthesize ~7× faster than the clustergen ones.
    public static let defaultVoiceName = "rms"

    /// Every engine's voices.
    public static func voices() async throws -> [Voice] {
        try await withTaskExecutorPreference(executor) {
            try engines.flatMap { try $0.voices() }
        }
    }

    /// `text` as an error message quotes a client's input: in quotes, cut after `limit` characters, so
    /// a megabyte of input is not echoed back into a log line and an answer.
    package static func quoted(_ text: some StringProtocol, limit: Int = 64) -> String {
        text.count > limit ? "'\(text.prefix(limit))…' (\(text.count) characters)" : "'\(text)'"
    }

    /// The voice named `name` (`slt`, `en-us`, or qualified, `flite:slt`; an eSpeak NG voice may add a
    /// variant, `en-us+f3`); errors name `field`.
    public static func voice(named name: String?, field: String = "voice") async throws -> Voice {
        let name = (name ?? defaultVoiceName).lowercased()
        let all = try await voices()
        if let voice = all.first(where: { $0.qualifiedName == name || $0.name == name }) { return voice }
        if let plus = name.lastIndex(of: "+") {
            let base = String(name[..<plus])
            let variant = String(name[name.index(after: plus)...])
            let espeak = ESpeakEngine()
            if let voice = all.first(where: {
                $0.engine == espeak.name && ($0.qualifiedName == base || $0.name == base)
            }) {
                let variants = try await withTaskExecutorPreference(executor) { try espeak.variants() }
                guard variants.contains(variant) else {
                    throw EarshotError(
                        .invalidParameter,
                        "\(field): espeak-ng has no variant \(quoted(variant)); variants include \(variants.prefix(8).joined(separator: ", ")), …"
                    )
                }
                return Voice(
                    name: voice.name + "+" + variant, engine: voice.engine, language: voice.language,
                    sampleRate: voice.sampleRate)
            }
        }
        let examples = all.filter { $0.engine == "flite" }.map(\.name) + ["en-us", "en-gb+f3", "fr-fr", "de", "…"]
        throw EarshotError(
            .invalidParameter,
            "\(field): no voice \(quoted(name)); voices include \(examples.joined(separator: ", ")) (earshot speak --list-voices)"
        )
    }

    /// rand()'s seed at the start of each synthesis: glibc's initial state (see ``RandomState``).
    static let randomSeed: UInt32 = 1

    /// The range of speaking rates accepted.
    public static let rateRange: ClosedRange<Double> = 0.25...4

    /// A lower bound on how long `script` lasts spoken with `voice` at `rate`: its pauses, and its text at
    /// the fastest speaking rate (``SpeechScript/minimumDuration(rate:honoredRates:)``) that the voice's
    /// engine follows (eSpeak NG speaks no slower than 80 words a minute, whatever the rate asked).
    public static func minimumDuration(of script: SpeechScript, voice: Voice, rate: Double) -> Double {
        let espeak = voice.engine == ESpeakEngine().name
        return script.minimumDuration(
            rate: rate, honoredRates: espeak ? ESpeakEngine.honoredRates : 0...Double.greatestFiniteMagnitude)
    }

    /// Speaks `script` with `voice`, `rate` times its normal speed, piece by piece as the consumer asks
    /// (see ``SpeechStream``); `chunker` bounds the pieces. A voice whose engine is unknown, or a rate
    /// out of ``rateRange``, is thrown by the first `next()`.
    public static func stream(
        _ script: SpeechScript, voice: Voice, rate: Double = 1, chunker: TextChunker = TextChunker()
    ) -> SpeechStream {
        let engine: Result<any SpeechEngine, EarshotError>
        if let found = engines.first(where: { $0.name == voice.engine }) {
            if rateRange.contains(rate) {
                engine = .success(found)
            } else {
                let expected = "expected \(rateRange.lowerBound)–\(rateRange.upperBound)"
                engine = .failure(EarshotError(.invalidParameter, "rate: \(rate); \(expected)"))
            }
        } else {
            engine = .failure(EarshotError(.invalidParameter, "voice: no engine '\(voice.engine)'"))
        }
        return SpeechStream(script: script, voice: voice, rate: rate, chunker: chunker, engine: engine)
    }
}
