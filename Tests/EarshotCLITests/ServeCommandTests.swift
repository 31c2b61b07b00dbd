import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot serve` as a user runs it, driven by the curl commands of section 3.9 of the AT&T
/// document with only the host changed (`https://api.att.com` → the local plain-HTTP service).
@Suite(.serialized, .waiting) struct ServeCommandTests {
    /// The seed's examples 3-5, 3-6, 3-7 and 3-8, verbatim but for the URL.
    static let seedCommands = [
        "token": #"""
        curl --include --data "client_id=$APP_KEY&client_secret=$SECRET_KEY&grant_type=client_credentials&scope=SPEECH" "https://api.att.com/oauth/token"
        """#,
        "success": #"""
        curl --include --request POST --data-binary "@audiofile.amr" --header "Authorization: BEARER $OAUTH_TOKEN" --header "Content-Type: audio/amr" --header "X-SpeechContext: VoiceMail" "https://api.att.com/speech/v3/speechToText"
        """#,
        "text": #"""
        curl --include --request POST --data-binary "@file.txt" --header "Authorization: BEARER $OAUTH_TOKEN" --header "Content-Type: audio/amr" --header "X-SpeechContext: VoiceMail" "https://api.att.com/speech/v3/speechToText"
        """#,
    ]

    /// A running `earshot serve --port 0` and what it printed at start.
    final class Server {
        let process = Process()
        let port: Int
        let appKey: String
        let secret: String
        private let errors = Pipe()
        private var printed = Data()

        init(arguments: [String] = []) throws {
            process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
            process.arguments = ["serve", "--port", "0"] + arguments
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var port: Int?, key: String?, secret: String?
            while port == nil {
                let data = errors.fileHandleForReading.availableData
                if data.isEmpty { break }
                printed += data
                let text = String(decoding: printed, as: UTF8.self)
                port = Self.capture(#"listening on http://127\.0\.0\.1:(\d+)"#, in: text).flatMap { Int($0) }
                key = key ?? Self.capture(#"APP_KEY=(\S+)"#, in: text)
                secret = secret ?? Self.capture(#"SECRET_KEY=(\S+)"#, in: text)
            }
            self.port = try #require(port, "earshot serve did not start: \(String(decoding: printed, as: UTF8.self))")
            self.appKey = key ?? ""
            self.secret = secret ?? ""
        }

        private var stopped: (status: Int32, standardError: String)?

        /// Sends SIGINT, waits, and returns the exit status and all it wrote to standard error; called
        /// again, returns the same.
        @discardableResult func stop() -> (status: Int32, standardError: String) {
            if let stopped { return stopped }
            process.interrupt()
            printed += errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let result = (process.terminationStatus, String(decoding: printed, as: UTF8.self))
            stopped = result
            return result
        }

        static func capture(_ pattern: String, in text: String) -> String? {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return String(text[range])
        }
    }

    /// Runs a seed command in `directory` with the host swapped for the local service.
    func curl(_ name: String, server: Server, in directory: TemporaryDirectory, token: String = "")
        throws -> (status: Int, headers: String, body: String)
    {
        let command = try #require(Self.seedCommands[name])
            .replacingOccurrences(of: "https://api.att.com", with: "http://127.0.0.1:\(server.port)")
        let result = try ExternalTool.run(
            ["bash", "-c", "cd \"$WORKDIR\" && " + command],
            environment: [
                "WORKDIR": directory.path, "APP_KEY": server.appKey, "SECRET_KEY": server.secret, "OAUTH_TOKEN": token,
            ])
        #expect(result.status == 0, "curl failed: \(result.standardError)")
        let parts = result.output.components(separatedBy: "\r\n\r\n")
        let head = parts[0]
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A token key file that is unsafe or too weak stops the service at start, naming the file (exit 2).
    @Test func aBadTokenKeyFileIsRefusedNamingIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let readable = try directory.write(Array(String(repeating: "0123456789abcdef", count: 4).utf8), to: "open.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable)
        let short = try directory.write(Array("0123456789abcdef".utf8), to: "short.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: short)
        for (path, message) in [
            (readable, "\(readable): the token key file may be read or written by other users (mode 644)"),
            (short, "\(short): the token key is 8 bytes; it needs at least 32"),
            (directory.file("missing.key"), "\(directory.file("missing.key")): cannot read the token key file"),
        ] {
            let result = try ExternalTool.run([ExternalTool.earshotPath, "serve", "--port", "0", "--token-key", path])
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.contains("earshot: " + message), "\(result.standardError)")
            #expect(!result.standardError.contains("listening"))
        }
    }

    /// A second service on a taken port says so, naming the address, and prints no credentials; the
    /// exit status is the documented I/O failure (2), not a usage error.
    @Test func aBusyPortIsNamedAndNoCredentialsArePrinted() throws {
        let first = try Server()
        defer { _ = first.stop() }
        let second = try ExternalTool.run([ExternalTool.earshotPath, "serve", "--port", "\(first.port)"])
        #expect(second.status == 2)
        #expect(
            second.standardError.contains("earshot: cannot listen on 127.0.0.1:\(first.port): the address is in use"),
            "\(second.standardError)")
        #expect(!second.standardError.contains("SECRET_KEY"))
    }

    @Test func theSeedsCurlExamplesGetTheDocumentedAnswers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
        let encode = try ExternalTool.run([ExternalTool.earshotPath, "encode", clip, directory.file("audiofile.amr")])
        #expect(encode.status == 0, "\(encode.standardError)")
        try directory.write(Array("This is a text file, not audio.\n".utf8), to: "file.txt")

        let server = try Server()
        var stopped = false
        defer { if !stopped { _ = server.stop() } }

        // Example 3-5: 200 with access_token, expires_in and refresh_token.
        let token = try curl("token", server: server, in: directory)
        #expect(token.status == 200)
        #expect(token.headers.contains("Content-Type: application/json"))
        let grant = try json(token.body)
        let accessToken = try #require(grant["access_token"] as? String)
        // Signed tokens (et1.<claims>.<signature>), opaque to the seed's clients as its hex ones were.
        let refreshToken = try #require(grant["refresh_token"] as? String)
        for issued in [accessToken, refreshToken] {
            #expect(issued.hasPrefix("et1.") && issued.split(separator: ".").count == 3, "\(issued)")
        }
        #expect(accessToken != refreshToken)
        #expect(grant["expires_in"] as? String == "7200")

        // Example 3-6: 200 with the Speech to Text JSON.
        let success = try curl("success", server: server, in: directory, token: accessToken)
        #expect(success.status == 200)
        #expect(success.headers.contains("Content-Type: application/json"))
        let recognition = try #require(try json(success.body)["Recognition"] as? [String: Any])
        #expect(recognition["Status"] as? String == "OK")
        #expect((recognition["ResponseId"] as? String)?.count == 32)
        let metrics = (recognition["Info"] as? [String: Any])?["metrics"] as? [String: Any]
        #expect(
            metrics?["audioBytes"] as? Int
                == (try Data(contentsOf: URL(fileURLWithPath: directory.file("audiofile.amr")))).count)
        let best = try #require((recognition["NBest"] as? [[String: Any]])?.first)
        for field in ["Hypothesis", "LanguageId", "Grade", "ResultText"] { #expect(best[field] is String, "\(field)") }
        #expect(best["Confidence"] is Double && best["Words"] is [String] && best["WordScores"] is [Double])

        // Example 3-7: 401 with the Bearer challenge and a PolicyException.
        let refused = try curl("success", server: server, in: directory, token: "0123456789abcdef0123456789abcdef")
        #expect(refused.status == 401)
        #expect(
            refused.headers.contains(
                "WWW-Authenticate: Bearer realm=earshot, error=invalid_token, error_description=the token is not valid")
        )
        let policy = (try json(refused.body)["RequestError"] as? [String: Any])?["PolicyException"] as? [String: Any]
        #expect(policy?["MessageId"] as? String == "POL0001")
        #expect(policy?["Variables"] as? String == "accesstoken")

        // Example 3-8: text posted as AMR is 400 with a ServiceException naming the problem.
        let text = try curl("text", server: server, in: directory, token: accessToken)
        #expect(text.status == 400)
        let service = (try json(text.body)["RequestError"] as? [String: Any])?["ServiceException"] as? [String: Any]
        #expect(service?["MessageId"] as? String == "SVC0001")
        #expect((service?["Text"] as? String)?.hasPrefix("stream format is not AMR") == true)

        let (status, log) = server.stop()
        stopped = true
        #expect(status == 0, "SIGINT stops the service gracefully: \(log)")
        #expect(log.components(separatedBy: server.secret).count == 2, "the secret is printed once, never logged")
        #expect(!log.contains(accessToken), "tokens never reach the log")
        #expect(log.contains("response_id="), "requests are logged with their ResponseId")
    }

    @Test func aCredentialsFileReplacesTheGeneratedApp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.writeSecret(Array("# apps\nmy-app:my-secret\n".utf8), to: "apps.txt")
        let server = try Server(arguments: ["--credentials", file])
        #expect(server.appKey.isEmpty, "nothing is generated or printed when a file is given")
        let ok = try ExternalTool.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--data",
            "client_id=my-app&client_secret=my-secret&grant_type=client_credentials&scope=STTC",
            "http://127.0.0.1:\(server.port)/oauth/token",
        ])
        #expect(ok.output == "200")
        let bad = try ExternalTool.run([
            "curl", "-s", "--data", "client_id=my-app&client_secret=wrong&grant_type=client_credentials&scope=SPEECH",
            "http://127.0.0.1:\(server.port)/oauth/token",
        ])
        #expect(bad.output == #"{"error":"invalid_client"}"#)
        let (status, log) = server.stop()
        #expect(status == 0)
        #expect(!log.contains("my-secret") && !log.contains("wrong"))
    }
}
