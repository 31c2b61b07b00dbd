import AsyncHTTPClient
import EarshotCodecs
public import EarshotCore
import Foundation
import NIOCore

/// The speech client: the SDK's `ATTSpeechService` for Linux. Configure it once, then run one
/// interaction at a time — live (``startListening(from:)``) or with recorded audio
/// (``start(audioData:contentType:)``) — and read its ``SpeechInteraction/events``.
///
/// ```swift
/// let client = try SpeechClient(configuration: .init(
///     recognitionURL: "http://127.0.0.1:8080/speech/v3/speechToText",
///     authorization: .credentials(appKey: key, secret: secret, scope: "SPEECH", tokenURL: nil)))
/// let interaction = try client.startListening { try ALSACaptureSource() }
/// for await event in interaction.events {
///     if case .succeeded(let response) = event { print(response.strings.first ?? "") }
/// }
/// try await client.shutdown()
/// ```
public final class SpeechClient: Sendable {
    public let configuration: SpeechRequestConfiguration
    let http: HTTPClient
    let tokens: TokenProvider?
    private let active = Locked(false)
    private let shutDown = Locked(false)

    /// Checks the configuration (throws `.invalidURL` or `.invalidParameter` naming the property). Tokens
    /// fetched with app credentials are renewed before they expire by `clock`.
    public init(configuration: SpeechRequestConfiguration, clock: WallClock = .system) throws(SpeechClientError) {
        try configuration.validate()
        self.configuration = configuration
        http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .recognitionService(
                connectionTimeout: configuration.connectionTimeout, readTimeout: configuration.serverResponseTimeout))
        if case .credentials(let key, let secret, let scope, let tokenURL) = configuration.authorization {
            tokens = TokenProvider(
                client: http, tokenURL: tokenURL ?? Self.tokenURL(for: configuration.recognitionURL), appKey: key,
                secret: secret, scope: scope, connectionTimeout: configuration.connectionTimeout, clock: clock)
        } else {
            tokens = nil
        }
    }

    /// Releases the connection pool; call when done with the client (calling it again does nothing).
    public func shutdown() async throws {
        guard claimShutdown() else { return }
        try await http.shutdown()
    }

    /// A client dropped without ``shutdown()`` still releases its pool, in the background, rather than
    /// stopping the process as AsyncHTTPClient does for a client that was never shut down.
    deinit {
        if claimShutdown() { http.shutdown { _ in } }
    }

    private func claimShutdown() -> Bool {
        shutDown.withLock { done in
            defer { done = true }
            return !done
        }
    }

    /// `…/oauth/token` on the recognition URL's host.
    static func tokenURL(for recognitionURL: String) -> String {
        guard var components = URLComponents(string: recognitionURL) else { return recognitionURL }
        components.path = "/oauth/token"
        components.query = nil
        return components.string ?? recognitionURL
    }

    /// Starts a live interaction: `open` makes the audio source (a microphone, or a paced file) on
    /// the capture thread; capture, endpointing, encoding and upload run until the endpointer, a
    /// timeout, ``SpeechInteraction/stopListening()`` or ``SpeechInteraction/cancel()`` ends it.
    /// Throws `.attemptAtReentrancy` while another interaction runs.
    public func startListening(from open: @escaping @Sendable () throws -> any AudioSource) throws(SpeechClientError)
        -> SpeechInteraction
    {
        let interaction = try SpeechInteraction.claiming(active)
        interaction.run { [self] in await $0.runLive(open: open, client: self) }
        return interaction
    }

    /// Uploads recorded audio already in a wire format (`contentType`, or the configuration's), with
    /// `Content-Length`. Throws `.attemptAtReentrancy` while another interaction runs.
    public func start(audioData: [UInt8], contentType: String? = nil) throws(SpeechClientError) -> SpeechInteraction {
        let type = contentType ?? configuration.contentType ?? configuration.audioFormat.contentType()
        let interaction = try SpeechInteraction.claiming(active)
        interaction.run { [self] in await $0.runUpload(audioData, contentType: type, client: self) }
        return interaction
    }

    /// A token for a request: the configured one, or one from the token provider.
    func token() async throws(SpeechClientError) -> String {
        switch configuration.authorization {
        case .token(let token): return token
        case .credentials: return try await tokens!.token()
        }
    }
}
