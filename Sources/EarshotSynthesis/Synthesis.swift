public import EarshotCore
import Foundation

extension EarshotError.Code {
    /// A speech engine failed while synthesizing.
    public static let synthesisFailed = EarshotError.Code(rawValue: "SynthesisFailed")
}

/// The synthesis stage: a source of the pipeline that speaks text or SSML, through eSpeak NG or Flite.
///
/// ``stream(_:voice:rate:)`` hands out mono buffers at the voice's rate as the engine makes them
/// (eSpeak NG: every 100 ms of audio; Flite: every sentence), stamped with their media time.
/// Both C libraries keep process-wide state, so every call into them runs on one thread,
/// ``executor``, one request after another, and also holds ``libraryLock``.
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
                        "\(field): espeak-ng has no variant '\(variant)'; variants include \(variants.prefix(8).joined(separator: ", ")), …"
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
            "\(field): no voice '\(name)'; voices include \(examples.joined(separator: ", ")) (earshot speak --list-voices)"
        )
    }

    /// rand()'s seed before each synthesis: glibc's initial state.
    static let randomSeed: UInt32 = 1

    /// The range of speaking rates accepted.
    public static let rateRange: ClosedRange<Double> = 0.25...4

    /// Speaks `script` with `voice`, `rate` times its normal speed; the stream ends after the last
    /// buffer, or throws the engine's error. Cancelling the consumer's task (or dropping the stream)
    /// stops the engine at its next block.
    public static func stream(
        _ script: SpeechScript, voice: Voice, rate: Double = 1
    ) -> AsyncThrowingStream<AudioBuffer, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AudioBuffer.self)
        guard let engine = engines.first(where: { $0.name == voice.engine }) else {
            continuation.finish(throwing: EarshotError(.invalidParameter, "voice: no engine '\(voice.engine)'"))
            return stream
        }
        guard rateRange.contains(rate) else {
            continuation.finish(
                throwing: EarshotError(
                    .invalidParameter, "rate: \(rate); expected \(rateRange.lowerBound)–\(rateRange.upperBound)"))
            return stream
        }
        let task = Task(executorPreference: executor) {
            do {
                // Both engines draw from the C library's rand() (eSpeak NG: the noise of breathy
                // variants): seeded as a fresh process has it, so no other caller of rand() changes
                // what this synthesis sounds like. (eSpeak NG's own state still carries from call to
                // call: see ESpeakEngine.)
                srand(randomSeed)
                try engine.synthesize(script, voice: voice, rate: rate) { buffer in
                    if Task.isCancelled { return false }
                    if case .terminated = continuation.yield(buffer) { return false }
                    return true
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
