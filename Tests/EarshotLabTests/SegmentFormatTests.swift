import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct SegmentFormatTests {
    static let segments = [LabeledSegment(start: 0.25, end: 1.5), LabeledSegment(start: 2.125, end: 3.999)]

    @Test(arguments: SegmentFormat.allCases)
    func roundTripsToTheMillisecond(format: SegmentFormat) throws {
        let text = format.text(for: Self.segments, fileID: "utt1")
        let parsed = try format.segments(from: text, name: "labels")
        #expect(parsed.count == Self.segments.count)
        for (got, want) in zip(parsed, Self.segments) {
            #expect(abs(got.start - want.start) < 5e-4 && abs(got.end - want.end) < 5e-4)
        }
    }

    @Test func writersUseTheStandardLayouts() {
        #expect(
            RTTM.text(for: [Self.segments[0]], fileID: "utt1")
                == "SPEAKER utt1 1 0.250 1.250 <NA> <NA> speech <NA> <NA>\n")
        #expect(AudacityLabels.text(for: [Self.segments[0]]) == "0.250\t1.500\tspeech\n")
        #expect(SegmentCSV.text(for: [Self.segments[0]]) == "start,end\n0.250,1.500\n")
    }

    /// RTTM fields are separated by whitespace: an id with spaces (or `%`) is percent-encoded, so every
    /// line keeps its 10 fields (as pyannote and md-eval read them), and parsing gives the id back.
    @Test func rttmIdsWithSpacesKeepTenFieldsAndComeBack() throws {
        let id = "my talk\t100%"
        let text = RTTM.text(for: Self.segments, fileID: id)
        #expect(text.hasPrefix("SPEAKER my%20talk%09100%25 1 0.250 1.250 "))
        #expect(text.split(separator: "\n").allSatisfy { $0.split(separator: " ").count == 10 })
        #expect(try RTTM.parse(text, name: "x.rttm").map(\.fileID) == [id])
        #expect(RTTM.fileID(forPath: "corpora/real/audio/my talk.wav") == "my talk")
    }

    @Test func csvHeaderIsOptional() throws {
        #expect(try SegmentCSV.parse("0.5,1\n2,3\n", name: "x").count == 2)
        #expect(try SegmentCSV.parse("start_s,end_s\r\n0.5,1\r\n", name: "x") == [LabeledSegment(start: 0.5, end: 1)])
    }

    @Test func rttmGroupsRecordingsAndMergesSpeakers() throws {
        let text = """
            SPKR-INFO a 1 <NA> <NA> <NA> unknown A <NA> <NA>
            SPEAKER a 1 0.0 1.0 <NA> <NA> A <NA> <NA>
            SPEAKER b 1 5.0 1.0 <NA> <NA> A <NA> <NA>
            SPEAKER a 1 0.5 1.0 <NA> <NA> B <NA> <NA>
            """
        let recordings = try RTTM.parse(text, name: "x")
        #expect(recordings.map(\.fileID) == ["a", "b"])
        #expect(recordings[0].segments == [LabeledSegment(start: 0, end: 1.5)])
        let error = try thrownEarshotError { _ = try SegmentFormat.rttm.segments(from: text, name: "x.rttm") }
        #expect(error?.message.contains("several recordings (a, b)") == true)
    }

    @Test(arguments: [
        (SegmentFormat.rttm, "SPEAKER a 1 0.5\n", "f, line 1: expected \"SPEAKER"),
        (.rttm, "SPEAKER a 1 0.5 x <NA>\n", "f, line 1: duration \"x\""),
        (.audacity, "0.5\t1\tspeech\n1.5 2\n", "f, line 2: expected \"start<TAB>end<TAB>label\""),
        (.audacity, "0.5\t0.2\tspeech\n", "f, line 1: end 0.2 is not after start 0.5"),
        (.csv, "start,end\n1,2\n0.5,0.7\n", "f, line 3: start 0.5 is before the previous segment's start 1.0"),
        (.csv, "start,end\n1;2\n", "f, line 2: expected \"start,end\" (2 fields), found 1"),
        (.csv, "-1,2\n", "f, line 1: start \"-1\" is not a non-negative number"),
    ])
    func parseErrorsNameFileAndLine(format: SegmentFormat, text: String, expected: String) throws {
        let error = try thrownEarshotError { _ = try format.segments(from: text, name: "f") }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }
}
