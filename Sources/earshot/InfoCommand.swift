import ArgumentParser
import EarshotCore
import EarshotDSP
import EarshotIO
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe an audio file: format, rate, channels, duration, peak and RMS level.",
        discussion: """
            Reads the whole file once to measure it. Levels are in dBFS (a full-scale sine peaks at 0 and \
            has an RMS of −3.01); clipped counts samples at 16-bit full scale.

            Examples:
              earshot info speech.wav
              earshot info --format json recording.flac
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case txt, json
    }

    @OptionGroup var input: InputOptions

    @Option(name: .shortAndLong, help: "Output format: txt or json.")
    var format: Format = .txt

    func run() throws {
        var source = try input.open()
        var meter = try LevelMeter()
        try Pipeline.run(&source, through: &meter) { _ in }
        let level = meter.overall
        let description = source.inputDescription
        let duration = Double(level.frameCount) / Double(source.format.sampleRate)

        switch format {
        case .txt:
            let lines = [
                ("file", description.name),
                ("container", description.container),
                ("encoding", description.encoding),
                ("sample rate", "\(description.sampleRate) Hz"),
                ("channels", "\(description.channelCount)"),
                ("duration", String(format: "%.3f s (%d frames)", duration, level.frameCount)),
                ("peak", "\(formatDecibels(level.peakDBFS)) dBFS"),
                ("rms", "\(formatDecibels(level.rmsDBFS)) dBFS"),
                ("clipped", "\(level.clippedSamples) samples"),
            ]
            print(
                lines.map { "\($0.0 + ":")".padding(toLength: 13, withPad: " ", startingAt: 0) + $0.1 }.joined(
                    separator: "\n"))
        case .json:
            let document = InfoDocument(
                input: description, frames: level.frameCount, durationSeconds: (duration * 1000).rounded() / 1000,
                peakDBFS: JSONOutput.decibels(level.peakDBFS), rmsDBFS: JSONOutput.decibels(level.rmsDBFS),
                clippedSamples: level.clippedSamples)
            print(try JSONOutput.encode(document), terminator: "")
        }
    }
}

/// `earshot info --format json`.
struct InfoDocument: Encodable {
    var schemaVersion = JSONOutput.schemaVersion
    var input: InputDescription
    var frames: Int
    var durationSeconds: Double
    var peakDBFS: JSONOutput.Level
    var rmsDBFS: JSONOutput.Level
    var clippedSamples: Int

    enum CodingKeys: String, CodingKey {
        case input, frames
        case schemaVersion = "schema_version", durationSeconds = "duration_s", peakDBFS = "peak_dbfs"
        case rmsDBFS = "rms_dbfs", clippedSamples = "clipped_samples"
    }
}
