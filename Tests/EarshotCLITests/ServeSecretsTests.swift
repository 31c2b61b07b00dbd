import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Issue 35, items 5–7, against a real `earshot serve` on loopback: secrets files read strictly and
/// only when no one else may read them, tokens with one spelling, and grammar entities refused.
@Suite(.serialized, .waiting) struct ServeSecretsTests {
    typealias Server = ServeCommandTests.Server

    /// `earshot serve` with `arguments`, expected to refuse to start: its exit status and errors.
    static func refusedStart(_ arguments: [String]) throws -> (status: Int32, standardError: String) {
        let result = try ExternalTool.run([ExternalTool.earshotPath, "serve", "--port", "0"] + arguments)
        return (result.status, result.standardError)
    }

    /// A token request for `appKey` with `secret`: the status and the access token, if one came.
    static func token(port: Int, appKey: String, secret: String, scope: String = "SPEECH") throws -> (Int, String?) {
        let form = "client_id=\(appKey)&client_secret=\(secret)&grant_type=client_credentials&scope=\(scope)"
        let connection = try LoopbackConnection(port: port)
        connection.send(
            "POST /oauth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\r\n\(form)")
        connection.read(for: 30)
        let body = connection.text.components(separatedBy: "\r\n\r\n").last ?? ""
        let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return (connection.statuses.first ?? 0, document?["access_token"] as? String)
    }

    /// `GET /v1/models` with `token`: the status.
    static func models(port: Int, token: String) throws -> Int {
        let connection = try LoopbackConnection(port: port)
        connection.send(
            "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n")
        connection.read(for: 30)
        return connection.statuses.first ?? 0
    }

    @Test func secretsFilesOthersMayReadStopTheServiceNamingThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keys = try directory.write(Array("sk-earshot-test-0123456789abcdef\n".utf8), to: "keys.txt")
        let apps = try directory.write(Array("app1:secretone\n".utf8), to: "apps.txt")
        let key = try directory.write(
            Array("00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0\n".utf8), to: "token.key")
        for (option, path, mode, what) in [
            ("--api-keys", keys, 0o644, "the API key file"), ("--credentials", apps, 0o666, "the credentials file"),
            ("--token-key", key, 0o640, "the token key file"),
        ] {
            try #require(chmod(path, mode_t(mode)) == 0)
            let (status, errors) = try Self.refusedStart([option, path])
            #expect(status == 2, "\(option): \(errors)")
            #expect(
                errors.contains(
                    "earshot: \(path): \(what) may be read or written by other users (mode \(String(mode, radix: 8))); chmod 600 it"
                ), "\(option): \(errors)")
            #expect(!errors.contains("listening") && !errors.contains("secretone") && !errors.contains("sk-earshot"))
        }
    }

    @Test func aLooseCredentialsLineStopsTheServiceNamingTheLineButNotTheSecret() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = try directory.writeSecret(
            Array("# apps\r\napp1:secretone\r\napp7:secret7 # old\r\n".utf8), to: "apps.txt")
        let (status, errors) = try Self.refusedStart(["--credentials", apps])
        #expect(status == 2, "\(errors)")
        #expect(errors.contains("earshot: \(apps), line 3: a space; expected app_key:secret"), "\(errors)")
        #expect(!errors.contains("secret7") && !errors.contains("secretone") && !errors.contains("listening"))
    }

    /// A credentials file saved with CR LF line ends: both apps get tokens, with exactly their secrets;
    /// and a token whose signature's spare bits are changed is refused (401), where the token is not.
    @Test func aCarriageReturnCredentialsFileServesBothAppsAndATokenHasOneSpelling() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let apps = try directory.writeSecret(
            Array("# apps\r\napp1:secretone\r\napp2:secrettwo\r\n".utf8), to: "apps.txt")
        let server = try Server(arguments: ["--credentials", apps, "--log-level", "warning"])
        defer { _ = server.stop() }
        let (one, token) = try Self.token(port: server.port, appKey: "app1", secret: "secretone")
        #expect(one == 200)
        let (two, other) = try Self.token(port: server.port, appKey: "app2", secret: "secrettwo")
        #expect(two == 200 && other != nil)
        #expect(try Self.token(port: server.port, appKey: "app1", secret: "secretone%0D").0 == 401)
        let access = try #require(token)
        #expect(try Self.models(port: server.port, token: access) == 200)
        // The signature's last character carries 2 spare bits: its 3 other spellings are refused.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: access.last!))
        for bits in 1..<4 {
            let tampered = String(access.dropLast()) + String(alphabet[(last & ~3) | bits])
            #expect(try Self.models(port: server.port, token: tampered) == 401, "\(tampered)")
        }
    }

    @Test func aGrammarWithAnEntityGets400NamingIt() throws {
        let server = try Server(arguments: ServeHardeningTests.quick())
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "STTC")
        let externalDTD =
            "<!DOCTYPE grammar PUBLIC \"-//W3C//DTD GRAMMAR 1.0//EN\" \"http://www.w3.org/TR/speech-grammar/grammar.dtd\">"
        for (grammar, entity) in [
            (
                "<grammar root='cards'><rule id='cards'><item>&foo;</item></rule></grammar>",
                "the entity reference &foo;"
            ),
            // With an external DTD (never fetched), libxml2 took this for a warning and the item vanished: 200 "No Speech".
            (
                externalDTD + "<grammar root='cards'><rule id='cards'><item>&foo;</item></rule></grammar>",
                "the entity reference &foo;"
            ),
            (
                "<!DOCTYPE grammar [<!ENTITY foo \"ace\">]>\n<grammar root='cards'><rule id='cards'><item>&foo;</item></rule></grammar>",
                "an entity declaration (<!ENTITY foo"
            ),
        ] {
            let reply = try ServeHardeningTests.custom(server, token: token, grammar: Array(grammar.utf8))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.text.contains("\"MessageId\":\"SVC0001\""), "\(reply.text)")
            #expect(reply.text.contains("x-grammar part: line 1: \(entity)"), "\(reply.text)")
        }
        #expect(server.process.isRunning)
    }
}
