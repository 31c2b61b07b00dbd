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

/// A speech synthesizer behind a C library: it lists its voices and turns a script into audio.
///
/// The C libraries keep process-wide state (eSpeak NG's is all global; Flite's voices are shared
/// objects whose features a request changes), so an engine's methods are called only on
/// ``Synthesis/executor``, one job at a time — ``Synthesis`` does that; callers use it rather than
/// an engine directly.
public protocol SpeechEngine: Sendable {
    /// The engine's name in voice listings and qualified voice names.
    var name: String { get }

    /// The voices it speaks with. Blocking: on ``Synthesis/executor`` only.
    func voices() throws -> [Voice]

    /// Speaks `script` with `voice` at `rate` (a multiplier of the voice's speaking rate), calling
    /// `emit` with each block of mono audio at `voice.sampleRate` as soon as the engine has made it;
    /// `emit` returns false to stop early. Blocking: on ``Synthesis/executor`` only.
    func synthesize(
        _ script: SpeechScript, voice: Voice, rate: Double, emit: (AudioBuffer) -> Bool
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

    mutating func silence(seconds: Double) {
        let frames = Int((seconds * Double(format.sampleRate)).rounded())
        var remaining = frames
        while remaining > 0, !stopped {
            let count = Swift.min(remaining, format.sampleRate / 10)
            send([Float](repeating: 0, count: count))
            remaining -= count
        }
    }

    private mutating func send(_ samples: [Float]) {
        let buffer = AudioBuffer(format: format, samples: samples, startFrame: nextFrame)
        nextFrame += Int64(samples.count)
        if !emit(buffer) { stopped = true }
    }
}
