import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotRecognizer
import HTTPTypes

/// The body of `POST /v1/audio/transcriptions` and `/v1/audio/translations` (OpenAI's audio API):
/// `multipart/form-data` with the audio in a `file` part and the options as text fields, in any order.
///
/// The audio streams into a ``RecognitionSession`` as it arrives, like a Speech to Text body; its
/// format is read from its first bytes (WAV at any rate and channel count, FLAC, Ogg Opus, Ogg
/// Speex, AMR decode as they arrive; MP3, MP4/M4A, WebM, Ogg Vorbis and ADTS AAC, OpenAI's other
/// formats, once the part has ended), because clients label it loosely (`application/octet-stream`,
/// a file name). Fields
/// are small and read whole; each is checked when it ends, so a bad value is refused before the
/// audio that follows it is decoded. Errors are ``ServiceError``s naming the field in `variables`.
final class TranscriptionUpload<R: Recognizer>: RequestAudio, MultipartParts {
    /// Bytes a text field may hold (a prompt is a few hundred tokens).
    static var fieldLimit: Int { 16 * 1024 }
    /// Bytes of the file held before its format is judged: enough for any header ``CodecFormat/sniff(_:)``
    /// reads.
    static var sniffLength: Int { 512 }

    private var reader: MultipartReader
    private let recognizer: R
    private let limits: AudioLimits
    private let modelIDs: [String]
    private let languages: [String]
    /// The model the lent recognizer belongs to, and how a model field's value maps to a model id.
    private let lentModel: String
    private let resolveModel: @Sendable (String) -> String?
    /// The options read so far, handed to `settled` as each field is read.
    private var options = TranscriptionOptions()
    private let settled: Settled<TranscriptionOptions>
    private var field: String?
    private var collected: [UInt8] = []
    private var inFile = false
    private var fileHead: [UInt8] = []
    private var session: RecognitionSession<R>?

    init(
        boundary: String, recognizer: R, limits: AudioLimits, modelIDs: [String], languages: [String],
        lentModel: String, resolveModel: @escaping @Sendable (String) -> String?,
        settled: Settled<TranscriptionOptions>,
        translate: Bool
    ) {
        options.translate = translate
        self.lentModel = lentModel
        self.resolveModel = resolveModel
        reader = MultipartReader(boundary: boundary)
        self.settled = settled
        self.recognizer = recognizer
        self.limits = limits
        self.modelIDs = modelIDs
        self.languages = languages
    }

    var audioBytes: Int { session?.audioBytes ?? fileHead.count }
    var audioTime: Double { session?.audioTime ?? 0 }

    func consume(_ bytes: [UInt8]) throws {
        try reader.feed(bytes, into: self, kind: "multipart/form-data", variables: "file")
    }

    func partialResult() throws -> RecognitionResult? { try session?.partialResult() }

    func finish() throws -> RecognitionResult {
        try reader.finish(kind: "multipart/form-data", variables: "file")
        guard let model = options.model else {
            throw ServiceError.badRequest(
                "you must provide a model parameter; expected one of \(modelIDs.joined(separator: ", "))",
                variables: "model")
        }
        guard let session else {
            throw ServiceError.badRequest("the request has no file part holding the audio", variables: "file")
        }
        guard resolveModel(model) == lentModel else {
            throw ServiceError.badRequest(
                "model \(model) was given after the file part, whose audio was already being recognized by "
                    + "\(lentModel); send the model field before the file", variables: "model")
        }
        do {
            try session.setRequestOptions(
                RecognitionRequestOptions(
                    language: options.language, prompt: options.prompt,
                    temperature: options.temperature == 0 ? nil : options.temperature, translate: options.translate))
        } catch {
            // A model that cannot translate is the wrong model for the translations route.
            let field =
                switch error.option {
                case .language: "language"
                case .prompt: "prompt"
                case .temperature: "temperature"
                case .translate: "model"
                }
            throw ServiceError.badRequest("\(error.message) (model \(lentModel))", variables: field)
        }
        return try session.finish()
    }

    func abandon() { session?.abandon() }

    func begin(_ headers: [String: String]) throws {
        let disposition = MediaType(header: headers["content-disposition"] ?? "")
        guard let name = disposition.parameters["name"] else {
            throw ServiceError.badRequest(
                "a part has no Content-Disposition name; expected form-data; name=\"file\" and the like",
                variables: "file")
        }
        if name == "file" {
            guard session == nil, !inFile else {
                throw ServiceError.badRequest("the request has more than one file part", variables: "file")
            }
            inFile = true
        } else {
            field = name
            collected = []
        }
    }

    func receive(_ chunk: [UInt8]) throws {
        if inFile {
            if let session { return try session.consume(chunk) }
            fileHead += chunk
            if fileHead.count >= Self.sniffLength { try startRecognizing() }
            return
        }
        collected += chunk
        if collected.count > Self.fieldLimit {
            var error = ServiceError.badRequest(
                "field \(field ?? "") is longer than \(Self.fieldLimit) bytes", variables: field ?? "")
            error.status = .contentTooLarge
            throw error
        }
    }

    func end() throws {
        if inFile {
            if session == nil { try startRecognizing() }
            inFile = false
            return
        }
        guard let name = field else { return }
        field = nil
        try options.set(name, to: String(decoding: collected, as: UTF8.self), modelIDs: modelIDs, languages: languages)
        settled.value = options
        collected = []
    }

    /// The file's first bytes have arrived: judge its format and start decoding.
    private func startRecognizing() throws {
        let contentType: AudioContentType
        if let format = CodecFormat.sniff(fileHead), [.wav, .flac, .opus, .oggSpeex, .amr].contains(format) {
            contentType = AudioContentType(format: format)
        } else if let container = MediaContainer.sniff(fileHead) {
            contentType = AudioContentType(container: container)
        } else {
            throw ServiceError.badRequest(
                fileHead.isEmpty
                    ? "the file part is empty; expected audio"
                    : "the file is not audio this service decodes; expected what OpenAI's API takes: FLAC, MP3, "
                        + "MP4/M4A, Ogg (Opus, Vorbis, Speex), WAV or WebM; or AMR or ADTS AAC "
                        + "(convert others first, e.g. ffmpeg -i IN -ar 16000 -ac 1 OUT.wav)",
                variables: "file")
        }
        let session = try RecognitionSession(
            contentType: contentType, recognizer: recognizer, limits: limits)
        self.session = session
        let head = fileHead
        fileHead = []
        try session.consume(head)
    }
}
