/// The `model` field of an OpenAI transcription request, read from the body's first bytes before a
/// recognizer is borrowed, so the request borrows one of the model it names. Clients send their text
/// fields before the file (the official `openai` package does); a model field that comes after the
/// audio is not seen here, and the request then borrows the default model's recognizer and is refused
/// if it named another (``TranscriptionUpload/finish()``).
final class ModelFieldScanner: MultipartParts {
    private var reader: MultipartReader
    private var field: String?
    private var collected: [UInt8] = []
    /// The model the fields before the file named, if any.
    private(set) var model: String?
    private var stopped = false

    init(boundary: String) { reader = MultipartReader(boundary: boundary) }

    /// The model named in `head` (the body's first chunks), or nil. A malformed head gives nil: the
    /// upload's own reader reports it.
    static func model(in head: [[UInt8]], boundary: String) -> String? {
        let scanner = ModelFieldScanner(boundary: boundary)
        for chunk in head where !scanner.stopped {
            do { try scanner.reader.feed(chunk, into: scanner, kind: "multipart/form-data", variables: "file") } catch {
                return scanner.model
            }
        }
        return scanner.model
    }

    func begin(_ headers: [String: String]) throws {
        let name = MediaType(header: headers["content-disposition"] ?? "").parameters["name"]
        if name == "file" { stopped = true }
        field = name
        collected = []
    }

    func receive(_ bytes: [UInt8]) throws {
        guard field == "model", collected.count < 256 else { return }
        collected += bytes
    }

    func end() throws {
        if field == "model", !stopped { model = String(decoding: collected, as: UTF8.self) }
        field = nil
    }
}
