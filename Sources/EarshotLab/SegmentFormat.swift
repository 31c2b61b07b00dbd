import EarshotCore
import Foundation

/// The plain-text segment formats other tools exchange, each with a writer over `[LabeledSegment]`
/// (shared with `earshot vad --format`) and a parser whose errors name the file and line.
///
/// Writers print seconds with exactly three decimals, so the text round-trips to the millisecond.
public enum SegmentFormat: String, Sendable, CaseIterable {
    /// NIST Rich Transcription Time Marked: `SPEAKER file 1 start dur <NA> <NA> speech <NA> <NA>`.
    case rttm
    /// Audacity label track: `start<TAB>end<TAB>label`.
    case audacity
    /// `start,end` in seconds, with a `start,end` header (optional on import).
    case csv

    /// The file extension conventionally used for the format.
    public var fileExtension: String {
        switch self {
        case .rttm: "rttm"
        case .audacity: "txt"
        case .csv: "csv"
        }
    }

    /// Renders `segments`; `fileID` names the recording in RTTM (ignored by the others).
    public func text(for segments: [LabeledSegment], fileID: String) -> String {
        switch self {
        case .rttm: RTTM.text(for: segments, fileID: fileID)
        case .audacity: AudacityLabels.text(for: segments)
        case .csv: SegmentCSV.text(for: segments)
        }
    }

    /// Parses the segments of one recording; `name` is how errors refer to the file. An RTTM file
    /// must then describe a single recording (see ``RTTM/parse(_:name:)`` for several).
    public func segments(from text: String, name: String) throws -> [LabeledSegment] {
        switch self {
        case .rttm:
            let recordings = try RTTM.parse(text, name: name)
            guard recordings.count <= 1 else {
                let ids = recordings.map(\.fileID).joined(separator: ", ")
                throw EarshotError(.invalidInput, "\(name): describes several recordings (\(ids)); expected one")
            }
            return recordings.first?.segments ?? []
        case .audacity: return try AudacityLabels.parse(text, name: name)
        case .csv: return try SegmentCSV.parse(text, name: name)
        }
    }

    /// Seconds with three decimals, as every writer prints them.
    static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    /// A time field: a finite, non-negative number of seconds.
    static func time(_ field: Substring, name: String, line: Int, what: String) throws -> Double {
        guard let value = Double(field.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else {
            throw EarshotError(
                .invalidInput, "\(name), line \(line): \(what) \"\(field)\" is not a non-negative number of seconds")
        }
        return value
    }

    /// Checks that a parsed segment has positive length and does not start before the previous one.
    static func append(
        _ segment: LabeledSegment, to segments: inout [LabeledSegment], name: String, line: Int
    ) throws {
        guard segment.end > segment.start else {
            throw EarshotError(
                .invalidInput, "\(name), line \(line): end \(segment.end) is not after start \(segment.start)")
        }
        if let last = segments.last, segment.start < last.start {
            throw EarshotError(
                .invalidInput,
                "\(name), line \(line): start \(segment.start) is before the previous segment's start \(last.start); "
                    + "expected segments in time order")
        }
        segments.append(segment)
    }

    /// Lines of `text` with their 1-based numbers, skipping blank ones.
    static func numberedLines(_ text: String) -> [(Int, Substring)] {
        // Split on any line break: in Swift "\r\n" is one Character, so splitting on "\n" would miss it.
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap {
            index, line in line.allSatisfy(\.isWhitespace) ? nil : (index + 1, line)
        }
    }
}
