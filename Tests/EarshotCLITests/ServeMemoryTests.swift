import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The service's memory against a real `earshot serve`: what requests take must come back.
/// (`Benchmarks/service/soak.py` runs the long, mixed version and plots it.)
@Suite(.serialized, .waiting) struct ServeMemoryTests {
    typealias Server = ServeCommandTests.Server

    /// A Speech to Text Custom request that teaches the recognizer a word ("clubz") with a PLS lexicon
    /// and names it in the cards grammar.
    static func lexiconRequest(token: String) throws -> [UInt8] {
        let boundary = "lexicon-boundary"
        let grammar = Array(
            String(decoding: try CardsRecordings.grammar(), as: UTF8.self)
                .replacingOccurrences(of: "<item>clubs</item>", with: "<item>clubz</item>").utf8)
        let lexicon = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
              <lexeme><grapheme>clubz</grapheme><phoneme>klʌbz</phoneme></lexeme>
            </lexicon>
            """.utf8)
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ServeHardeningTests.wav)))
        var body: [UInt8] = []
        for (name, type, content) in [
            ("x-dictionary", "application/pls+xml", lexicon), ("x-grammar", "application/srgs+xml", grammar),
            ("x-voice", "audio/wav", audio),
        ] {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n".utf8)
            body += Array("Content-Type: \(type)\r\n\r\n".utf8) + content + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        let head =
            "POST /speech/v3/speechToTextCustom HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Type: multipart/x-srgs-audio; boundary=\(boundary)\r\n"
            + "X-SpeechContext: GrammarList\r\nContent-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// A recognizer that took a lexicon is freed and another loaded; that must not leave a recognizer's
    /// worth of memory (some 90 MiB) behind each time. Before the fix the resident set grew from about
    /// 500 MiB after 5 such requests to 1.5 GiB after 20; now it stays within a few MiB a request.
    @Test func lexiconRequestsGiveTheirMemoryBack() throws {
        let server = try Server(arguments: ["--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "STTC")
        let request = try Self.lexiconRequest(token: token)
        let pid = server.process.processIdentifier
        var resident: [Double] = []
        for index in 0..<30 {
            let connection = try LoopbackConnection(port: server.port)
            connection.send(request)
            connection.read(for: 60)
            #expect(connection.statuses == [200], "request \(index): \(connection.text.prefix(500))")
            resident.append(try #require(ServeHardeningTests.residentMiB(pid)))
        }
        // After the first requests have warmed every path, 25 more may not grow it by more than 100 MiB
        // (a single recognizer left behind in each of 25 arenas would be 2 GiB).
        let growth = resident[29] - resident[4]
        #expect(growth < 100, "resident MiB per request: \(resident.map { Int($0) })")
    }
}
