import EarshotTestTraits
import EarshotWire
import Testing

/// `JSONValue`, the Codable JSON the Realtime protocol reads and writes field by field.
@Suite(.computing) struct JSONValueTests {
    @Test func aDocumentReadsAndWritesBackTheSame() throws {
        let text = #"{"a":[1,2.5,true,null,"x/y"],"b":{"c":-3},"rate":24000}"#
        let value = try #require(JSONValue(parsing: text))
        #expect(value["rate"] == .integer(24_000))
        #expect(value["a"] == [1, 2.5, true, nil, "x/y"])
        #expect(value.text == text, "keys sorted, integers without a fraction, slashes as they are")
    }

    @Test func wholeNumbersWrittenWithAFractionAreIntegersToo() throws {
        let value = try #require(JSONValue(parsing: #"{"rate": 16000.0, "half": 0.5, "huge": 1e300}"#))
        #expect(value["rate"]?.integer == 16_000)
        #expect(value["half"]?.integer == nil)
        #expect(value["half"]?.double == 0.5)
        #expect(value["huge"]?.integer == nil)
    }

    @Test func notJSONIsNil() {
        #expect(JSONValue(parsing: "{\"a\":") == nil)
        #expect(JSONValue(parsing: "") == nil)
    }

    @Test func nonFiniteNumbersAreWrittenAsNull() {
        let value: JSONValue = ["x": .number(.infinity), "y": [.number(.nan)]]
        #expect(value.text == #"{"x":null,"y":[null]}"#)
    }

    @Test func errorMessagesShowAValueShortly() {
        #expect(JSONValue.string("audio/wav").shown == "\"audio/wav\"")
        #expect(JSONValue.string(String(repeating: "a", count: 200)).shown.count == 82)
        #expect(JSONValue.array([1, 2]).shown == "[1,2]")
        #expect(JSONValue.null.shown == "null")
        #expect(JSONValue.bool(true).shown == "true")
    }
}
