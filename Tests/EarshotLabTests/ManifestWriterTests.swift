import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct ManifestWriterTests {
    static let entry = CorpusEntry(
        path: "voices/m3-001.wav", duration: 7.25,
        speech: [LabeledSegment(start: 0.5, end: 2.125), LabeledSegment(start: 2.875, end: 5.0)],
        transcript: "go \"forward\"", words: [TimedWord(word: "go", start: 0.5, end: 0.71)],
        tags: ["voice": "en-us+m3", "licence": "GPL-3.0-or-later", "snr_db": "10"])

    @Test func lineHasFixedKeyOrderAndShortNumbers() throws {
        #expect(
            try ManifestWriter.line(for: Self.entry)
                == #"{"schema_version":1,"path":"voices/m3-001.wav","duration_s":7.25,"#
                + #""speech":[{"start_s":0.5,"end_s":2.125},{"start_s":2.875,"end_s":5}],"#
                + #""transcript":"go \"forward\"","words":[{"word":"go","start_s":0.5,"end_s":0.71}],"#
                + #""tags":{"licence":"GPL-3.0-or-later","snr_db":"10","voice":"en-us+m3"}}"#)
    }

    @Test(arguments: [
        (2.1250000000000004, "2.125"), (0.1 + 0.2, "0.3"), (7, "7"), (0.0004, "0"), (0.0005, "0.001"),
        (-0.01, "-0.01"), (12.05, "12.05"),
    ])
    func secondsPrintWithoutFloatNoise(value: Double, text: String) {
        #expect(ManifestWriter.seconds(value) == text)
    }

    @Test func roundTripsThroughTheReader() throws {
        let text = try ManifestWriter.text(for: [Self.entry, CorpusEntry(path: "b.wav", duration: 1, speech: [])])
        let entries = try ManifestReader.entries(from: text, name: "m")
        #expect(entries == [Self.entry, CorpusEntry(path: "b.wav", duration: 1, speech: [])])
        #expect(try ManifestWriter.text(for: entries) == text)
    }

    @Test func aTimeThatIsNotANumberIsRefusedNamingTheEntry() {
        let refusal = #expect(throws: EarshotError.self) {
            try ManifestWriter.line(for: CorpusEntry(path: "x.wav", duration: .nan, speech: []))
        }
        #expect(refusal?.message.hasPrefix("x.wav: a manifest holds finite times") == true)
    }

    @Test func escapesControlCharacters() {
        #expect(OrderedJSONEncoder.quoted("a\tb\n\u{1}\\") == #""a\tb\n\u0001\\""#)
    }

    @Test func writesAtomicallyAndCompletely() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ManifestWriter.write([Self.entry], to: directory.file("manifest.jsonl"))
        #expect(directory.contents() == ["manifest.jsonl"])
        let text = try String(contentsOfFile: directory.file("manifest.jsonl"), encoding: .utf8)
        #expect(try text == ManifestWriter.line(for: Self.entry) + "\n")
    }
}
