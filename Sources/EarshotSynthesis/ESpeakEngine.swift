import CEspeakNG
public import EarshotCore
import Foundation

/// eSpeak NG (Debian's `libespeak-ng`): formant synthesis, about a hundred languages, 22 050 Hz.
///
/// eSpeak NG keeps all its state in globals — the current voice, the parameters, the callback — so
/// it is initialized once and driven from ``Synthesis/executor`` only, under ``Synthesis/libraryLock``.
/// Some of that state carries from one synthesis to the next and nothing resets it (1.51: the same
/// text spoken twice in one process comes out a few samples apart; `espeak_Initialize` again keeps
/// it, and `espeak_Terminate` hangs), so its output is reproducible from a fresh process, not call
/// by call; corpora are built one process per build for that reason.
/// Phonemes (`<phoneme>`) are spoken when given in eSpeak's own alphabet (`alphabet="x-espeak"`).
public struct ESpeakEngine: SpeechEngine {
    public let name = "espeak-ng"
    /// eSpeak's speaking rate at rate 1, in words per minute (its own default).
    public static let normalWordsPerMinute = 175.0
    /// The speaking rates eSpeak NG takes, in words per minute: a rate beyond is clamped to them.
    static let wordsPerMinuteRange: ClosedRange<Double> = 80...450
    /// The rates (multipliers of the normal one) eSpeak NG follows: 0.46–2.57.
    public static let honoredRates =
        wordsPerMinuteRange.lowerBound / normalWordsPerMinute...wordsPerMinuteRange.upperBound / normalWordsPerMinute

    public init() {}

    /// The sample rate eSpeak reported when it was initialized: set once, under the library lock.
    nonisolated(unsafe) private static var initializedSampleRate: Int?

    private static func initialize() throws -> Int {
        if let rate = initializedSampleRate { return rate }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 100, nil, 0)
        guard rate > 0 else {
            throw EarshotError(.modelUnavailable, "espeak-ng: could not initialize (is espeak-ng-data installed?)")
        }
        espeak_SetSynthCallback { samples, count, events in
            guard let events, let context = events.pointee.user_data else { return 0 }
            let handler = Unmanaged<CallbackBox>.fromOpaque(context).takeUnretainedValue()
            guard let samples, count > 0 else { return handler.stopped ? 1 : 0 }
            handler.receive(UnsafeBufferPointer(start: samples, count: Int(count)))
            return handler.stopped ? 1 : 0
        }
        initializedSampleRate = Int(rate)
        return Int(rate)
    }

    /// Each language's voice file (`en-gb` → `gmw/en`), the one eSpeak gives the language the highest
    /// priority, MBROLA voices left out (they need databases Debian ships apart). Read once, under the
    /// library lock.
    nonisolated(unsafe) private static var voiceFiles: [String: String]?

    private static func files() throws -> [String: String] {
        if let files = voiceFiles { return files }
        _ = try initialize()
        var best: [String: (file: String, priority: UInt8)] = [:]
        if let list = espeak_ListVoices(nil) {
            var index = 0
            while let entry = list[index] {
                index += 1
                // languages: a priority byte, then a NUL-terminated name; the first is the voice's own.
                guard let languages = entry.pointee.languages, let identifier = entry.pointee.identifier else {
                    continue
                }
                let file = String(cString: identifier)
                let priority = UInt8(bitPattern: languages[0])
                let language = String(cString: languages + 1).lowercased()
                guard !language.isEmpty, !file.hasPrefix("mb/") else { continue }
                if let known = best[language], known.priority <= priority { continue }
                best[language] = (file, priority)
            }
        }
        let files = best.mapValues(\.file)
        voiceFiles = files
        return files
    }

    public func voices() throws -> [Voice] {
        try Synthesis.libraryLock.withLock {
            let rate = try Self.initialize()
            return try Self.files().keys.sorted().map {
                Voice(name: $0, engine: name, language: $0, sampleRate: rate)
            }
        }
    }

    /// What `espeak_SetVoiceByName` takes for `name` (`en-gb+f3` → `gmw/en+f3`): the language's voice
    /// file, then the variant. By file, because eSpeak looks names up by its own voice names and file
    /// names, not by language (`en-gb` alone is not found), and its lookup by language drops the variant.
    private static func selector(for name: String) throws -> String? {
        let parts = name.split(separator: "+", maxSplits: 1).map(String.init)
        guard let language = parts.first, let file = try files()[language] else { return nil }
        return parts.count == 2 ? file + "+" + parts[1] : file
    }

    /// eSpeak's voice variants (`f3`, `m3`, `klatt`, …): a voice named `en-us+f3` speaks `en-us`
    /// with the `f3` variant's pitch, formants and breathiness.
    public func variants() throws -> [String] {
        try Synthesis.libraryLock.withLock {
            _ = try Self.initialize()
            var spec = espeak_VOICE()
            let list = "variant".withCString { language in
                spec.languages = language
                return espeak_ListVoices(&spec)
            }
            guard let list else { return [] }
            var names: [String] = []
            var index = 0
            while let entry = list[index] {
                index += 1
                // identifier: the variant's file under espeak-ng-data/voices, `!v/f3`.
                guard let identifier = entry.pointee.identifier else { continue }
                if let name = String(cString: identifier).split(separator: "/").last { names.append(String(name)) }
            }
            return names.sorted()
        }
    }

    /// How `voice` would say `word`, in eSpeak's ASCII phoneme names separated by spaces, with its
    /// stress marks (`knight` → `n 'aI t`): eSpeak's own rules and exceptions, the grapheme-to-phoneme
    /// step of its synthesis without the sound.
    public func phonemes(of word: String, voice: String = "en-us") throws -> String {
        try Synthesis.libraryLock.withLock {
            _ = try Self.initialize()
            Self.currentSelector = nil
            guard let selector = try Self.selector(for: voice), espeak_SetVoiceByName(selector) == EE_OK else {
                throw EarshotError(.invalidParameter, "voice: espeak-ng has no voice '\(voice)'")
            }
            var parts: [String] = []
            // phonememode: bits 8–23 the separator between phoneme names (a space); ASCII names.
            let mode = Int32(UInt8(ascii: " ")) << 8
            word.withCString { text in
                var cursor: UnsafeRawPointer? = UnsafeRawPointer(text)
                // One clause per call; the cursor is moved past it, and set to nil at the end.
                while let at = cursor, at.load(as: UInt8.self) != 0 {
                    guard let phonemes = espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, mode) else { break }
                    parts.append(String(cString: phonemes))
                }
            }
            return parts.joined(separator: " ").split(separator: " ").joined(separator: " ")
        }
    }

    /// Text within the bound whole, as it was always spoken (eSpeak NG cuts it into clauses itself and
    /// hands out its audio every 100 ms); longer text in as few chunks as fit.
    public func pieces(of text: String, chunker: TextChunker) -> [Substring] { chunker.chunks(text) }

    /// The voice eSpeak NG was last set to, for the synthesis then under way: set under the library lock.
    nonisolated(unsafe) private static var currentSelector: String?

    public func synthesize(
        _ part: SpeechPart, voice: Voice, rate: Double, resuming: Bool, emit: (AudioBuffer) -> Bool
    ) throws {
        try Synthesis.libraryLock.withLock {
            let sampleRate = try Self.initialize()
            guard let selector = try Self.selector(for: voice.name) else {
                throw EarshotError(.invalidParameter, "voice: espeak-ng has no voice '\(voice.name)'")
            }
            // Set once a synthesis, as it always was, and again when another synthesis came between.
            if !resuming || Self.currentSelector != selector {
                Self.currentSelector = nil
                guard espeak_SetVoiceByName(selector) == EE_OK else {
                    throw EarshotError(.invalidParameter, "voice: espeak-ng has no voice '\(voice.name)'")
                }
                Self.currentSelector = selector
            }
            try withoutActuallyEscaping(emit) { emit in
                var emitter = try SampleEmitter(sampleRate: sampleRate, emit: emit)
                switch part {
                case .pause:
                    return
                case .text(let text, let prosody):
                    try speak(text, flags: 0, prosody: prosody, rate: rate, into: &emitter)
                case .phonemes(let phonemes, let alphabet, let fallback, let prosody):
                    if ["x-espeak", "x-kirshenbaum"].contains(alphabet.lowercased()) {
                        let escaped = phonemes.replacingOccurrences(of: "]]", with: "")
                        try speak(
                            "[[\(escaped)]]", flags: espeakPHONEMES, prosody: prosody, rate: rate, into: &emitter)
                    } else {
                        try speak(fallback, flags: 0, prosody: prosody, rate: rate, into: &emitter)
                    }
                }
            }
        }
    }

    private func speak(
        _ text: String, flags: Int32, prosody: Prosody, rate: Double, into emitter: inout SampleEmitter
    ) throws {
        let wordsPerMinute = (Self.normalWordsPerMinute * prosody.rate * rate).clamped(to: Self.wordsPerMinuteRange)
        espeak_SetParameter(espeakRATE, Int32(wordsPerMinute.rounded()), 0)
        espeak_SetParameter(espeakPITCH, Int32((50 * prosody.pitch).clamped(to: 0...100).rounded()), 0)
        let box = CallbackBox(volume: prosody.volume, emitter: emitter)
        let context = Unmanaged.passRetained(box)
        defer { context.release() }
        let status = text.withCString { pointer in
            espeak_Synth(
                pointer, text.utf8.count + 1, 0, POS_CHARACTER, 0,
                UInt32(espeakCHARS_UTF8) | UInt32(flags), nil, context.toOpaque())
        }
        emitter = box.emitter
        guard status == EE_OK else {
            throw EarshotError(.synthesisFailed, "espeak-ng: synthesis failed (error \(status.rawValue))")
        }
    }
}

/// What eSpeak's C callback reaches through `user_data`: the emitter of the current call.
private final class CallbackBox {
    let volume: Double
    var emitter: SampleEmitter
    var stopped: Bool { emitter.stopped }

    init(volume: Double, emitter: SampleEmitter) {
        self.volume = volume
        self.emitter = emitter
    }

    func receive(_ samples: UnsafeBufferPointer<Int16>) {
        emitter.send(samples, volume: volume)
    }
}
