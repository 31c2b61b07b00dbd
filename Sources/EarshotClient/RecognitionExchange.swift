import AsyncHTTPClient
import EarshotWire
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with the recognition service: the request head the configuration describes,
/// a body (streamed chunked, or whole with `Content-Length`), and the answer read back — as a
/// Speech to Text document, or line by line when partial results were asked for.
struct RecognitionExchange: Sendable {
    let configuration: SpeechRequestConfiguration
    let http: HTTPClient
    static let boundary = "earshot-client-7d3a9f1c2b"

    /// The body's `Content-Type`: the audio's, or multipart around it.
    func bodyContentType(audio: String) -> String {
        configuration.isMultipart ? "multipart/x-srgs-audio; boundary=\(Self.boundary)" : audio
    }

    /// Bytes before the audio: the parts before it and the audio part's own head.
    func prefix(audioContentType: String) -> [UInt8] {
        guard configuration.isMultipart else { return [] }
        var bytes: [UInt8] = []
        for part in configuration.partsBeforeAudio {
            bytes += partHead(part.name, part.contentType) + part.data + [13, 10]
        }
        return bytes + partHead("x-voice", audioContentType)
    }

    /// Bytes after the audio: the end of its part, the parts after it, the closing boundary.
    func suffix() -> [UInt8] {
        guard configuration.isMultipart else { return [] }
        var bytes: [UInt8] = [13, 10]
        for part in configuration.partsAfterAudio {
            bytes += partHead(part.name, part.contentType) + part.data + [13, 10]
        }
        return bytes + Array("--\(Self.boundary)--\r\n".utf8)
    }

    private func partHead(_ name: String, _ type: String) -> [UInt8] {
        Array(
            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\nContent-Type: \(type)\r\n\r\n"
                .utf8)
    }

    func request(token: String, audioContentType: String, body: HTTPClientRequest.Body) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: configuration.recognitionURL)
        request.method = HTTPMethod(rawValue: configuration.httpMethod.uppercased())
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: bodyContentType(audio: audioContentType))
        request.headers.add(name: "X-SpeechContext", value: configuration.speechContext)
        var arguments = configuration.extraArguments
        if configuration.reportsPartialResults { arguments.append((name: "PartialResults", value: "true")) }
        let defaults =
            configuration.sendsDefaultXArgs
            ? ExtraArgumentsHeader.defaults(
                clientApp: configuration.clientApp, clientVersion: configuration.clientVersion)
            : []
        if !defaults.isEmpty || !arguments.isEmpty {
            request.headers.add(
                name: "X-Arg",
                value: ExtraArgumentsHeader.value(arguments: arguments, defaults: defaults))
        }
        request.headers.add(
            name: "Accept", value: configuration.reportsPartialResults ? "application/x-ndjson" : "application/json")
        for (name, value) in configuration.requestHeaders { request.headers.replaceOrAdd(name: name, value: value) }
        request.body = body
        return request
    }

    /// Sends `request` and reads the answer; partial results are handed to `onPartial` as they come.
    /// Throws the SDK's error for a transport failure; an HTTP error status is returned, not thrown.
    func perform(
        _ request: HTTPClientRequest, deadline: TimeAmount, onPartial: @Sendable (String, Double) -> Void
    ) async throws(SpeechClientError) -> SpeechResponse {
        do {
            let response = try await http.execute(request, timeout: deadline)
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            var status = Int(response.status.code)
            let isLines = response.headers.first(name: "Content-Type")?.hasPrefix("application/x-ndjson") == true
            guard isLines else {
                let body = Array(buffer: try await response.body.collect(upTo: 16 << 20))
                return SpeechResponse(statusCode: status, headers: headers, data: body)
            }
            // Partial results: every line but the last is a PartialResult; the last is the answer.
            var pending: [UInt8] = []
            var last: [UInt8] = []
            for try await chunk in response.body {
                pending += Array(buffer: chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let line = Array(pending[..<newline])
                    pending.removeFirst(newline + 1)
                    if let partial = Self.partial(line) {
                        onPartial(partial.text, partial.audioTime)
                    } else if !line.isEmpty {
                        last = line
                    }
                }
            }
            if !pending.isEmpty { last = pending }
            if let error = try? JSONDecoder().decode(RequestErrorDocument.self, from: Data(last)),
                let embedded = error.status
            {
                status = embedded
            }
            return SpeechResponse(statusCode: status, headers: headers, data: last)
        } catch {
            throw HTTPFailure.classify(error, during: "the recognition request to \(configuration.recognitionURL)")
        }
    }

    private static func partial(_ line: [UInt8]) -> (text: String, audioTime: Double)? {
        guard let line = try? JSONDecoder().decode(PartialResultLine.self, from: Data(line)) else { return nil }
        return (line.partialResult.hypothesis, line.partialResult.audioTime)
    }
}
