import ArgumentParser
import EarshotCore
import EarshotDSP
import EarshotIO
import Foundation

struct Level: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the RMS and peak level of every 100 ms of an audio file.",
        discussion: """
            One line per window of media time, as the SDK's audioLevel callback reports it live (about ten \
            a second): start time in seconds, RMS and peak in dBFS (-inf for digital silence), and the \
            number of clipped samples. The last window may be shorter.

            Examples:
              earshot level speech.wav
              earshot level --format csv --interval 50 take.flac > levels.csv
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable, FormatFromExtension {
        case tsv, csv, json
    }

    @OptionGroup var input: InputOptions

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help: "Output format: tsv (with a header line), csv or json. Default: from -o's extension, else tsv.")
    var formatOption: Format?

    /// --format, else what -o's extension names, else tsv.
    var format: Format { .resolve(formatOption, output: output, default: .tsv) }

    func validate() throws { try Format.check(formatOption, output: output) }

    @Option(help: "Window length in milliseconds of media time.")
    var interval: Int = 100

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    func run() throws {
        try OutputFile.refuseReplacing(inputs: [input.file], outputs: [output], option: "-o")
        var source = try input.open()
        var meter = try LevelMeter(configuration: .init(intervalMilliseconds: interval))
        let output = try CommandOutput(path: output)
        var windows: [LevelDocument.Window] = []
        let separator = format == .csv ? "," : "\t"
        if format != .json {
            try output.write(["start_s", "rms_dbfs", "peak_dbfs", "clipped"].joined(separator: separator) + "\n")
        }
        try Pipeline.run(&source, through: &meter) { produced in
            for event in produced.events {
                guard case .level(let level) = event.kind else { continue }
                if format == .json {
                    windows.append(LevelDocument.Window(time: event.time, level: level))
                } else {
                    let fields = [
                        String(format: "%.3f", event.time.seconds), formatDecibels(level.rmsDBFS),
                        formatDecibels(level.peakDBFS), "\(level.clippedSamples)",
                    ]
                    try output.write(fields.joined(separator: separator) + "\n")
                }
            }
        }
        if format == .json {
            let document = LevelDocument(
                input: source.inputDescription, intervalMilliseconds: interval,
                clippingThreshold: meter.configuration.clippingThreshold, levels: windows)
            try output.write(try JSONOutput.encode(document))
        }
        try output.commit()
    }
}

/// `earshot level --format json`.
struct LevelDocument: Encodable {
    struct Window: Encodable {
        var startSeconds: Double
        var durationSeconds: Double
        var rmsDBFS: JSONOutput.Level
        var peakDBFS: JSONOutput.Level
        var clipped: Int

        init(time: MediaTime, level: AudioLevel) {
            startSeconds = JSONOutput.seconds(time)
            durationSeconds = JSONOutput.seconds(MediaTime(frame: Int64(level.frameCount), sampleRate: time.sampleRate))
            rmsDBFS = JSONOutput.decibels(level.rmsDBFS)
            peakDBFS = JSONOutput.decibels(level.peakDBFS)
            clipped = level.clippedSamples
        }

        enum CodingKeys: String, CodingKey {
            case clipped
            case startSeconds = "start_s", durationSeconds = "duration_s", rmsDBFS = "rms_dbfs", peakDBFS = "peak_dbfs"
        }
    }

    var schemaVersion = JSONOutput.schemaVersion
    var input: InputDescription
    var intervalMilliseconds: Int
    var clippingThreshold: Float
    var levels: [Window]

    enum CodingKeys: String, CodingKey {
        case input, levels
        case schemaVersion = "schema_version", intervalMilliseconds = "interval_ms"
        case clippingThreshold = "clipping_threshold"
    }
}
