import Foundation

/// The speech contexts of the Speech API (section 2.1.2 of the AT&T document): the value of the
/// `X-SpeechContext` header, which names the usage scenario a request is tuned for.
///
/// Every Speech to Text context is served by the same embedded n-gram model; the custom contexts
/// decide how the request's grammar is used.
public enum SpeechContext: String, CaseIterable, Sendable {
    case voiceMail = "VoiceMail"
    case businessSearch = "BusinessSearch"
    case questionAndAnswer = "QuestionAndAnswer"
    case webSearch = "WebSearch"
    case sms = "Sms"
    case generic = "Generic"
    case tv = "TV"
    /// Speech to Text Custom: the general model, favouring the grammar's phrases.
    case genericHints = "GenericHints"
    /// Speech to Text Custom: only the grammar's phrases.
    case grammarList = "GrammarList"

    /// The context named `header`, compared without regard to case (the seed itself writes both
    /// `webSearch` and `WebSearch`).
    public init?(header: String) {
        let wanted = header.trimmingCharacters(in: .whitespaces).lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == wanted }) else { return nil }
        self = match
    }

    /// Whether the context belongs to Speech to Text Custom, which needs a grammar.
    public var isCustom: Bool { self == .genericHints || self == .grammarList }
}
