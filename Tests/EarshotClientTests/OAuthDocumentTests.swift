import EarshotTestTraits
import EarshotWire
import Foundation
import Testing

/// The OAuth documents client and service share: what the service writes, and what the client reads
/// from other servers (a number for `expires_in`, extra fields).
@Suite(.computing) struct OAuthDocumentTests {
    @Test func theServicesGrantIsWrittenAsTheSpeechAPIWroteIt() throws {
        let document = OAuthTokenDocument(accessToken: "a.b", expiresIn: 7200, refreshToken: "r.s")
        let text = String(decoding: try JSONEncoder.wire.encode(document), as: UTF8.self)
        #expect(text == #"{"access_token":"a.b","expires_in":"7200","refresh_token":"r.s"}"#)
        #expect(try JSONDecoder().decode(OAuthTokenDocument.self, from: Data(text.utf8)) == document)
    }

    @Test func otherServersGrantsAreRead() throws {
        let numeric = #"{"access_token":"x","expires_in":3600,"token_type":"bearer"}"#
        let read = try JSONDecoder().decode(OAuthTokenDocument.self, from: Data(numeric.utf8))
        #expect(read.expiresIn == 3600 && read.refreshToken == nil)
        let without = try JSONDecoder().decode(OAuthTokenDocument.self, from: Data(#"{"access_token":"x"}"#.utf8))
        #expect(without.expiresIn == 7200)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OAuthTokenDocument.self, from: Data(#"{"access_token":"x","expires_in":"soon"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(OAuthTokenDocument.self, from: Data(#"{"expires_in":"60"}"#.utf8))
        }
    }

    @Test func aRefusalCarriesItsCodeAndDescription() throws {
        let refusal = OAuthErrorDocument(error: "too_many_attempts", errorDescription: "retry after 3 s")
        let text = String(decoding: try JSONEncoder.wire.encode(refusal), as: UTF8.self)
        #expect(text == #"{"error":"too_many_attempts","error_description":"retry after 3 s"}"#)
        let bare = String(decoding: try JSONEncoder.wire.encode(OAuthErrorDocument(error: "invalid_client")), as: UTF8.self)
        #expect(bare == #"{"error":"invalid_client"}"#)
    }
}
