import EarshotCore
public import EarshotVAD
import Foundation

/// `earshot vad --format json`: each file's speech segments, times rounded to the millisecond, and the
/// detector and smoothing settings that found them (named as in sweep grids and `eval` reports).
public struct VADDocument: Encodable {
    public struct File: Encodable {
        var path: String
        var durationSeconds: Double
        var speechSeconds: Double
        var segments: [LabeledSegment]

        enum CodingKeys: String, CodingKey {
            case path, segments
            case durationSeconds = "duration_s", speechSeconds = "speech_s"
        }

        /// `path` as the document names it, its length in seconds, and its segments.
        public init(path: String, duration: Double, segments: [LabeledSegment]) {
            let rounded = segments.map {
                LabeledSegment(start: ($0.start * 1000).rounded() / 1000, end: ($0.end * 1000).rounded() / 1000)
            }
            self.path = path
            durationSeconds = (duration * 1000).rounded() / 1000
            speechSeconds = (rounded.map(\.duration).reduce(0, +) * 1000).rounded() / 1000
            self.segments = rounded
        }
    }

    var schemaVersion = ReportSchema.version
    var parameters: [String: ParameterValue]
    var files: [File]

    enum CodingKeys: String, CodingKey {
        case parameters, files
        case schemaVersion = "schema_version"
    }

    public init(detector: DetectorKind, smoothing: SmoothingConfiguration, files: [File]) {
        let parameters = EvaluationSettings(
            detector: detector, smoothing: smoothing, endpointer: try! EndpointerConfiguration()
        ).parameters
        self.parameters = parameters.filter { SweepParameter(rawValue: $0.key).map { !$0.isEndpointing } ?? false }
        self.files = files
    }
}
