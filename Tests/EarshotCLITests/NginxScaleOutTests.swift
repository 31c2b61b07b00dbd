import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Two `earshot serve` instances sharing a token key behind Debian's nginx, which runs
/// Examples/nginx/earshot.conf as shipped with only its ports changed. Everything listens on
/// 127.0.0.1, on ports picked here; every process is stopped by the test.
@Suite(.serialized, .waiting) struct NginxScaleOutTests {
    typealias Server = ServeCommandTests.Server

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let wav = "/usr/share/pocketsphinx/test/data/cards/004.wav"
    static let sentence = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"
    static let appKey = "scale-out-app"
    static let secret = "scale-out-secret-8d1f4c"

    /// nginx, two instances, and the files they share.
    final class Deployment {
        let directory: TemporaryDirectory
        let instances: [Server]
        let nginx = Process()
        let port: Int

        /// Starts instance 0 with `first` arguments and instance 1 with `second`, then nginx.
        init(first: [String] = [], second: [String] = []) throws {
            directory = try TemporaryDirectory("earshot-nginx")
            let key = directory.file("token.key")
            // 32 random bytes as hex, as `openssl rand -hex 32` writes them; only the owner may read it.
            let bytes = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            try #require(
                FileManager.default.createFile(
                    atPath: key, contents: Data((bytes + "\n").utf8), attributes: [.posixPermissions: 0o600]))
            let credentials = try directory.writeSecret(Array("\(appKey):\(secret)\n".utf8), to: "apps.txt")
            let shared = [
                "--token-key", key, "--credentials", credentials, "--log-level", "warning",
            ]
            var started: [Server] = []
            for extra in [first, second] { started.append(try Server(arguments: shared + extra)) }
            instances = started
            port = try NginxScaleOutTests.freePort()
            let example = try String(
                contentsOf: repository.appendingPathComponent("Examples/nginx/earshot.conf"), encoding: .utf8)
            let site =
                example
                .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
                .replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(instances[0].port)")
                .replacingOccurrences(of: "127.0.0.1:8082", with: "127.0.0.1:\(instances[1].port)")
            try #require(site.contains("127.0.0.1:\(instances[1].port)"), "the example's addresses changed")
            _ = try directory.write(Array(site.utf8), to: "earshot.conf")
            let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map {
                "\($0)_temp_path \(directory.file($0));"
            }
            // In the foreground, one worker, with its own pid, log and temporary paths. As root, the worker stays
            // root (by default it would become nobody, who cannot enter the test's private directory).
            let main = """
                daemon off;
                worker_processes 1;
                \(getuid() == 0 ? "user root;" : "")
                pid \(directory.file("nginx.pid"));
                error_log \(directory.file("error.log")) warn;
                events { worker_connections 64; }
                http {
                    access_log \(directory.file("access.log"));
                    \(temporary.joined(separator: "\n    "))
                    include \(directory.file("earshot.conf"));
                }
                """
            _ = try directory.write(Array(main.utf8), to: "nginx.conf")
            nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            nginx.arguments = [
                "-e", directory.file("error.log"), "-p", directory.path, "-c", directory.file("nginx.conf"),
            ]
            nginx.standardOutput = FileHandle.nullDevice
            nginx.standardError = FileHandle.nullDevice
            try nginx.run()
            // Listening within 10 s, or the test fails with nginx's own log.
            var listening = false
            for _ in 0..<100 where !listening && nginx.isRunning {
                if let socket = try? LoopbackConnection.connectedSocket(port: port) {
                    close(socket)
                    listening = true
                } else {
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
            try #require(listening, "nginx did not start: \(log)")
        }

        var log: String { (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? "" }

        func stop() {
            // SIGQUIT: nginx's graceful stop; SIGKILL if it has not gone within 10 s.
            if nginx.isRunning { kill(nginx.processIdentifier, SIGQUIT) }
            for _ in 0..<100 where nginx.isRunning { Thread.sleep(forTimeInterval: 0.1) }
            if nginx.isRunning { kill(nginx.processIdentifier, SIGKILL) }
            nginx.waitUntilExit()
            for instance in instances where instance.process.isRunning { _ = instance.stop() }
            directory.remove()
        }

        /// curl against nginx (or `port`): the body and the status, which curl writes last.
        func curl(_ arguments: [String], port: Int? = nil, path: String) throws -> (status: Int, body: String) {
            let result = try ExternalTool.run(
                ["curl", "--silent", "--show-error", "--max-time", "120", "--write-out", "\n%{http_code}"] + arguments
                    + ["http://127.0.0.1:\(port ?? self.port)\(path)"])
            #expect(result.status == 0, "curl: \(result.standardError)")
            var lines = result.output.components(separatedBy: "\n")
            let status = Int(lines.removeLast()) ?? 0
            return (status, lines.joined(separator: "\n"))
        }

        func token(port: Int? = nil) throws -> String {
            let reply = try curl(
                ["--data", "client_id=\(appKey)&client_secret=\(secret)&grant_type=client_credentials&scope=SPEECH"],
                port: port, path: "/oauth/token")
            let document = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
            return try #require(document?["access_token"] as? String, "\(reply)")
        }

        /// A chunked Speech API upload of the cards recording.
        func speech(token: String, port: Int? = nil, partial: Bool = false, audio: String = NginxScaleOutTests.wav)
            throws -> (status: Int, body: String)
        {
            var headers = [
                "Authorization: Bearer \(token)", "Content-Type: audio/wav", "X-SpeechContext: Generic",
                "Transfer-Encoding: chunked",
            ]
            if partial { headers += ["X-Arg: PartialResults=true", "Accept: application/x-ndjson"] }
            return try curl(
                headers.flatMap { ["--header", $0] } + ["--data-binary", "@\(audio)"], port: port,
                path: "/speech/v3/speechToText")
        }

        /// An OpenAI-compatible upload of the cards recording.
        func openAI(token: String) throws -> (status: Int, body: String) {
            try curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--form", "model=pocketsphinx-en-us", "--form",
                    "file=@\(NginxScaleOutTests.wav)", "--form", "response_format=text",
                ], path: "/v1/audio/transcriptions")
        }

        /// One instance's metric, read from its own /metrics.
        func metric(_ series: String, of instance: Int) throws -> Double {
            let reply = try curl([], port: instances[instance].port, path: "/metrics")
            let line = reply.body.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
    }

    /// A loopback port nothing listens on now: the kernel's pick, released for the caller.
    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        try #require(bound, "no free loopback port")
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func tokensFromOneInstanceWorkOnTheOtherAndUploadsPassThroughNginx() throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        // A token from instance 0 opens instance 1, and the other way round.
        let fromFirst = try deployment.token(port: deployment.instances[0].port)
        let fromSecond = try deployment.token(port: deployment.instances[1].port)
        let crossed = try deployment.speech(token: fromFirst, port: deployment.instances[1].port)
        // Whisper writes the cards' "five five" with digits
        #expect(crossed.status == 200 && crossed.body.contains("\"Hypothesis\":\"5"), "\(crossed)")
        #expect(try deployment.speech(token: fromSecond, port: deployment.instances[0].port).status == 200)
        // Through nginx, which spreads requests over both: whichever issued the token, each accepts it.
        let token = try deployment.token()
        for _ in 0..<2 {
            let streamed = try deployment.speech(token: token)
            #expect(streamed.status == 200 && streamed.body.contains("\"Hypothesis\""), "\(streamed)")
            let openAI = try deployment.openAI(token: token)
            #expect(openAI.status == 200 && openAI.body.contains("five"), "\(openAI)")  // PocketSphinx, by name
        }
        for instance in 0..<2 {
            let served = try deployment.metric(
                #"earshot_http_requests_total{route="/speech/v3/speechToText",status="200"}"#, of: instance)
            #expect(served >= 1, "instance \(instance) served no speech request")
        }
        // Partial results come through as NDJSON lines, the final Recognition last. (Whisper reports the
        // words two decodes a second apart agree on, so a 6 s sentence, not the 2 s cards recording.)
        // Partial decodes run only on a core no result needs: beside the rest of the suite an upload can
        // end before two of them have, so the sentence is sent up to three times for one with partials
        // (CI once saw only the final line).
        var partial = try deployment.speech(token: token, partial: true, audio: Self.sentence)
        for _ in 0..<2 where partial.body.split(separator: "\n").count < 2 {
            partial = try deployment.speech(token: token, partial: true, audio: Self.sentence)
        }
        let lines = partial.body.split(separator: "\n")
        #expect(partial.status == 200 && lines.count >= 2, "\(partial)")
        #expect(
            lines.last?.contains("\"Recognition\"") == true && lines.last?.contains("more respectable") == true,
            "\(partial)")
    }

    @Test func a503FromABusyInstanceIsRetriedOnTheOther() throws {
        // Instance 0 has one recognizer, and the test holds it with an upload that waits (long grace: beside
        // a CPU hog the three requests below took over a minute).
        let deployment = try Deployment(first: ["--recognizers", "1", "--upload-grace", "600", "--read-timeout", "600"])
        defer { deployment.stop() }
        let token = try deployment.token()
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.wav)))
        let held = try LoopbackConnection(port: deployment.instances[0].port)
        held.send(
            "POST /speech/v3/speechToText HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/wav\r\nX-SpeechContext: Generic\r\nTransfer-Encoding: chunked\r\n\r\n")
        let first = Array(audio.prefix(4_096))
        held.send(Array(String(first.count, radix: 16).utf8) + [13, 10] + first + [13, 10])
        var inUse = 0.0
        for _ in 0..<100 where inUse < 1 {
            Thread.sleep(forTimeInterval: 0.1)
            inUse = try deployment.metric("earshot_recognizers_in_use", of: 0)
        }
        try #require(inUse == 1, "the held upload did not get instance 0's recognizer")
        // Round robin offers instance 0 at least one of these; each is answered by instance 1.
        for _ in 0..<3 {
            let reply = try deployment.openAI(token: token)
            #expect(reply.status == 200 && reply.body.contains("five"), "\(reply)")
        }
        #expect(try deployment.metric("earshot_unavailable_responses_total", of: 0) >= 1)
        // The held upload finishes normally.
        let rest = Array(audio.dropFirst(4_096))
        held.send(Array(String(rest.count, radix: 16).utf8) + [13, 10] + rest + [13, 10] + Array("0\r\n\r\n".utf8))
        held.read(for: 60)
        #expect(held.statuses == [200], "\(held.text)")
    }

    @Test func stoppingOneInstanceLosesNoRequest() async throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        let token = try deployment.token()
        for _ in 0..<2 { #expect(try deployment.speech(token: token).status == 200) }
        // An upload in flight on instance 1 when it gets SIGTERM: paced, so it is still arriving.
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.wav)))
        let inFlight = try LoopbackConnection(port: deployment.instances[1].port)
        inFlight.send(
            "POST /speech/v3/speechToText HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/wav\r\nX-SpeechContext: Generic\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunks = stride(from: 0, to: audio.count, by: 8_192).map { Array(audio[$0..<min($0 + 8_192, audio.count)]) }
        let (halfway, reachedHalfway) = AsyncStream.makeStream(of: Void.self)
        async let uploaded: Void = onBlockingExecutor {
            for (index, chunk) in chunks.enumerated() {
                inFlight.send(Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10])
                if index == 1 { reachedHalfway.finish() }
                Thread.sleep(forTimeInterval: 0.2)
            }
            reachedHalfway.finish()
            inFlight.send("0\r\n\r\n")
            inFlight.read(for: 60)
        }
        for await _ in halfway {}
        deployment.instances[1].process.terminate()
        // Requests keep coming through nginx while instance 1 drains and after it has gone.
        var statuses: [Int] = []
        for _ in 0..<6 {
            statuses.append(try deployment.speech(token: token).status)
            statuses.append(try deployment.openAI(token: token).status)
        }
        try await uploaded
        deployment.instances[1].process.waitUntilExit()
        #expect(statuses == Array(repeating: 200, count: 12), "\(deployment.log)")
        #expect(inFlight.statuses == [200], "the request in flight at SIGTERM: \(inFlight.text)")
        #expect(deployment.instances[1].process.terminationStatus == 0)
        // And the token still opens the instance that stayed.
        #expect(try deployment.speech(token: token, port: deployment.instances[0].port).status == 200)
    }
}
