import EarshotCore
import Foundation

/// Audacity label tracks (File › Export › Labels): `start<TAB>end<TAB>label` per line.
public enum AudacityLabels {
    /// One line per segment, labelled `speech`.
    public static func text(for segments: [LabeledSegment], label: String = "speech") -> String {
        segments.map { "\(SegmentFormat.seconds($0.start))\t\(SegmentFormat.seconds($0.end))\t\(label)\n" }.joined()
    }

    /// Parses region labels; point labels (start = end) are skipped, and Audacity's spectral-selection
    /// lines (starting with `\`) are ignored.
    public static func parse(_ text: String, name: String) throws -> [LabeledSegment] {
        var segments: [LabeledSegment] = []
        for (line, content) in SegmentFormat.numberedLines(text) where !content.hasPrefix("\\") {
            let fields = content.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2 else {
                throw EarshotError(
                    .invalidInput, "\(name), line \(line): expected \"start<TAB>end<TAB>label\", found \"\(content)\"")
            }
            let start = try SegmentFormat.time(fields[0], name: name, line: line, what: "start")
            let end = try SegmentFormat.time(fields[1], name: name, line: line, what: "end")
            if end == start { continue }
            try SegmentFormat.append(LabeledSegment(start: start, end: end), to: &segments, name: name, line: line)
        }
        return segments
    }
}
