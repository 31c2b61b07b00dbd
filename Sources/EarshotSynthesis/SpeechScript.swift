import EarshotCore

/// How a stretch of speech is said, as multipliers of the voice's own: SSML's `prosody` nests, so
/// the multipliers of nested elements multiply.
public struct Prosody: Sendable, Hashable {
    /// Speaking rate: 2 is twice as fast. Allowed 0.25–4.
    public var rate: Double
    /// Pitch: 1.2 is 20 % higher. Allowed 0.5–2.
    public var pitch: Double
    /// Amplitude gain applied to the samples: 0 is silent, 2 is +6 dB. Allowed 0–4.
    public var volume: Double

    public static let normal = Prosody(rate: 1, pitch: 1, volume: 1)

    public init(rate: Double = 1, pitch: Double = 1, volume: Double = 1) {
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
    }

    public static let rateRange: ClosedRange<Double> = 0.25...4
    public static let pitchRange: ClosedRange<Double> = 0.5...2
    public static let volumeRange: ClosedRange<Double> = 0...4

    /// This prosody inside `outer` (nested elements multiply), clamped to the allowed ranges.
    func nested(in outer: Prosody) -> Prosody {
        Prosody(
            rate: (rate * outer.rate).clamped(to: Self.rateRange),
            pitch: (pitch * outer.pitch).clamped(to: Self.pitchRange),
            volume: (volume * outer.volume).clamped(to: Self.volumeRange))
    }
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

/// One piece of what to say: engine-neutral, so SSML is read once by our code and never handed to an
/// engine's own markup reader.
public enum SpeechPart: Sendable, Hashable {
    /// Words to speak.
    case text(String, Prosody)
    /// A pronunciation in `alphabet`; an engine that cannot read that alphabet speaks `fallback` (the
    /// element's text), as SSML asks of a processor that does not support the phoneme.
    case phonemes(String, alphabet: String, fallback: String, Prosody)
    /// Silence.
    case pause(seconds: Double)
}

/// What to say: text or SSML, read into parts, within the size limits.
public struct SpeechScript: Sendable, Hashable {
    public var parts: [SpeechPart]

    /// How much a script may hold; `earshot serve` sets them (`--max-speech-characters`, `--max-ssml-bytes`).
    public struct Limits: Sendable, Hashable {
        /// The most characters of text one script speaks.
        public var textCharacters: Int
        /// The most bytes of an SSML document, markup included.
        public var ssmlBytes: Int

        public init(textCharacters: Int = 4_096, ssmlBytes: Int = 16_384) {
            self.textCharacters = textCharacters
            self.ssmlBytes = ssmlBytes
        }

        /// 4 096 characters (OpenAI's limit for `/v1/audio/speech`, about four and a half minutes of
        /// speech at the default rate) and 16 KiB of SSML.
        public static let `default` = Limits()
    }

    public init(parts: [SpeechPart]) {
        self.parts = parts
    }

    /// Plain text, spoken as is (no markup is interpreted). `field` names the input in errors.
    public init(text: String, field: String = "text", limits: Limits = .default) throws {
        let count = text.count
        guard count <= limits.textCharacters else {
            throw EarshotError(
                .invalidParameter,
                "\(field): \(count) characters; the limit is \(limits.textCharacters)")
        }
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw EarshotError(.invalidParameter, "\(field): no text to speak")
        }
        parts = [.text(text, .normal)]
    }

    /// An SSML document (the subset in ``SSMLReader``). `field` names the input in errors.
    public init(ssml: [UInt8], field: String = "ssml", limits: Limits = .default) throws {
        self = try SSMLReader(field: field, limits: limits).read(ssml)
    }

    /// The script spoken `factor` times as loud (a request's volume over the document's own prosody).
    public func scalingVolume(by factor: Double) -> SpeechScript {
        let outer = Prosody(volume: factor)
        return SpeechScript(
            parts: parts.map { part in
                switch part {
                case .text(let text, let prosody): .text(text, prosody.nested(in: outer))
                case .phonemes(let phonemes, let alphabet, let fallback, let prosody):
                    .phonemes(phonemes, alphabet: alphabet, fallback: fallback, prosody.nested(in: outer))
                case .pause: part
                }
            })
    }

    /// The seconds of silence the script's pauses (SSML's breaks, and the pauses after `p` and `s`) add
    /// up to: known exactly before anything is synthesized.
    public var pauseSeconds: Double {
        parts.reduce(0) { total, part in
            if case .pause(let seconds) = part { total + seconds } else { total }
        }
    }

    /// Letters and digits a second, at rate 1, that no voice speaks faster: twice the fastest measured
    /// (three Harvard sentences, 100 letters: rms 12.1 a second, awb 12.6, kal and slt 14.0, eSpeak NG
    /// en-us 14.8), so ``minimumDuration(rate:honoredRates:)`` stays below the real length however
    /// terse the text.
    public static let fastestCharactersPerSecond = 30.0

    /// A lower bound on how long the script lasts spoken at `rate` (times each part's own prosody
    /// rate, as far as the engine follows it: `honoredRates`): its pauses, plus its letters and digits
    /// at ``fastestCharactersPerSecond``. Phonemes count for nothing. What a service can refuse before
    /// synthesizing anything; ``Synthesis/minimumDuration(of:voice:rate:)`` knows each engine's rates.
    public func minimumDuration(
        rate: Double, honoredRates: ClosedRange<Double> = 0...Double.greatestFiniteMagnitude
    ) -> Double {
        parts.reduce(0) { total, part in
            switch part {
            case .pause(let seconds):
                return total + seconds
            case .text(let text, let prosody):
                let letters = text.unicodeScalars.reduce(0) { count, scalar in
                    count + (scalar.properties.isAlphabetic || scalar.properties.numericType != nil ? 1 : 0)
                }
                let spokenRate = (rate * prosody.rate).clamped(to: honoredRates)
                return total + Double(letters) / (Self.fastestCharactersPerSecond * spokenRate)
            case .phonemes:
                return total
            }
        }
    }

    /// The characters of text to speak (what the text limit counts).
    public var spokenCharacterCount: Int {
        parts.reduce(0) { total, part in
            switch part {
            case .text(let text, _): total + text.count
            case .phonemes(let phonemes, _, let fallback, _): total + max(phonemes.count, fallback.count)
            case .pause: total
            }
        }
    }
}
