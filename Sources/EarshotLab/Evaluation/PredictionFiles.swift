import EarshotCore
import Foundation

/// Predictions another tool wrote for a corpus, one file per recording, scored by the same code as our
/// detectors: `NAME.prob` (one speech probability per 10 ms cell, one per line — the layout of
/// `earshot vad --format probs`), smoothed as our detectors' probabilities are, or `NAME.csv`
/// (`start,end` speech segments in seconds), scored as given: the tool smoothed them already.
///
/// For the recording `sub/x.wav`, the files looked for are `DIR/sub/x.prob`, `DIR/sub/x.csv`, then
/// `DIR/x.prob`, `DIR/x.csv` (so `earshot vad --out DIR` output, which is flat, is found).
public enum PredictionFiles {
    public static func track(for entry: CorpusEntry, in directory: String) throws -> DetectorTrack {
        let relative = (entry.path as NSString).deletingPathExtension
        let base = (relative as NSString).lastPathComponent
        for stem in [relative, base] {
            let probPath = directory + "/" + stem + ".prob"
            if FileManager.default.fileExists(atPath: probPath) { return try probabilities(at: probPath) }
            let csvPath = directory + "/" + stem + ".csv"
            if FileManager.default.fileExists(atPath: csvPath) {
                return try segments(at: csvPath, duration: entry.duration)
            }
        }
        throw EarshotError(
            .invalidInput, "\(directory): no predictions for \(entry.path) (expected \(base).prob or \(base).csv)")
    }

    static func probabilities(at path: String) throws -> DetectorTrack {
        let text = try read(path)
        var values: [Float] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let field = line.trimmingCharacters(in: .whitespaces)
            if field.isEmpty { continue }
            guard let value = Float(field), (0...1).contains(value) else {
                throw EarshotError(
                    .invalidInput, "\(path): line \(index + 1): expected a probability in 0…1, got '\(field)'")
            }
            values.append(value)
        }
        return DetectorTrack(gridProbabilities: values)
    }

    static func segments(at path: String, duration: Double) throws -> DetectorTrack {
        let segments = try SegmentCSV.parse(try read(path), name: path)
        if let last = segments.last, last.end > duration + FrameGrid.cellDuration {
            throw EarshotError(
                .invalidInput, "\(path): segment ends at \(last.end) s, past the end of the audio (\(duration) s)")
        }
        let cells = FrameGrid.cellCount(duration: duration)
        var track = DetectorTrack(gridProbabilities: FrameGrid.labels(segments, cellCount: cells).map { $0 ? 1 : 0 })
        track.isDecided = true
        return track
    }

    private static func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
