import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct CorpusEntryTests {
    @Test func speechEndIsTheEndOfTheLastSegment() {
        let entry = CorpusEntry(
            path: "a.wav", duration: 5,
            speech: [LabeledSegment(start: 0.5, end: 1.0), LabeledSegment(start: 2.0, end: 3.25)])
        #expect(entry.speechEnd == 3.25)
        #expect(CorpusEntry(path: "b.wav", duration: 1, speech: []).speechEnd == nil)
    }

    @Test func keysCarryTheirUnit() throws {
        let entry = CorpusEntry(path: "a.wav", duration: 2, speech: [LabeledSegment(start: 0.5, end: 1)])
        let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        #expect(json.contains("\"duration_s\":2"))
        #expect(json.contains("\"start_s\":0.5"))
    }
}
