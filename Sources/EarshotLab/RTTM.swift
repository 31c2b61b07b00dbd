import EarshotCore
import EarshotIO
import Foundation

/// RTTM speech segments (`SPEAKER` lines; other line types, such as `SPKR-INFO`, are skipped).
public enum RTTM {
    /// The segments of one recording in an RTTM file.
    public struct Recording: Sendable, Equatable {
        public var fileID: String
        public var segments: [LabeledSegment]
        public init(fileID: String, segments: [LabeledSegment]) {
            self.fileID = fileID
            self.segments = segments
        }
    }

    /// The id a recording at `path` has in RTTM: its file name without directory and extension, as
    /// `earshot vad --format rttm` and `earshot corpus export --format rttm` both write it (and as
    /// pyannote's `uri` is).
    public static func fileID(forPath path: String) -> String { InputPath.stem(path) }

    /// An id as written in a field: RTTM fields are separated by whitespace, so whitespace and `%` in
    /// the id are percent-encoded (`my talk` → `my%20talk`); ``parse(_:name:)`` decodes them.
    public static func escaped(_ fileID: String) -> String {
        var out = ""
        for character in fileID {
            if character == "%" || character.isWhitespace {
                out += character.utf8.map { String(format: "%%%02X", $0) }.joined()
            } else {
                out.append(character)
            }
        }
        return out.isEmpty ? "<NA>" : out
    }

    /// One `SPEAKER` line per segment, channel 1, speaker name `speech`; the id escaped (``escaped(_:)``).
    public static func text(for segments: [LabeledSegment], fileID: String) -> String {
        let fileID = escaped(fileID)
        return segments.map {
            "SPEAKER \(fileID) 1 \(SegmentFormat.seconds($0.start)) \(SegmentFormat.seconds($0.end - $0.start)) "
                + "<NA> <NA> speech <NA> <NA>\n"
        }.joined()
    }

    /// Parses `SPEAKER` lines, grouped by file id (percent-decoded) in order of first appearance; segments of all
    /// speakers are kept (speech activity does not care who speaks), sorted and with overlaps merged.
    public static func parse(_ text: String, name: String) throws -> [Recording] {
        var recordings: [Recording] = []
        var index: [String: Int] = [:]
        for (line, content) in SegmentFormat.numberedLines(text) {
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.first == "SPEAKER" else { continue }
            guard fields.count >= 5 else {
                throw EarshotError(
                    .invalidInput,
                    "\(name), line \(line): expected \"SPEAKER file channel start duration …\" (at least 5 fields), "
                        + "found \(fields.count)")
            }
            let start = try SegmentFormat.time(fields[3], name: name, line: line, what: "start")
            let duration = try SegmentFormat.time(fields[4], name: name, line: line, what: "duration")
            guard duration > 0 else {
                throw EarshotError(.invalidInput, "\(name), line \(line): duration \(duration) is not positive")
            }
            let fileID = String(fields[1]).removingPercentEncoding ?? String(fields[1])
            if index[fileID] == nil {
                index[fileID] = recordings.count
                recordings.append(Recording(fileID: fileID, segments: []))
            }
            recordings[index[fileID]!].segments.append(LabeledSegment(start: start, end: start + duration))
        }
        return recordings.map { Recording(fileID: $0.fileID, segments: SpeechSegments.merged($0.segments, gap: 0)) }
    }
}
