import EarshotClient
import EarshotServer
import EarshotTestTraits
import EarshotWire
import Foundation
import Testing

/// The error bodies the service writes are read back by the client's types, as the client reads them.
@Suite(.waiting)
struct RequestErrorWireTests {
    @Test func aBusyAnswerReadsBackAsItsRequestError() throws {
        let busy = ServiceError.busy(retryAfter: 2)
        let bytes = busy.body
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"RequestError":{"ServiceException":{"MessageId":"SVC0002","Text":"every recognizer is busy; retry after 2 s","Variables":""}}}"#
        )
        let read = try #require(RequestError(json: Array(bytes)))
        #expect(read.kind == "ServiceException" && read.messageID == "SVC0002" && read.text == busy.text)
    }

    @Test func aPartialResultsStreamsLastLineCarriesItsStatus() throws {
        let line = RequestErrorDocument(
            kind: "PolicyException", exception: .init(messageID: "POL0001", text: "too long", variables: "x"),
            status: 413)
        let decoded = try JSONDecoder().decode(RequestErrorDocument.self, from: line.encoded())
        #expect(decoded == line && decoded.exception?.kind == "PolicyException" && decoded.status == 413)
        let partial = PartialResultLine(responseID: "r", hypothesis: "five five", audioTime: 1.25)
        #expect(
            String(decoding: try partial.encoded(), as: UTF8.self)
                == #"{"PartialResult":{"Hypothesis":"five five","ResponseId":"r","audioTime":1.25}}"#)
    }
}
