import EarshotCore
import EarshotTestTraits
import EarshotVAD
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct VADDocumentTests {
    /// The document a library user gets is the one `earshot vad --format json` prints: schema 2, the
    /// detector and smoothing settings typed (no endpointing ones: `vad` does not endpoint), and times
    /// rounded to the millisecond, the speech total from the rounded segments.
    @Test func namesItsSettingsAndRoundsToTheMillisecond() throws {
        let file = VADDocument.File(
            path: "a.wav", duration: 3.00049,
            segments: [LabeledSegment(start: 0.12345, end: 1.00051), LabeledSegment(start: 2.0, end: 2.2504)])
        let document = VADDocument(detector: .energy, smoothing: try SmoothingConfiguration(), files: [file])
        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(document)) as? [String: Any])
        #expect(json["schema_version"] as? Int == ReportSchema.version)
        let parameters = try #require(json["parameters"] as? [String: Any])
        #expect(parameters["detector"] as? String == "energy")
        #expect(parameters["minSpeechDuration"] is Double)
        #expect(parameters["endingSilence"] == nil && parameters["maxInitialSilence"] == nil)
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == 1 && files[0]["path"] as? String == "a.wav")
        #expect(files[0]["duration_s"] as? Double == 3.0)
        #expect(files[0]["speech_s"] as? Double == 1.128)
        let first = try #require((files[0]["segments"] as? [[String: Any]])?.first)
        #expect(first["start_s"] as? Double == 0.123 && first["end_s"] as? Double == 1.001)
    }
}
