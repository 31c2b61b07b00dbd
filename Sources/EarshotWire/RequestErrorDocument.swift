public import Foundation

/// The body of a Speech API error answer (sections 3.6 and 3.9):
/// `{"RequestError":{"ServiceException":{"MessageId":…,"Text":…,"Variables":…}}}` (or
/// `PolicyException`), written by Earshot's service and read by its client. In a partial-results
/// stream, whose status was sent before the error was met, it is the last line, with the status
/// beside it as `"status"`.
public struct RequestErrorDocument: Codable, Sendable, Equatable {
    /// One entry: the exception's kind (`ServiceException`, `PolicyException`) and its fields.
    public var requestError: [String: Exception]
    /// The HTTP status, in a partial-results stream only.
    public var status: Int?

    public struct Exception: Codable, Sendable, Equatable {
        public var messageID: String
        public var text: String
        public var variables: String

        public init(messageID: String, text: String, variables: String) {
            self.messageID = messageID
            self.text = text
            self.variables = variables
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            messageID = try container.decodeIfPresent(String.self, forKey: .messageID) ?? ""
            text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
            variables = try container.decodeIfPresent(String.self, forKey: .variables) ?? ""
        }

        enum CodingKeys: String, CodingKey { case messageID = "MessageId", text = "Text", variables = "Variables" }
    }

    public init(kind: String, exception: Exception, status: Int? = nil) {
        requestError = [kind: exception]
        self.status = status
    }

    /// The exception's kind and fields; nil for a document without one.
    public var exception: (kind: String, fields: Exception)? {
        requestError.first.map { ($0.key, $0.value) }
    }

    enum CodingKeys: String, CodingKey { case requestError = "RequestError", status }

    /// The document as JSON, keys sorted, so the bytes are the same from run to run.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}
