public import ArgumentParser
import EarshotCodecs
import EarshotCore
import EarshotIO
import Foundation

extension RawPCMFormat.Encoding: ExpressibleByArgument {}
extension CodecFormat: ExpressibleByArgument {
    /// The format an output file's extension names; an error asking for --format when it names none.
    init(outputPath: String) throws {
        let ext = (outputPath as NSString).pathExtension
        guard let format = CodecFormat(fileExtension: ext) else {
            throw EarshotError(
                .invalidParameter,
                "\(outputPath): cannot tell the format from the extension '\(ext)'; give --format (\(CodecFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        self = format
    }
}

/// The input every command takes: a file (or -) and, for headerless PCM, its layout.
struct InputOptions: ParsableArguments {
    @Argument(help: "Audio file to read, or - for standard input.")
    var file: String

    @OptionGroup var layout: InputLayoutOptions

    func open(blockFrames: Int = 4096) throws -> any AudioSource {
        try layout.open(file, blockFrames: blockFrames)
    }

    /// How to call the input in outputs.
    var displayName: String { InputLayoutOptions.displayName(file) }
}

/// How to read inputs that carry no header: sox-style raw PCM specs and wire formats. Shared by
/// commands that take one file and those that take many.
struct InputLayoutOptions: ParsableArguments {
    @Option(help: "Sample rate of headerless PCM input, in Hz. Giving it marks the input as raw.")
    var rate: Int?

    @Option(help: "Channels of headerless PCM input (interleaved).")
    var channels: Int = 1

    @Option(help: "Sample encoding of headerless PCM input: s16le or f32le.")
    var encoding: RawPCMFormat.Encoding = .s16le

    @Option(
        help: """
            Wire format of the input, for streams without a header: speex-wb, speex-nb (Speex with a length \
            byte per frame) or l16 (with --rate). Others are recognised from their first bytes.
            """)
    var inputFormat: CodecFormat?

    /// Extensions that mean "no header": reading them without a spec would only give a confusing error.
    private static let rawExtensions: Set<String> = ["raw", "pcm", "s16", "f32", "sw", "l16"]

    /// The layout of raw input at `file`, or nil for a file with a header.
    func rawFormat(for file: String) throws -> RawPCMFormat? {
        guard let rate else {
            if inputFormat != nil { return nil }  // the format names itself; its decoder knows its rate
            let ext = (file as NSString).pathExtension.lowercased()
            if Self.rawExtensions.contains(ext) {
                throw EarshotError(
                    .invalidParameter,
                    "\(file): headerless PCM needs --rate (and --channels, --encoding if not mono s16le)")
            }
            return nil
        }
        let format = try AudioFormat(
            sampleRate: rate, channelCount: channels, origin: "\(Self.displayName(file)) (--rate/--channels)")
        return RawPCMFormat(format: format, encoding: encoding)
    }

    func open(_ file: String, blockFrames: Int = 4096) throws -> any AudioSource {
        try AudioInput.open(path: file, raw: rawFormat(for: file), codec: inputFormat, blockFrames: blockFrames)
    }

    /// How to call an input in outputs.
    static func displayName(_ file: String) -> String { InputPath.displayName(file) }

    /// What files written per input are named after: the input's file name without directory and
    /// extension (`stdin` for standard input) — the same id RTTM gives the recording.
    static func stem(_ file: String) -> String { InputPath.stem(file) }

    /// Refuses, before any work, two inputs that would write to the same `name(file)`; `clash` says
    /// where ("would both be written to NAME in --out"), and the error names both inputs.
    static func requireDistinct(_ files: [String], by name: (String) -> String, _ clash: (String) -> String) throws {
        var seen: [String: String] = [:]
        for file in files {
            let key = name(file)
            if let first = seen[key] {
                throw ValidationError("\(displayName(first)) and \(displayName(file)) \(clash(key)); rename one")
            }
            seen[key] = file
        }
    }
}
