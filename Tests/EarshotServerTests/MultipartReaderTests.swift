import Testing

@testable import EarshotServer

@Suite struct MultipartReaderTests {
    static let boundary = "gc0p4Jq0M2Yt08jU534c0p"

    /// A body of parts (name, content type, bytes), with an optional preamble.
    static func body(_ parts: [(String, String, [UInt8])], preamble: String = "", close: Bool = true) -> [UInt8] {
        var bytes = Array(preamble.utf8)
        for (name, type, content) in parts {
            bytes += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n".utf8)
            bytes += content + [13, 10]
        }
        if close { bytes += Array("--\(boundary)--\r\nepilogue".utf8) }
        return bytes
    }

    /// Reads `body` in pieces of `size` bytes and gathers each part's headers and bytes.
    static func read(_ body: [UInt8], pieces size: Int) throws -> (parts: [([String: String], [UInt8])], complete: Bool) {
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
}
