import EarshotCore
import Foundation

/// `start,end` CSV in seconds.
public enum SegmentCSV {
    /// The header line the writer emits and the parser accepts.
    public static let header = "start,end"

    /// A `start,end` header, then one line per segment.
    public static func text(for segments: [LabeledSegment]) -> String {
        header + "\n"
            + segments.map { "\(SegmentFormat.seconds($0.start)),\(SegmentFormat.seconds($0.end))\n" }.joined()
    }

    /// Parses `start,end` lines; a first line of column names (`start,end`, `start_s,end_s`) is skipped.
    public static func parse(_ text: String, name: String) throws -> [LabeledSegment] {
        var segments: [LabeledSegment] = []
        for (position, (line, content)) in SegmentFormat.numberedLines(text).enumerated() {
            let fields = content.split(separator: ",", omittingEmptySubsequences: false)
            if position == 0, fields.first.map({ Double($0.trimmingCharacters(in: .whitespaces)) == nil }) == true,
                fields.allSatisfy({ $0.contains(where: \.isLetter) })
            {
                continue
            }
            guard fields.count == 2 else {
                throw EarshotError(
                    .invalidInput, "\(name), line \(line): expected \"start,end\" (2 fields), found \(fields.count)")
            }
            let start = try SegmentFormat.time(fields[0], name: name, line: line, what: "start")
            let end = try SegmentFormat.time(fields[1], name: name, line: line, what: "end")
            try SegmentFormat.append(LabeledSegment(start: start, end: end), to: &segments, name: name, line: line)
        }
        return segments
    }
}
