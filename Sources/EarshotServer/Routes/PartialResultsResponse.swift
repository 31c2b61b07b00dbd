import EarshotWire
import Foundation
import Hummingbird
import Logging

/// The Earshot extension for partial results (Apple's `shouldReportPartialResults`, which the AT&T
/// API lacked). Only a client that sends both `X-Arg: PartialResults=true` and
/// `Accept: application/x-ndjson` gets it; every other client sees the plain Speech API.
///
/// The answer is `200` with `Content-Type: application/x-ndjson`, sent chunked while the upload
/// continues: one line `{"PartialResult":{"ResponseId":…,"Hypothesis":…,"audioTime":…}}` each time
/// the best hypothesis changes, then one final line holding the usual Speech to Text document
/// (`{"Recognition":…}`). An error met once the answer has begun (malformed audio, a stalled or
/// over-long upload, or every recognizer taken by the time its audio arrived) cannot change the status any more: it is the final line instead, in the usual
/// `{"RequestError":…}` form, with its status as `"status"` beside it.
extension SpeechToTextRoute {
    func partialResultsResponse(
        _ body: RequestBody, app: String, pool: RecognizerPool, makeAudio: @escaping AudioFactory, context: ServiceRequestContext,
        responseID: String, wordTimes: Bool, logger: Logger
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let (lines, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
                async let outcome: Result<Outcome, any Error> = {
                    defer { continuation.finish() }
                    do {
                        return .success(
                            try await upload.stream(
                                body, context: context, app: app, pool: pool,
                                onPartial: { text, audioTime in
                                    continuation.yield(
                                        Self.partialLine(text, audioTime: audioTime, responseID: responseID))
                                }, makeAudio: makeAudio))
                    } catch {
                        return .failure(error)
                    }
                }()
                for await line in lines { try await writer.write(line) }
                var last: Data
                do {
                    last = try finalDocument(
                        try await outcome.get(), responseID: responseID, wordTimes: wordTimes, logger: logger
                    ).encoded()
                } catch let error as ServiceError {
                    logger.info("partial-results request failed", metadata: ["status": "\(error.status.code)"])
                    last = Self.errorLine(error)
                }
                last.append(UInt8(ascii: "\n"))
                try await writer.write(ByteBuffer(bytes: last))
                try await writer.finish(nil)
            })
    }

    static func partialLine(_ text: String, audioTime: Double, responseID: String) -> ByteBuffer {
        let line = PartialResultLine(
            responseID: responseID, hypothesis: text, audioTime: RecognitionDocument.rounded(audioTime))
        var data = (try? line.encoded()) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: data)
    }

    static func errorLine(_ error: ServiceError) -> Data {
        error.document(status: Int(error.status.code)).encoded()
    }
}
