import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotSynthesis

@Suite(.computing) struct SSMLReaderTests {
    private func parts(_ ssml: String) throws -> [SpeechPart] {
        try SpeechScript(ssml: Array(ssml.utf8)).parts
    }

    @Test func readsTheSubsetIntoParts() throws {
        let ssml = """
            <?xml version="1.0"?>
            <speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis">
            <p><s>Call <say-as interpret-as="telephone">555-0134</say-as></s></p>
            <break time="300ms"/><break strength="strong"/>
            <prosody rate="150%" pitch="+10%" volume="-6dB">fast <prosody rate="slow">slower</prosody></prosody>
            <say-as interpret-as="characters">AB C</say-as> <say-as interpret-as="digits">4 2</say-as>
            <say-as interpret-as="date" format="dmy">05/03/2024</say-as>
            <sub alias="World Wide Web">WWW</sub> <phoneme alphabet="x-espeak" ph="h@l'oU">hello</phoneme>
            Tom &amp; Jerry &#x41;
            </speak>
            """
        let read = try parts(ssml)
        let fast = Prosody(rate: 1.5, pitch: 1.1, volume: SSMLReader.volume("-6dB")!)
        #expect(
            read.filter { if case .text(let t, _) = $0 { !t.allSatisfy(\.isWhitespace) } else { true } } == [
                .text("Call ", .normal), .text("5 5 5, 0 1 3 4", .normal), .pause(seconds: 0.25), .pause(seconds: 0.5),
                .pause(seconds: 0.3), .pause(seconds: 0.7), .text("fast ", fast),
                .text("slower", Prosody(rate: 1.5 * 0.75, pitch: 1.1, volume: fast.volume)),
                .text("A B C", .normal), .text("4 2", .normal), .text("March 5th 2024", .normal),
                .text("World Wide Web", .normal), .phonemes("h@l'oU", alphabet: "x-espeak", fallback: "hello", .normal),
                .text("\nTom & Jerry A\n", .normal),
            ])
        #expect(abs(fast.volume - 0.501) < 0.001)
    }

    @Test(arguments: [
        ("<speak><audio src=\"a.wav\"/></speak>", "<audio>"),
        ("<speak><emphasis>no</emphasis></speak>", "<emphasis>"),
        ("<speak><voice name=\"x\">hi</voice></speak>", "<voice>"),
        ("<p>hello</p>", "expected <speak>"),
        ("<speak><break time=\"20s\"/>hi</speak>", "time=\"20s\""),
        ("<speak><prosody rate=\"warp\">hi</prosody></speak>", "rate=\"warp\""),
        ("<speak><say-as interpret-as=\"currency\">$5</say-as></speak>", "interpret-as=\"currency\""),
        ("<speak><say-as interpret-as=\"date\" format=\"mdy\">13/40/2020</say-as></speak>", "no month 13"),
        ("<speak><sub>WWW</sub></speak>", "alias"),
        ("<speak>hello", "never closed"),
        ("<!DOCTYPE speak [<!ENTITY x \"y\">]><speak>&x;</speak>", "DOCTYPE"),
        ("<speak>&x;</speak>", "the entity reference &x; is refused"),
        ("<speak><break/></speak>", "no text to speak"),
        ("<speak>a</speak><speak>b</speak>", "after the root element"),
    ])
    func refusesWithAnErrorNamingTheCause(ssml: String, named: String) {
        #expect {
            try SpeechScript(ssml: Array(ssml.utf8), field: "input")
        } throws: { error in
            let message = "\(error)"
            return message.contains(named) && message.hasPrefix("input:")
        }
    }

    @Test func capsTheSizeOfTextAndMarkup() throws {
        let longest = String(repeating: "a", count: SpeechScript.Limits.default.textCharacters)
        _ = try SpeechScript(text: longest)
        #expect(throws: EarshotError.self) { try SpeechScript(text: longest + "a") }
        let markup = "<speak>" + String(repeating: "<break time=\"0ms\"/>", count: 1_000) + "hi</speak>"
        #expect(markup.utf8.count > SpeechScript.Limits.default.ssmlBytes)
        #expect { try SpeechScript(ssml: Array(markup.utf8)) } throws: { "\($0)".contains("the limit is 16384") }
        let words = "<speak>" + String(repeating: "<s>abcd</s>", count: 1_025) + "</speak>"
        #expect(words.utf8.count < SpeechScript.Limits.default.ssmlBytes)
        #expect { try SpeechScript(ssml: Array(words.utf8)) } throws: { "\($0)".contains("the limit is 4096") }
    }

    @Test func refusesEmptyText() {
        #expect { try SpeechScript(text: " \n", field: "input") } throws: { "\($0)" == "input: no text to speak" }
    }
}
