import EarshotTestTraits
import Testing

@testable import EarshotServer

@Suite(.waiting) struct MultipartReaderTests {
    static let boundary = "gc0p4Jq0M2Yt08jU534c0p"

    /// A body of parts (name, content type, bytes), with an optional preamble.
    static func body(_ parts: [(String, String, [UInt8])], preamble: String = "", close: Bool = true) -> [UInt8] {
        var bytes = Array(preamble.utf8)
        for (name, type, content) in parts {
            bytes += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n"
                    .utf8)
            bytes += content + [13, 10]
        }
        if close { bytes += Array("--\(boundary)--\r\nepilogue".utf8) }
        return bytes
    }

    /// Reads `body` in pieces of `size` bytes and gathers each part's headers and bytes.
    static func read(_ body: [UInt8], pieces size: Int) throws -> (parts: [([String: String], [UInt8])], complete: Bool)
    {
        var reader = MultipartReader(boundary: boundary)
        var parts: [([String: String], [UInt8])] = []
        var open = false
        for start in stride(from: 0, to: body.count, by: size) {
            for event in try reader.consume(Array(body[start..<min(start + size, body.count)])) {
                switch event {
                case .partBegan(let headers):
                    #expect(!open)
                    parts.append((headers, []))
                    open = true
                case .bytes(let bytes):
                    #expect(open)
                    parts[parts.count - 1].1 += bytes
                case .partEnded:
                    #expect(open)
                    open = false
                }
            }
        }
        try reader.finish()
        return (parts, reader.isComplete)
    }

    @Test func partsSurviveEverySplitOfTheBody() throws {
        // Bytes that look like the start of a delimiter must stay in the part.
        let tricky = Array("a\r\n--gc0p4Jq0M2Yt08jU534c0 nearly\r\n-\r\n".utf8) + [0, 255, 13]
        let audio = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let body = Self.body(
            [("x-grammar", "application/srgs+xml", tricky), ("x-voice", "audio/wav", audio)], preamble: "ignored\r\n")
        for size in [1, 2, 3, 7, 26, 27, 28, 512, body.count] {
            let (parts, complete) = try Self.read(body, pieces: size)
            #expect(complete)
            #expect(parts.count == 2, "pieces of \(size)")
            #expect(parts.first?.0["content-disposition"] == "form-data; name=\"x-grammar\"")
            #expect(parts.first?.0["content-type"] == "application/srgs+xml")
            #expect(parts.first?.1 == tricky, "pieces of \(size)")
            #expect(parts.last?.1 == audio, "pieces of \(size)")
        }
    }

    @Test func anEmptyPartAndAPartWithoutHeadersAreRead() throws {
        var body = Array("--\(Self.boundary)\r\n\r\nbare\r\n".utf8)
        body += Self.body([("x-dictionary", "application/pls+xml", [])])
        let (parts, _) = try Self.read(body, pieces: 5)
        #expect(parts.map(\.1) == [Array("bare".utf8), []])
        #expect(parts[0].0.isEmpty)
    }

    @Test(arguments: [
        ("", "the body holds no part"),
        ("--gc0p4Jq0M2Yt08jU534c0p\r\nContent-Type: a", "ends inside a part's headers"),
        ("--gc0p4Jq0M2Yt08jU534c0p\r\nContent-Type: a\r\n\r\nhalf an upload", "before the closing boundary"),
    ])
    func truncatedBodiesAreRefused(text: String, expected: String) throws {
        var reader = MultipartReader(boundary: Self.boundary)
        _ = try reader.consume(Array(text.utf8))
        let error = #expect(throws: MultipartReader.Failure.self) { try reader.finish() }
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func garbageIsRefusedEarly() {
        var reader = MultipartReader(boundary: Self.boundary)
        let error = #expect(throws: MultipartReader.Failure.self) {
            _ = try reader.consume([UInt8](repeating: 65, count: MultipartReader.headerLimit + 1))
        }
        #expect(error?.message.contains("no boundary") == true)
        var headerless = MultipartReader(boundary: Self.boundary)
        let bad = #expect(throws: MultipartReader.Failure.self) {
            _ = try headerless.consume(Array("--\(Self.boundary)\r\nno colon here\r\n\r\n".utf8))
        }
        #expect(bad?.message.contains("no colon") == true)
    }

    /// The verdict of `body` read whole and in pieces of 1 000 bytes: parts read, or the failure.
    static func verdicts(_ body: [UInt8]) -> [String] {
        [body.count, 1_000].map { size in
            do {
                return "\(try read(body, pieces: size).parts.count) parts"
            } catch {
                return "\(error)"
            }
        }
    }

    @Test func limitsHoldHoweverTheBodyIsCut() {
        let limit = MultipartReader.headerLimit
        let part = [("x-voice", "audio/wav", Array("RIFF".utf8))]
        // A preamble and the boundary after it may fill the limit, not pass it, even when the body
        // arrives in one piece.
        let room = limit - "\r\n--\(Self.boundary)".utf8.count
        let longest = Self.body(part, preamble: String(repeating: "p", count: room) + "\r\n")
        #expect(Self.verdicts(longest) == ["1 parts", "1 parts"])
        let preamble = Self.verdicts(Self.body(part, preamble: String(repeating: "p", count: room + 1) + "\r\n"))
        #expect(preamble.count == 2 && preamble.allSatisfy { $0.contains("no boundary in the first") }, "\(preamble)")
        // The same for a part's headers.
        let header = "X-Padding: " + String(repeating: "h", count: limit)
        let headers = Self.verdicts(Self.body([("x-voice", "audio/wav\r\n\(header)", [1])]))
        #expect(headers.count == 2 && headers.allSatisfy { $0.contains("headers run past") }, "\(headers)")
    }

    @Test func blanksAfterABoundaryAreBounded() throws {
        // A few blanks after a boundary are transport padding (RFC 2046 §5.1.1) and allowed.
        var padded = Array("--\(Self.boundary) \t \r\n\r\nx\r\n--\(Self.boundary)--".utf8)
        #expect(try Self.read(padded, pieces: 3).parts.map(\.1) == [[UInt8(ascii: "x")]])
        // Endless blanks would be held and rescanned for ever: refused past the header limit, however cut.
        padded = Array("--\(Self.boundary)".utf8) + [UInt8](repeating: 32, count: MultipartReader.headerLimit + 1)
        let verdicts = Self.verdicts(padded)
        #expect(verdicts.count == 2 && verdicts.allSatisfy { $0.contains("more than") }, "\(verdicts)")
    }
}
