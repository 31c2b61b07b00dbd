import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

/// The JSON writer for documents whose bytes must not change from run to run.
@Suite(.computing) struct OrderedJSONEncoderTests {
    struct Inner: Codable, Equatable {
        var zeta: [Double]
        var alpha: Bool?
    }

    struct Outer: Codable, Equatable {
        var name: String
        var count: Int
        var inner: Inner
        var list: [Inner]
        var note: String?
        var small: Float
    }

    static let value = Outer(
        name: "a \"quoted\"\\ line\n/é", count: -3, inner: Inner(zeta: [7, 2.125, 0.1, -0.0, 1e-5], alpha: true),
        list: [Inner(zeta: [], alpha: nil), Inner(zeta: [1e15, 1e20, 123456.789], alpha: false)], note: nil, small: 0.1)

    @Test func keysComeInTheOrderTheyAreEncodedAndNumbersAsJSONEncoderWritesThem() throws {
        let text = try OrderedJSONEncoder().string(Self.value)
        #expect(
            text
                == #"{"name":"a \"quoted\"\\ line\n/é","count":-3,"inner":{"zeta":[7,2.125,0.1,0,1e-05],"alpha":true},"#
                + #""list":[{"zeta":[]},{"zeta":[1000000000000000,1e+20,123456.789],"alpha":false}],"small":0.1}"#)
        // The same bytes every time (JSONEncoder's key order changes from one process to the next).
        #expect(try OrderedJSONEncoder().string(Self.value) == text)
    }

    @Test func whatItWritesReadsBackAsTheSameValue() throws {
        let data = try OrderedJSONEncoder().encode(Self.value)
        var expected = Self.value
        expected.inner.zeta[3] = 0  // -0 is written as 0
        #expect(try JSONDecoder().decode(Outer.self, from: data) == expected)
    }

    @Test func controlCharactersAreEscapedAndNullWrittenWhenAsked() throws {
        #expect(OrderedJSONEncoder.quoted("a\tb\r\u{1}\u{1f}") == #""a\tb\r\u0001\u001f""#)
        struct Nulls: Encodable {
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: NamedCodingKey.self)
                try keyed.encodeNil(forKey: NamedCodingKey("b"))
                try keyed.encode(1, forKey: NamedCodingKey("a"))
                var list = keyed.nestedUnkeyedContainer(forKey: NamedCodingKey("c"))
                try list.encodeNil()
                try list.encode("x")
            }
        }
        #expect(try OrderedJSONEncoder().string(Nulls()) == #"{"b":null,"a":1,"c":[null,"x"]}"#)
    }

    @Test func aNumberJSONCannotHoldIsAnErrorNamingItsPlace() {
        struct Bad: Encodable { var values: [Double] }
        #expect {
            try OrderedJSONEncoder().string(Bad(values: [1, .nan]))
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["values", "Index 1"]
        }
    }
}
