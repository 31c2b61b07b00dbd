import ArgumentParser
import EarshotCore
import EarshotServer
import Foundation

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the recognition service: the AT&T Speech API v3, served locally.",
        discussion: """
            Serves POST /oauth/token and POST /speech/v3/speechToText with the embedded recognizer, \
            recognizing each upload while it streams in. Stops gracefully on SIGINT or SIGTERM.

            Without --credentials, one app key and secret are generated at start and printed once, \
            to standard error; there is no default secret. Logs go to standard error, one line per \
            request with its ResponseId; tokens and secrets are never logged.

            Examples:
              earshot serve
              earshot serve --port 8443 --credentials apps.txt
              curl --include --data "client_id=$APP_KEY&client_secret=$SECRET_KEY&grant_type=client_credentials&scope=SPEECH" http://127.0.0.1:8080/oauth/token
            """
    )

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one, printed at start).")
    var port: Int = 8080

    @Option(help: "File of app_key:secret lines, one per app allowed to ask for tokens.")
    var credentials: String?

    @Option(help: "Recognizers that may run at once; more concurrent requests get 503 with Retry-After.")
    var recognizers: Int = 4

    @Option(help: "Longest audio accepted in one request, in seconds (413 beyond).")
    var maxAudioDuration: Double = 60

    @Option(help: "Largest lexicon or grammar part of a speechToTextCustom request, in bytes (413 beyond).")
    var maxGrammarBytes: Int = 1 << 20

    @Option(help: "Seconds an upload may send nothing before it is abandoned with 408.")
    var readTimeout: Double = 10

    @Option(help: "Access token lifetime in seconds.")
    var accessTokenLifetime: Int = 7_200

    @Option(help: "Refresh token lifetime in seconds.")
    var refreshTokenLifetime: Int = 86_400

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        guard recognizers > 0 else { throw ValidationError("--recognizers must be at least 1") }
        guard maxGrammarBytes > 0 else { throw ValidationError("--max-grammar-bytes must be at least 1") }
        guard maxAudioDuration > 0, readTimeout > 0, accessTokenLifetime > 0, refreshTokenLifetime > 0 else {
            throw ValidationError("durations and lifetimes must be positive")
        }
        guard SpeechService.logLevel(named: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() throws {
        let apps: Credentials
        if let credentials {
            apps = try Credentials(contentsOfFile: credentials)
        } else {
            let generated = Credentials.random()
            apps = generated.credentials
            FileHandle.standardError.write(
                Data(
                    "earshot serve: no --credentials given; this run's only app is APP_KEY=\(generated.appKey) SECRET_KEY=\(generated.secret)\n"
                        .utf8))
        }
        let configuration = ServiceConfiguration(
            host: host, port: port, credentials: apps,
            tokenLifetimes: .init(
                accessToken: .seconds(accessTokenLifetime), refreshToken: .seconds(refreshTokenLifetime)),
            maxAudioDuration: maxAudioDuration, maxGrammarBytes: maxGrammarBytes, readTimeout: .milliseconds(Int(readTimeout * 1000)),
            recognizerCount: recognizers)
        let host = self.host
        let level = SpeechService.logLevel(named: logLevel) ?? .info
        // The command line is synchronous; the service runs on Swift's concurrency pool while this
        // thread waits for it to stop.
        let outcome = ServeOutcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await SpeechService.runUntilSignalled(configuration: configuration, logLevel: level) { port in
                    FileHandle.standardError.write(Data("earshot serve: listening on http://\(host):\(port)\n".utf8))
                }
            } catch {
                outcome.set(error)
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }
}

/// The error the service stopped with, handed from its task to the waiting command thread.
private final class ServeOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
