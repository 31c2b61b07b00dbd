import EarshotCore
import EarshotTesting

@testable import EarshotServer

/// What the service's fuzz targets (`Fuzz/Targets/`) run on each input, shared with
/// `ServerFuzzRegressionTests`, which replays the seeds and every saved crash through the same code.
/// Every one of these parsers reads what a client sent before it is authenticated or bounded further.
enum ServerFuzzEntry {
    static let defaultBoundary = "gc0p4Jq0M2Yt08jU534c0p"

    /// A part as the reader reported it, for comparing two readings.
    private struct Part: Equatable {
        var headers: [String: String]
        var bytes: [UInt8] = []
        var ended = false
    }

    private struct Reading: Equatable {
        var parts: [Part] = []
        var failure: MultipartReader.Failure?
    }

    /// The `multipart/x-srgs-audio` reader. The input's first line, when it is a `Content-Type` value
    /// naming a boundary of 1–70 characters (as the service requires), gives the boundary and the rest
    /// is the body; otherwise the whole input is the body of the default boundary. The body is read
    /// whole and cut into pieces: the reader promises the same parts and the same verdict for any cut,
    /// and events in order (bytes only inside a part); a difference is a ``FuzzFinding``.
    static func multipart(_ input: [UInt8]) throws {
        var boundary = defaultBoundary
        var body = input[...]
        if let end = input.prefix(200).firstRange(of: [13, 10]) {
            let media = MediaType(header: String(decoding: input[..<end.lowerBound], as: UTF8.self))
            if media.type == "multipart/x-srgs-audio", let named = media.parameters["boundary"],
                (1...70).contains(named.count)
            {
                boundary = named
                body = input[end.upperBound...]
            }
        }
        let whole = try read(body.isEmpty ? [] : [Array(body)], boundary: boundary)
        let pieces = try read(inputPieces(Array(body)), boundary: boundary)
        // A refused body is refused whole: the parts read before the failure differ with the cut (a
        // call that throws returns no events) and are not used, so then only the verdicts must agree.
        let agree = whole.failure != nil || pieces.failure != nil ? whole.failure == pieces.failure : whole == pieces
        guard agree else {
            throw FuzzFinding(
                "read whole: \(whole.parts.count) parts, \(String(describing: whole.failure)); in pieces: "
                    + "\(pieces.parts.count) parts, \(String(describing: pieces.failure))")
        }
    }

    private static func read(_ pieces: [[UInt8]], boundary: String) throws -> Reading {
        var reader = MultipartReader(boundary: boundary)
        var reading = Reading()
        do {
            for piece in pieces {
                for event in try reader.consume(piece) {
                    let open = reading.parts.last.map { !$0.ended } ?? false
                    switch event {
                    case .partBegan(let headers):
                        guard !open else { throw FuzzFinding("a part begins inside another") }
                        // The service reads these two headers of every part.
                        _ = MediaType(header: headers["content-disposition"] ?? "")
                        _ = MediaType(header: headers["content-type"] ?? "")
                        reading.parts.append(Part(headers: headers))
                    case .bytes(let bytes):
                        guard open else { throw FuzzFinding("bytes outside a part") }
                        guard !bytes.isEmpty else { throw FuzzFinding("an empty bytes event") }
                        reading.parts[reading.parts.count - 1].bytes += bytes
                    case .partEnded:
                        guard open else { throw FuzzFinding("a part ends that never began") }
                        reading.parts[reading.parts.count - 1].ended = true
                    }
                }
            }
            try reader.finish()
            guard reader.isComplete else { throw FuzzFinding("finish accepted a body without its closing boundary") }
        } catch let failure as MultipartReader.Failure {
            reading.failure = failure
        }
        return reading
    }

    /// `X-Arg` headers: the input's lines are the header's repeated values. Every name read must be
    /// found again by the case-insensitive lookup the routes use.
    static func extraArguments(_ input: [UInt8]) throws {
        let headers = input.split(separator: 10, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        let arguments = ExtraArguments(headers: headers)
        for (name, _) in arguments.pairs {
            guard arguments[name] != nil else {
                throw FuzzFinding("X-Arg \"\(name)\" was read but cannot be looked up")
            }
            _ = arguments.flag(name)
        }
        _ = arguments.logDescription
    }

    /// The `application/x-www-form-urlencoded` body of `POST /oauth/token`, decoded as the route
    /// decodes it (invalid UTF-8 repaired).
    static func oauthForm(_ input: [UInt8]) throws {
        let form = OAuthRoute.parseForm(String(decoding: input, as: UTF8.self))
        for field in ["grant_type", "client_id", "client_secret", "scope", "refresh_token"] { _ = form[field] }
    }
}
