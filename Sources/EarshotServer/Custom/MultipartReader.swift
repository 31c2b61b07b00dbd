import Foundation
/// Reads a `multipart/*` body (RFC 2046 §5.1) as it streams in, handing out each part's headers and
/// then its bytes as they arrive, so the audio part of a Speech to Text Custom request is
/// recognized while it uploads rather than after the whole body is held.
///
/// Bytes that might begin a delimiter (`CRLF--boundary`) are held back until the next chunk
/// settles it, so a delimiter split across chunks is still found and never leaks into a part. A
/// preamble or a part's header block longer than ``headerLimit`` is refused: they are small in any
/// honest request.
struct MultipartReader {
    enum Event: Equatable {
        /// A part begins; header names are lower-cased.
        case partBegan([String: String])
        /// The next bytes of the current part's body.
        case bytes([UInt8])
        /// The current part is complete.
        case partEnded
    }

    struct Failure: Error, Equatable {
        var message: String
    }

    static let headerLimit = 16 * 1024

    private enum State {
        case preamble, headers, body, afterDelimiter, epilogue
    }

    /// `--boundary`: opens the first part.
    private let dashBoundary: [UInt8]
    /// `CRLF--boundary`: ends every part's body.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var buffer: [UInt8] = []
    /// Where in `buffer` the bytes not yet searched for the current state's pattern begin: a pattern
    /// found later must end past it. Without it, a body cut into tiny chunks would have its held
    /// bytes (up to ``headerLimit``) rescanned for every chunk — quadratic (the `multipart` fuzz target
    /// found a 5 KB body that took 1.7 s fed byte by byte).
    private var unscanned = 0
    /// Whether the closing delimiter (`--boundary--`) has been read.
    private(set) var isComplete = false

    init(boundary: String) {
        dashBoundary = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Consumes the next bytes of the body and returns what they completed.
    mutating func consume(_ bytes: [UInt8]) throws(Failure) -> [Event] {
        unscanned = buffer.count
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        // Each step that advances changes the buffer or the pattern sought: search it all again.
        while try step(&events) { unscanned = 0 }
        return events
    }

    /// Checks that the body ended where a multipart body may: after its closing delimiter.
    func finish() throws(Failure) {
        switch state {
        case .epilogue: return
        case .preamble: throw Failure(message: "the body holds no part: the boundary never appears")
        case .headers: throw Failure(message: "the body ends inside a part's headers")
        case .body, .afterDelimiter: throw Failure(message: "the body ends inside a part, before the closing boundary")
        }
    }

    /// Advances one state; false when more bytes are needed.
    private mutating func step(_ events: inout [Event]) throws(Failure) -> Bool {
        switch state {
        case .preamble:
            // The first boundary may open the body or follow a preamble line.
            if buffer.starts(with: dashBoundary) {
                buffer.removeFirst(dashBoundary.count)
                state = .afterDelimiter
                return true
            }
            // The boundary must end within the limit, whether or not the bytes after it have arrived:
            // the verdict is the same however the body is cut (a long preamble sent in one piece too).
            let found = search(delimiter)
            if (found.map { $0 + delimiter.count } ?? buffer.count) > Self.headerLimit {
                throw Failure(message: "no boundary in the first \(Self.headerLimit) bytes")
            }
            guard let found else { return false }
            buffer.removeFirst(found + delimiter.count)
            state = .afterDelimiter
            return true
        case .afterDelimiter:
            // `--` closes the body; otherwise optional blanks and CRLF open the next part.
            guard buffer.count >= 2 else { return false }
            if buffer[0] == UInt8(ascii: "-") && buffer[1] == UInt8(ascii: "-") {
                buffer.removeAll()
                isComplete = true
                state = .epilogue
                return false
            }
            let blanks = buffer.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
            // Padding is a few blanks in any honest body; unbounded, it would be held and rescanned
            // without end (it is neither a part nor audio, so no other limit applies to it).
            if blanks > Self.headerLimit {
                throw Failure(message: "a boundary line is followed by more than \(Self.headerLimit) blanks")
            }
            guard buffer.count >= blanks + 2 else { return false }
            guard buffer[blanks] == 13, buffer[blanks + 1] == 10 else {
                throw Failure(message: "a boundary line is followed by something other than a line end")
            }
            buffer.removeFirst(blanks + 2)
            state = .headers
            return true
        case .headers:
            // The headers end at a blank line (at once, for a part without headers), which must end
            // within the limit: as for the preamble, the verdict does not depend on how the body is cut.
            let end = buffer.starts(with: [13, 10]) ? 0 : search([13, 10, 13, 10])
            let separatorLength = end == 0 ? 2 : 4
            if (end.map { $0 + separatorLength } ?? buffer.count) > Self.headerLimit {
                throw Failure(message: "a part's headers run past \(Self.headerLimit) bytes")
            }
            guard let end else { return false }
            let headers = try Self.headers(buffer[..<end])
            buffer.removeFirst(end + separatorLength)
            events.append(.partBegan(headers))
            state = .body
            return true
        case .body:
            if let found = search(delimiter) {
                if found > 0 { events.append(.bytes(Array(buffer[..<found]))) }
                buffer.removeFirst(found + delimiter.count)
                events.append(.partEnded)
                state = .afterDelimiter
                return true
            }
            // Keep back what could be the start of a delimiter cut by the chunk's end.
            let safe = buffer.count - Self.partialMatch(of: delimiter, atEndOf: buffer)
            if safe > 0 {
                events.append(.bytes(Array(buffer[..<safe])))
                buffer.removeFirst(safe)
            }
            return false
        case .epilogue:
            buffer.removeAll()
            return false
        }
    }

    private static func headers(_ block: ArraySlice<UInt8>) throws(Failure) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: block, as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(message: "a part header line has no colon: \"\(line.prefix(80))\"")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// The first index where `pattern` occurs in `buffer`, looking only where it would end among the
    /// unscanned bytes.
    private func search(_ pattern: [UInt8]) -> Int? {
        Self.find(pattern, in: buffer, from: max(0, unscanned - pattern.count + 1))
    }

    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = start
        let last = bytes.count - pattern.count
        while index <= last {
            guard let candidate = bytes[index...last].firstIndex(of: first) else { return nil }
            if bytes[candidate..<candidate + pattern.count].elementsEqual(pattern) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// The length of the longest proper prefix of `pattern` that `bytes` ends with.
    static func partialMatch(of pattern: [UInt8], atEndOf bytes: [UInt8]) -> Int {
        var length = min(pattern.count - 1, bytes.count)
        while length > 0 {
            if bytes[(bytes.count - length)...].elementsEqual(pattern[..<length]) { return length }
            length -= 1
        }
        return 0
    }
}
