/// What a request body read as multipart hands its parts to: ``MultipartParts/feed(_:into:)`` turns
/// the reader's events into these calls, and a malformed body into a 400 naming `variables`.
protocol MultipartParts: AnyObject {
    /// A part begins; header names are lower-cased.
    func begin(_ headers: [String: String]) throws
    /// The next bytes of the current part.
    func receive(_ bytes: [UInt8]) throws
    /// The current part is complete.
    func end() throws
}

extension MultipartReader {
    /// Reads the next bytes of the body into `parts`. A malformed body is a 400 that says which
    /// `kind` of body it is and names `variables`.
    mutating func feed(_ bytes: [UInt8], into parts: some MultipartParts, kind: String, variables: String) throws {
        let events: [Event]
        do {
            events = try consume(bytes)
        } catch {
            throw ServiceError.badRequest("malformed \(kind) body: \(error.message)", variables: variables)
        }
        for event in events {
            switch event {
            case .partBegan(let headers): try parts.begin(headers)
            case .bytes(let chunk): try parts.receive(chunk)
            case .partEnded: try parts.end()
            }
        }
    }

    /// Checks that the body ended after its closing delimiter; if not, a 400 as in ``feed(_:into:kind:variables:)``.
    func finish(kind: String, variables: String) throws(ServiceError) {
        do {
            try finish()
        } catch {
            throw .badRequest("malformed \(kind) body: \(error.message)", variables: variables)
        }
    }
}
