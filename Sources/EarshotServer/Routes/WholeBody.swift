import Hummingbird
import NIOCore

/// How a route that needs its whole body before it can answer (a token form, a Text to Speech text)
/// reads it: at most `limit` bytes, all of it within `deadline` from the first read.
///
/// Hummingbird's own read timeout restarts with every chunk, so a client that sends one byte every
/// few seconds would hold its connection and a task forever; an upload route judges pace by the
/// audio (``UploadPace``), these routes by the clock: a form of a few kilobytes has no reason to take
/// longer than a few seconds.
enum WholeBody {
    /// Why the body was not read.
    enum Failure: Error {
        /// More than `limit` bytes.
        case tooLarge(limit: Int)
        /// Not all of it within `deadline`; the connection's input has been shut.
        case tooSlow(deadline: Duration)
    }

    /// How long a whole body may take from its first read: a few seconds, for the routes' bodies of
    /// at most tens of kilobytes (a token form, a Text to Speech text or its JSON).
    static let deadline: Duration = .seconds(5)

    /// The 408 a route answers when the body missed ``deadline``; the connection is closed.
    static func tooSlowError(_ deadline: Duration, field: String) -> ServiceError {
        var error = ServiceError.badRequest(
            "the body did not arrive whole within \(deadline.components.seconds) s", variables: field)
        error.status = .requestTimeout
        error.headers[.connection] = "close"
        return error
    }

    static func collect(
        _ body: RequestBody, upTo limit: Int, within deadline: Duration, context: ServiceRequestContext
    ) async throws -> ByteBuffer {
        let outcome = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await body.collect(upTo: limit)
                } catch is NIOTooManyBytesError {
                    throw Failure.tooLarge(limit: limit)
                }
            }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        guard let outcome else {
            // Ends the read the collecting task may still be waiting on.
            context.closeInput()
            throw Failure.tooSlow(deadline: deadline)
        }
        return outcome
    }
}
