public import EarshotCore

/// A voice an engine speaks with.
public struct Voice: Sendable, Hashable, Codable {
    /// What `--voice`, the service's `voice` and `VoiceName` take: `slt`, `kal16`, `en-us`, `fr`, …
    public var name: String
    /// The engine: `flite` or `espeak-ng`.
    public var engine: String
    /// Language, as a lowercase BCP 47 tag (`en-us`).
    public var language: String
    /// The rate of the samples the engine makes, in Hz.
    public var sampleRate: Int

    public init(name: String, engine: String, language: String, sampleRate: Int) {
        self.name = name
        self.engine = engine
        self.language = language
        self.sampleRate = sampleRate
    }

    /// `engine:name`, which names a voice unambiguously.
    public var qualifiedName: String { "\(engine):\(name)" }
}

/// A speech synthesizer behind a C library: it lists its voices and turns a script, one bounded part
/// at a time, into audio.
///
/// The C libraries keep process-wide state (eSpeak NG's is all global; Flite's voices are shared
/// objects whose features a request changes), so an engine's methods are called only on
/// ``Synthesis/executor``, one job at a time — ``Synthesis`` does that; callers use it rather than
/// an engine directly. ``Synthesis`` also makes the pauses, so an engine speaks text and phonemes only.
public protocol SpeechEngine: Sendable {
    /// The engine's name in voice listings and qualified voice names.
    var name: String { get }

    /// The voices it speaks with. Blocking: on ``Synthesis/executor`` only.
    func voices() throws -> [Voice]

    /// `text` cut into the pieces the engine speaks one call at a time, none longer than `chunker`'s
    /// bound; joined, they give `text` back.
    func pieces(of text: String, chunker: TextChunker) -> [Substring]

    /// Speaks `part` (text or phonemes, never a pause) with `voice` at `rate` (a multiplier of the
    /// voice's speaking rate), calling `emit` with each block of mono audio at `voice.sampleRate`,
    /// stamped from frame 0, as soon as the engine has made it; `emit` returns false to stop early.
    /// `resuming` is true when the engine's previous call was for the same synthesis, so what was set
    /// up for it then (eSpeak NG's voice) still holds. Blocking: on ``Synthesis/executor`` only.
    func synthesize(
        _ part: SpeechPart, voice: Voice, rate: Double, resuming: Bool, emit: (AudioBuffer) -> Bool
    ) throws
}

/// Turns an engine's 16-bit samples into stream-ordered buffers, applying the volume.
struct SampleEmitter {
    let format: AudioFormat
    var nextFrame: Int64 = 0
    var stopped = false
    let emit: (AudioBuffer) -> Bool

    init(sampleRate: Int, emit: @escaping (AudioBuffer) -> Bool) throws {
        format = try AudioFormat(sampleRate: sampleRate, channelCount: 1, origin: "synthesizer")
        self.emit = emit
    }

    mutating func send(_ samples: UnsafeBufferPointer<Int16>, volume: Double) {
        guard !stopped, !samples.isEmpty else { return }
        let gain = Float(volume) / 32_768
        let floats = samples.map { Swift.min(Swift.max(Float($0) * gain, -1), 1) }
        send(floats)
    }

    private mutating func send(_ samples: [Float]) {
        let buffer = AudioBuffer(format: format, samples: samples, startFrame: nextFrame)
        nextFrame += Int64(samples.count)
        if !emit(buffer) { stopped = true }
    }
}
