import Foundation

/// The services an access token opens (section 3.5.1): `SPEECH` for Speech to Text, `STTC` for
/// Speech to Text Custom, and `TTS` for Text to Speech (`/speech/v3/textToSpeech`, `/v1/audio/speech`).
/// A token request may ask for several, comma-separated.
public struct OAuthScope: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Speech to Text (`/speech/v3/speechToText`).
    public static let speech = OAuthScope(rawValue: 1 << 0)
    /// Speech to Text Custom (`/speech/v3/speechToTextCustom`).
    public static let speechToTextCustom = OAuthScope(rawValue: 1 << 1)
    /// Text to Speech (`/speech/v3/textToSpeech` and OpenAI's `/v1/audio/speech`).
    public static let textToSpeech = OAuthScope(rawValue: 1 << 2)

    /// Parses a `scope` form field such as `SPEECH`, `STTC` or `SPEECH,STTC` (case-insensitive);
    /// nil when it is empty or names an unknown scope.
    public init?(field: String) {
        var scope: OAuthScope = []
        for name in field.split(separator: ",", omittingEmptySubsequences: false) {
            switch name.trimmingCharacters(in: .whitespaces).uppercased() {
            case "SPEECH": scope.insert(.speech)
            case "STTC": scope.insert(.speechToTextCustom)
            case "TTS": scope.insert(.textToSpeech)
            default: return nil
            }
        }
        guard !scope.isEmpty else { return nil }
        self = scope
    }

    /// The scope's names as the token request spells them.
    public var description: String {
        var names: [String] = []
        if contains(.speech) { names.append("SPEECH") }
        if contains(.speechToTextCustom) { names.append("STTC") }
        if contains(.textToSpeech) { names.append("TTS") }
        return names.joined(separator: ",")
    }
}
