import EarshotCore
import EarshotRecognizer
import HTTPTypes

/// The body of a Speech to Text Custom request (section 3.2.2): `multipart/x-srgs-audio` with the
/// parts `x-dictionary` (PLS, optional), `x-grammar` (SRGS XML) and `x-voice` (audio), in that order.
///
/// The lexicon and grammar are read whole (they are small, and bounded by `grammarLimit`); once the
/// audio part begins, the recognizer takes the lexicon's words and the grammar — as the only
/// phrases for `GrammarList`, as hints for `GenericHints` — and the audio streams into a
/// ``RecognitionSession`` like a Speech to Text body. Part errors are 400s naming the part.
final class CustomRecognitionRequest<R: GrammarRecognizer>: RequestAudio, MultipartParts {
    enum PartName: String, CaseIterable {
        case dictionary = "x-dictionary"
        case grammar = "x-grammar"
        case voice = "x-voice"
    }

    private var reader: MultipartReader
    private let recognizer: R
    private let use: GrammarUse
    private let limits: AudioLimits
    private let grammarLimit: Int
    private let grammarLimits: GrammarLimits
    private var current: PartName?
    private var seen: [PartName] = []
    private var collected: [UInt8] = []
    private var lexicon: PronunciationLexicon?
    private var grammar: RecognitionGrammar?
    private var session: RecognitionSession<R>?

    static var order: String { "multipart/x-srgs-audio parts go x-dictionary (optional), x-grammar, x-voice" }

    init(
        boundary: String, context: SpeechContext, recognizer: R, limits: AudioLimits,
        grammarLimit: Int, grammarLimits: GrammarLimits
    ) {
        reader = MultipartReader(boundary: boundary)
        self.recognizer = recognizer
        use = context == .grammarList ? .only : .hints
        self.limits = limits
        self.grammarLimit = grammarLimit
        self.grammarLimits = grammarLimits
    }

    var audioBytes: Int { session?.audioBytes ?? 0 }
    var audioTime: Double { session?.audioTime ?? 0 }

    func consume(_ bytes: [UInt8]) throws {
        try reader.feed(bytes, into: self, kind: "multipart", variables: "Content-Type")
    }

    func partialResult() throws -> RecognitionResult? { try session?.partialResult() }

    func finish() throws -> RecognitionResult {
        try reader.finish(kind: "multipart", variables: "Content-Type")
        guard let session else {
            throw ServiceError.badRequest("the request has no x-voice part; \(Self.order)", variables: "x-voice")
        }
        return try session.finish()
    }

    func abandon() { session?.abandon() }

    func begin(_ headers: [String: String]) throws {
        let disposition = MediaType(header: headers["content-disposition"] ?? "")
        guard let nameText = disposition.parameters["name"] else {
            throw ServiceError.badRequest(
                "a part has no Content-Disposition name; expected form-data; name=\"x-grammar\" and the like; "
                    + Self.order, variables: "Content-Disposition")
        }
        guard let name = PartName(rawValue: nameText.lowercased()) else {
            throw ServiceError.badRequest(
                "part \"\(nameText)\" is not one of x-dictionary, x-grammar, x-voice", variables: nameText)
        }
        let allowed: [PartName]
        switch seen.last {
        case nil: allowed = [.dictionary, .grammar]
        case .dictionary: allowed = [.grammar]
        case .grammar: allowed = [.voice]
        case .voice: allowed = []
        }
        guard allowed.contains(name) else {
            let place =
                seen.isEmpty ? "cannot come first" : "cannot follow \(seen.map(\.rawValue).joined(separator: ", "))"
            throw ServiceError.badRequest("part \(name.rawValue) \(place); \(Self.order)", variables: name.rawValue)
        }
        guard let typeHeader = headers["content-type"] else {
            throw ServiceError.badRequest("part \(name.rawValue) has no Content-Type", variables: name.rawValue)
        }
        seen.append(name)
        current = name
        collected = []
        let type = MediaType(header: typeHeader).type
        switch name {
        case .dictionary where type != "application/pls+xml":
            throw ServiceError.badRequest(
                "part x-dictionary has Content-Type \(typeHeader); expected application/pls+xml",
                variables: "x-dictionary")
        case .grammar where type != "application/srgs+xml":
            let hint = type == "application/srgs" ? " (the ABNF form is not supported)" : ""
            throw ServiceError.badRequest(
                "part x-grammar has Content-Type \(typeHeader); expected application/srgs+xml\(hint)",
                variables: "x-grammar")
        case .voice:
            try startRecognizing(typeHeader)
        default:
            break
        }
    }

    func receive(_ chunk: [UInt8]) throws {
        if current == .voice {
            try session!.consume(chunk)
            return
        }
        collected.append(contentsOf: chunk)
        if collected.count > grammarLimit {
            var error = ServiceError.badRequest(
                "part \(current!.rawValue) is larger than this service's limit of \(grammarLimit) bytes",
                variables: current!.rawValue)
            error.status = .contentTooLarge
            throw error
        }
    }

    func end() throws {
        defer { current = nil }
        do {
            switch current {
            case .dictionary:
                lexicon = try PronunciationLexicon(pls: collected, origin: "x-dictionary part", limits: grammarLimits)
            case .grammar:
                grammar = try RecognitionGrammar(srgs: collected, origin: "x-grammar part", limits: grammarLimits)
            case .voice, nil: break
            }
        } catch let error as EarshotError {
            throw ServiceError.badRequest(error.message, variables: current?.rawValue ?? "")
        }
        collected = []
    }

    /// The audio part has begun: teach the recognizer the lexicon and grammar, then stream.
    private func startRecognizing(_ typeHeader: String) throws {
        let contentType: AudioContentType
        do {
            contentType = try AudioContentType(header: typeHeader)
        } catch {
            var error = error
            error.text = "part x-voice: \(error.text)"
            error.variables = "x-voice"
            throw error
        }
        guard let grammar else {
            throw ServiceError.badRequest("the x-grammar part is missing; \(Self.order)", variables: "x-grammar")
        }
        do {
            if let lexicon { try recognizer.addPronunciations(lexicon) }
            try recognizer.useGrammar(grammar, as: use)
        } catch let error as EarshotError where error.code == .invalidInput {
            throw ServiceError.badRequest(
                error.message.hasPrefix("grammar:") ? "x-grammar part: \(error.message.dropFirst(9))" : error.message,
                variables: "x-grammar")
        }
        session = try RecognitionSession(
            contentType: contentType, recognizer: recognizer, limits: limits)
    }
}
