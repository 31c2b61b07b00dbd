import ArgumentParser
import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import Foundation

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode any supported audio — Speex, AMR, Opus, FLAC, WAV, L16, … — to 16-bit PCM.",
        discussion: """
            Writes OUTPUT in the container its extension names (wav, flac, aiff, caf, w64), or a streaming \
            WAV on standard output for -. Self-describing inputs (WAV, FLAC, Ogg Speex, Ogg Opus, AMR and \
            everything libsndfile reads) are recognised from their first bytes; header-byte Speex and L16 \
            carry no header, so name them with --input-format.

            Examples:
              earshot decode upload.amr upload.wav
              earshot decode --input-format speex-wb upload.speex - | sox -t wav - -d
              earshot decode --input-format l16 --rate 8000 body.l16 body.flac
            """
    )

    @OptionGroup var input: InputOptions

    @Argument(help: "Where to write PCM (wav, flac, aiff, caf, w64), or - for a WAV stream on standard output.")
    var output: String

    func run() throws {
        try OutputFile.refuseReplacing(inputs: [input.file], outputs: [output], option: "OUTPUT")
        var source = try input.open()
        let sink = try PCMSink(path: output, format: source.format)
        while let buffer = try source.read() { try sink.write(buffer) }
        try sink.finish()
    }
}

/// 16-bit PCM out: a libsndfile file, or our streaming WAV on standard output (libsndfile cannot
/// write a WAV to a pipe, since it goes back to fill in the lengths).
private final class PCMSink {
    private var file: AudioFileWriter?
    private var stream: (encoder: WAVEncoder, output: CommandOutput, packets: StageOutput<EncodedPacket>)?

    init(path: String, format: AudioFormat) throws {
        if path == InputPath.standardStream {
            stream = (try WAVEncoder(inputFormat: format), try CommandOutput(path: path), StageOutput())
            return
        }
        let ext = (path as NSString).pathExtension
        guard let type = AudioFileWriter.FileType(pathExtension: ext), ![.oggVorbis, .oggOpus].contains(type) else {
            throw EarshotError(
                .invalidParameter,
                "\(path): cannot write PCM to a '.\(ext)' file; expected .wav, .flac, .aiff, .caf or .w64")
        }
        file = try AudioFileWriter(path: path, format: format, fileType: type)
    }

    func write(_ buffer: AudioBuffer) throws {
        if let file { return try file.write(buffer) }
        guard var stream else { return }
        try stream.encoder.process(buffer, into: &stream.packets)
        try flush(&stream)
    }

    func finish() throws {
        if let file { return try file.finish() }
        guard var stream else { return }
        try stream.encoder.finish(into: &stream.packets)
        try flush(&stream)
    }

    private func flush(
        _ stream: inout (encoder: WAVEncoder, output: CommandOutput, packets: StageOutput<EncodedPacket>)
    ) throws {
        for packet in stream.packets.items { try stream.output.write(packet.bytes) }
        stream.packets.removeAll()
        self.stream = stream
    }
}
