import ArgumentParser
import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import Foundation

struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode audio in a wire format of the Speech API: Speex, AMR-NB, WAV, L16, FLAC or Opus.",
        discussion: """
            Reads FILE (anything `earshot info` reads), resamples it to mono at the format's rate (16 kHz, \
            or 8 kHz for speex-nb and amr; --output-rate for wav, l16, flac and opus) and writes OUTPUT, \
            or standard output for -, byte for byte as a client uploads it. Formats:
              speex-wb, speex-nb  Speex, a length byte before every frame (audio/x-speex-with-header-byte)
              spx                 Speex wideband in Ogg, for files (speexdec plays it)
              amr                 AMR-NB, 12.2 kbit/s unless --bitrate, RFC 4867 file (audio/amr)
              wav                 16-bit PCM; on standard output a streaming WAV with no length
              l16                 raw big-endian 16-bit PCM (audio/L16)
              flac, opus          FLAC; Opus in Ogg (audio/ogg;codecs=opus)

            Examples:
              earshot encode speech.wav speech.amr
              earshot encode --format speex-wb speech.flac upload.speex
              earshot encode --format wav --output-rate 8000 call.flac - > narrow.wav
            """
    )

    @OptionGroup var input: InputOptions

    @Argument(help: "Where to write the encoded stream, or - for standard output.")
    var output: String

    @Option(name: .shortAndLong, help: "Wire format (default: from OUTPUT's extension).")
    var format: CodecFormat?

    @Option(help: "Sample rate of the encoded stream in Hz, for wav, l16, flac and opus (default 16000).")
    var outputRate: Int?

    @Option(help: "Codec quality: Speex 0–10 (default 4, ~14 kbit/s VBR wideband), FLAC compression 0–8.")
    var quality: Int?

    @Option(help: "Bit rate in bit/s: picks the AMR-NB mode (4750–12200), or sets Opus's (default 20000).")
    var bitrate: Int?

    @Flag(help: "Speex: constant instead of variable bit rate.")
    var cbr = false

    @OptionGroup var resampling: ResamplerOptions

    func run() throws {
        try OutputFile.refuseReplacing(inputs: [input.file], outputs: [output], option: "OUTPUT")
        let codec = try resolvedFormat()
        var source = try input.open()
        let encoder = try codec.makeEncoder(
            sampleRate: outputRate, options: .init(quality: quality, bitrate: bitrate, variableBitRate: !cbr))
        let sink = try CommandOutput(path: output)
        try encode(&source, with: encoder, to: sink)
        try sink.commit()
    }

    /// Source → resampler → `encoder` → `sink`; generic so the chain is built from the concrete encoder.
    private func encode<Encoder: AudioEncoder>(
        _ source: inout any AudioSource, with encoder: Encoder, to sink: CommandOutput
    ) throws {
        let resampler = try Resampler(
            inputFormat: source.format, configuration: resampling.configuration(sampleRate: encoder.inputFormat.sampleRate))
        var chain = resampler.then(encoder)
        var packets = StageOutput<EncodedPacket>()
        while let buffer = try source.read() {
            try chain.process(buffer, into: &packets)
            for packet in packets.items { try sink.write(packet.bytes) }
            packets.removeAll()
        }
        try chain.finish(into: &packets)
        for packet in packets.items { try sink.write(packet.bytes) }
        if let header = chain.second.finalizedHeader() { try sink.patch(header, at: 0) }
    }

    private func resolvedFormat() throws -> CodecFormat {
        try format ?? CodecFormat(outputPath: output)
    }
}
