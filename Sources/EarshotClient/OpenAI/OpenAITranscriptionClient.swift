import AsyncHTTPClient
public import EarshotCodecs
public import EarshotWire
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A client of OpenAI's transcription API (`POST …/v1/audio/transcriptions`), as whisper.cpp's
/// server, faster-whisper and vLLM servers, hosted services and `earshot serve` speak it: one audio
/// file per request, as `multipart/form-data`, answered with `verbose_json` (segments, and word
/// times where the server has them).
///
/// Failures are ``SpeechClientError``s, as the Speech API client's: a refused connection, a timeout,
/// or an HTTP status with the server's `{"error": …}` message, so callers retry and report both
/// protocols alike.
public final class OpenAITranscriptionClient: Sendable {
    public struct Configuration: Sendable {
        /// The transcription endpoint, `…/v1/audio/transcriptions`.
        public var url: String
        /// The Bearer key, if the server wants one (a fixed key, or a token from ``tokens``).
        public var apiKey: String?
        /// The `model` field.
        public var model: String
        /// The `language` field (ISO-639-1), or nil to let the server decide.
        public var language: String?
        /// The `prompt` field, or nil.
        public var prompt: String?
        public var connectionTimeout: Double = 10
        public var responseTimeout: Double = 60

        public init(url: String, apiKey: String?, model: String, language: String? = nil, prompt: String? = nil) {
            self.url = url
            self.apiKey = apiKey
            self.model = model
            self.language = language
            self.prompt = prompt
        }
    }

    public let configuration: Configuration
    /// The format segments are sent in (WAV reads everywhere; FLAC and Opus where the server takes them).
    public let audioFormat: CodecFormat
    private let http: HTTPClient
    /// OAuth tokens used as the key (for `earshot serve`), when no fixed key is given.
    private let tokens: TokenProvider?

    /// `credentials`: an app key and secret whose `SPEECH` token (from `/oauth/token` on the same
    /// host) is the key, for `earshot serve`.
    public init(
        configuration: Configuration, audioFormat: CodecFormat = .wav,
        credentials: (appKey: String, secret: String)? = nil
    ) throws(SpeechClientError) {
        try Self.validate(configuration)
        self.configuration = configuration
        self.audioFormat = audioFormat
        http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .recognitionService(
                connectionTimeout: configuration.connectionTimeout, readTimeout: configuration.responseTimeout))
        if let credentials, configuration.apiKey == nil {
            tokens = TokenProvider(
                client: http, tokenURL: SpeechClient.tokenURL(for: configuration.url), appKey: credentials.appKey,
                secret: credentials.secret, scope: "SPEECH", connectionTimeout: configuration.connectionTimeout)
        } else {
            tokens = nil
        }
    }

    /// Checks the URL and model, as ``init(configuration:audioFormat:credentials:)`` does, without
    /// making a client.
    public static func validate(_ configuration: Configuration) throws(SpeechClientError) {
        guard let url = URL(string: configuration.url), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else {
            throw .invalidURL("\(configuration.url): expected an http(s) URL ending in /v1/audio/transcriptions")
        }
        guard !configuration.model.isEmpty else { throw .invalidParameter("model: expected a model name") }
    }

    /// Releases the connection pool in the background (never blocking an event loop).
    deinit { http.shutdown { _ in } }

    /// Transcribes one file: `audio` in `contentType`, sent as `fileName` (servers that look at the
    /// name see its extension).
    public func transcribe(_ audio: [UInt8], fileName: String, contentType: String) async throws(SpeechClientError)
        -> OpenAITranscription.Verbose
    {
        let boundary = "earshot-" + UUID().uuidString
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.headers.add(name: "Accept", value: "application/json")
        if let key = try await key() { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        request.body = .bytes(
            ByteBuffer(bytes: body(audio, fileName: fileName, contentType: contentType, boundary: boundary)))
        let status: Int
        let reply: [UInt8]
        let retryAfter: String?
        do {
            let response = try await http.execute(
                request, timeout: .seconds(Int64(configuration.connectionTimeout + configuration.responseTimeout)))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            reply = Array(buffer: try await response.body.collect(upTo: 16 << 20))
        } catch {
            throw HTTPFailure.classify(error, during: "the transcription request to \(configuration.url)")
        }
        guard status == 200 else {
            if status == 401 { await tokens?.invalidate() }
            throw .httpStatus(
                status, RequestError(openAI: reply), retryAfter: SpeechClientError.retryAfter(header: retryAfter))
        }
        do {
            return try JSONDecoder().decode(OpenAITranscription.Verbose.self, from: Data(reply))
        } catch {
            throw .noResponseFromServer(
                "\(configuration.url) answered 200 with something other than verbose_json JSON: "
                    + String(decoding: reply.prefix(200), as: UTF8.self))
        }
    }

    private func key() async throws(SpeechClientError) -> String? {
        if let key = configuration.apiKey { return key }
        return try await tokens?.token()
    }

    /// The form: the options, then the file (servers that stream the file read the options first).
    func body(_ audio: [UInt8], fileName: String, contentType: String, boundary: String) -> [UInt8] {
        var fields: [(String, String)] = [
            ("model", configuration.model), ("response_format", "verbose_json"),
            ("timestamp_granularities[]", "word"), ("timestamp_granularities[]", "segment"),
        ]
        if let language = configuration.language { fields.append(("language", language)) }
        if let prompt = configuration.prompt { fields.append(("prompt", prompt)) }
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\n"
                + "Content-Type: \(contentType)\r\n\r\n").utf8)
        body += audio
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }
}

extension RequestError {
    /// An OpenAI-style error body (`{"error": {"message", "type", "param", "code"}}`), as
    /// `OpenAI <type or code>: <message> (param)`.
    init?(openAI data: [UInt8]) {
        guard let body = try? JSONDecoder().decode(OpenAITranscription.ErrorBody.self, from: Data(data)) else {
            return nil
        }
        kind = "OpenAI"
        messageID = body.error.code ?? body.error.type ?? "error"
        text = body.error.message
        variables = body.error.param ?? ""
    }
}
