import AsyncHTTPClient
public import EarshotCapture
import EarshotCodecs
public import EarshotCore
import Foundation

/// Live recognition through OpenAI's Realtime transcription sessions (`ws://…/v1/realtime`, as
/// `earshot serve` and OpenAI speak them): the client's capture chain (resampler, level meter,
/// detector, endpointer, encoder) runs exactly as for ``SpeechClient/startListening(from:)``, with the
/// same events and controls, and each encoded chunk goes out as `input_audio_buffer.append` while the
/// user talks. The session has no turn detection of its own: the client's endpoint commits the
/// utterance, and its transcript ends the interaction with ``SpeechEvent/recognized(_:)``; the
/// transcription's deltas are ``SpeechEvent/partialResult(_:audioTime:)``s when asked for.
///
/// One WebSocket session per listener, opened by its first interaction and kept for the next ones
/// (opened again when the server has closed it, or after an interaction that failed or was canceled,
/// whose session is closed so nothing of it reaches the next). ``shutdown()`` closes it.
///
/// Audio is 16-bit PCM at 24 kHz (`audio/pcm` with `rate` 24000, the one rate OpenAI's sessions take),
/// resampled from the capture chain's 16 kHz (the detectors work at 8 or 16 kHz, and the chain encodes
/// at the rate it detects at) by ``RealtimeSessionAudio``.
public final class RealtimeListener: LiveRecognizer {
    public struct Configuration: Sendable {
        /// The session's URL, `ws://…/v1/realtime?intent=transcription` (or `wss://`).
        public var url: String
        /// The Bearer key: an API key or access token, app credentials whose `SPEECH` token (from
        /// `/oauth/token` on the same host) is the key, or none.
        public var authorization: SpeechRequestConfiguration.Authorization?
        /// The session's `transcription.model`.
        public var model: String
        /// The session's `transcription.language` (ISO-639-1); nil lets the server decide.
        public var language: String?
        /// Whether the transcription's deltas are reported as partial results.
        public var reportsPartialResults = false
        public var connectionTimeout: Double = 10
        /// Seconds to wait for the transcript once the utterance is committed.
        public var serverResponseTimeout: Double = 30

        public init(
            url: String, authorization: SpeechRequestConfiguration.Authorization?, model: String = "whisper-1",
            language: String? = nil
        ) {
            self.url = url
            self.authorization = authorization
            self.model = model
            self.language = language
        }
    }

    public let configuration: Configuration
    /// The capture chain's configuration; its audio format is WAV, whose header the listener drops so
    /// that what is sent is the raw little-endian PCM16 the session takes.
    public let capture: CaptureConfiguration
    /// The PCM's rate.
    var sampleRate: Int { capture.audioFormat.defaultSampleRate }

    /// Only for a token request (with app credentials).
    private let http: HTTPClient?
    private let tokens: TokenProvider?
    private let active = Locked(false)
    private let session = Locked<RealtimeConnection?>(nil)
    private let shutDown = Locked(false)

    /// `capture`'s detector, models and endpointing are used; its audio format is replaced. Throws
    /// `.invalidURL` for a URL that is not `ws://` or `wss://` with a host, `.invalidParameter` for an
    /// empty model.
    public init(configuration: Configuration, capture: CaptureConfiguration) throws(SpeechClientError) {
        guard let url = URLComponents(string: configuration.url), let scheme = url.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", url.host?.isEmpty == false
        else {
            throw .invalidURL("\(configuration.url): expected a ws:// or wss:// URL ending in /v1/realtime")
        }
        guard !configuration.model.isEmpty else { throw .invalidParameter("model: expected a model name") }
        self.configuration = configuration
        var capture = capture
        capture.audioFormat = .wav
        self.capture = capture
        if case .credentials(let key, let secret, let scope, let tokenURL) = configuration.authorization {
            let http = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .recognitionService(
                    connectionTimeout: configuration.connectionTimeout,
                    readTimeout: configuration.serverResponseTimeout))
            self.http = http
            tokens = TokenProvider(
                client: http, tokenURL: tokenURL ?? Self.tokenURL(for: configuration.url), appKey: key,
                secret: secret, scope: scope, connectionTimeout: configuration.connectionTimeout)
        } else {
            http = nil
            tokens = nil
        }
    }

    /// `http(s)://HOST/oauth/token` for a `ws(s)://HOST/…` session URL.
    static func tokenURL(for url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.scheme = components.scheme?.lowercased() == "wss" ? "https" : "http"
        return SpeechClient.tokenURL(for: components.string ?? url)
    }

    public func startListening(from open: @escaping @Sendable () throws -> any AudioSource) throws(SpeechClientError)
        -> SpeechInteraction
    {
        let interaction = try SpeechInteraction.claiming(active)
        interaction.run { [self] in await $0.runRealtime(open: open, listener: self) }
        return interaction
    }

    /// Closes the session and releases the token client (calling it again does nothing).
    public func shutdown() async throws {
        let first = shutDown.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        let open = session.withLock { open in
            defer { open = nil }
            return open
        }
        await open?.close()
        try await http?.shutdown()
    }

    deinit {
        if !shutDown.value {
            session.value?.abandon()
            http?.shutdown { _ in }
        }
    }

    /// The open session, or a new one: a key for it, the connection, and the session's settings, taken
    /// (a refused key or setting fails here, before any audio is captured).
    func openSession() async throws(SpeechClientError) -> RealtimeConnection {
        if let open = session.value, !open.isClosed { return open }
        let key: String?
        switch configuration.authorization {
        case .token(let token)?: key = token
        case .credentials?: key = try await tokens!.token()
        case nil: key = nil
        }
        // hummingbird-websocket's client (1.6.2 on NIO 2.101) loses what arrives in one read with its 101
        // answer when the server's end of the stream comes in that read too (a service that refuses at
        // once and half-closes, as hummingbird-websocket's server does after its close frame), and then
        // hangs. Earshot's service waits for the client's first message before such a close; for other
        // services, a session that has not taken its settings in a third of the connection timeout is
        // opened again, at most twice.
        let attempts = 3
        for attempt in 1...attempts {
            let connection = try await RealtimeConnection.open(
                url: configuration.url, key: key, connectionTimeout: configuration.connectionTimeout)
            await connection.send(
                RealtimeClientEvent.sessionUpdate(
                    rate: RealtimeSessionAudio.sessionRate, model: configuration.model,
                    language: configuration.language))
            do {
                try await connection.waitUntilConfigured(within: configuration.connectionTimeout / Double(attempts))
            } catch {
                connection.abandon()
                if case .noResponseFromServer = error, attempt < attempts { continue }
                throw error
            }
            session.withLock { $0 = connection }
            return connection
        }
        throw .noResponseFromServer("\(configuration.url) did not take the session's settings")
    }

    /// Drops the session after an interaction that did not end with its transcript: whatever of it is
    /// still in flight must not reach the next one. A refused key is forgotten, so the next session
    /// asks for a new token.
    func discardSession(after error: SpeechClientError) async {
        let open = session.withLock { open in
            defer { open = nil }
            return open
        }
        open?.abandon()
        if case .httpStatus(401, _, _) = error { await tokens?.invalidate() }
    }
}
