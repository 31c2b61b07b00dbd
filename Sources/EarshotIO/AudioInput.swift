public import EarshotCodecs
public import EarshotCore
import Foundation

/// Opens what a user names on the command line as an audio source.
///
/// - With `codec`, the path (or "-") is decoded as that wire format: the way to read the formats
///   that carry no header (header-byte Speex, L16), whose rate and channels come from `raw`.
/// - With a raw spec, the path (or "-") is read as headerless PCM in that layout.
/// - Otherwise the format is sniffed from the first bytes. libsndfile reads most containers; the
///   Speech API's AMR and Ogg Speex, and WAVs sent while recording (whose header states no length,
///   which libsndfile may read as empty), go through Earshot's own decoders.
/// - "-" without a spec reads standard input. A 16-bit PCM WAV (or RF64) there is decoded as it
///   arrives, so a live pipe (`ffmpeg -re … -f wav -`) flows through at once; its header's lengths are
///   taken as the writer's estimate (`sox … -t wav -` writes one before it knows, or 0x7FFFF000), and
///   the data is read to the end of the stream. Containers such as FLAC and Ogg need to seek while
///   parsing, so any other standard input is first spooled to an unlinked temporary file: memory
///   stays constant, disk use equals the input's size.
public enum AudioInput {
    public static func open(
        path: String, raw: RawPCMFormat? = nil, codec: CodecFormat? = nil, blockFrames: Int = 4096
    ) throws -> any AudioSource {
        let name = path == InputPath.standardStream ? "stdin" : path
        if let codec {
            let decoder = try codec.makeDecoder(
                name: name, sampleRate: raw?.format.sampleRate, channelCount: raw?.format.channelCount ?? 1)
            return try DecodingSource(path: path, name: name, codec: codec, decoder: decoder)
        }
        if let raw {
            return try RawPCMSource(path: path, raw: raw, blockFrames: blockFrames)
        }
        if path == InputPath.standardStream {
            return try openStandardInput(blockFrames: blockFrames)
        }
        try InputPath.checkReadableFile(path)
        return try openFile(path, name: path, blockFrames: blockFrames)
    }

    /// Opens a regular file by its content, not its name.
    private static func openFile(_ path: String, name: String, blockFrames: Int) throws -> any AudioSource {
        let prefix = FileHandle(forReadingAtPath: path).flatMap { try? $0.read(upToCount: 512) } ?? Data()
        let hasUnknownLength = try WAVHeaderCheck.validate(path: path, name: name)
        try MP3FrameCheck.validate(path: path, name: name)
        try OggPageCheck.validate(path: path, name: name)
        switch CodecFormat.sniff(prefix) {
        case .amr: return try decode(path, name: name, as: .amr)
        case .oggSpeex: return try decode(path, name: name, as: .oggSpeex)
        case .wav where hasUnknownLength: return try decode(path, name: name, as: .wav)
        default: return try AudioFileSource(openedPath: path, name: name, blockFrames: blockFrames)
        }
    }

    private static func decode(_ path: String, name: String, as codec: CodecFormat) throws -> DecodingSource {
        try DecodingSource(path: path, name: name, codec: codec, decoder: codec.makeDecoder(name: name))
    }

    private static func openStandardInput(blockFrames: Int) throws -> any AudioSource {
        let prefix = try readStandardInput(upTo: 512)
        if CodecFormat.sniff(prefix) == .wav, decodesAsStreamingWAV(prefix) {
            return try DecodingSource(
                descriptor: STDIN_FILENO, ownsDescriptor: false, name: "stdin", codec: .wav,
                decoder: WAVDecoder(name: "stdin", lengths: .estimated), readSize: 16_384, prefix: prefix)
        }
        let (descriptor, spoolPath) = try OutputFile.makeTemporary(
            template: FileManager.default.temporaryDirectory.path + "/earshot-stdin-XXXXXX", naming: "stdin")
        defer {
            close(descriptor)
            unlink(spoolPath)  // the source opened below keeps the data alive
            TemporaryFiles.unregister(spoolPath)
        }
        try spool(prefix, to: descriptor)
        let copied = try prefix.count + copyStandardInput(to: descriptor)
        guard copied > 0 else {
            throw EarshotError(
                .invalidInput,
                "stdin: is empty (0 bytes); expected audio (for headerless PCM give --rate, --channels and --encoding)")
        }
        return try openFile(spoolPath, name: "stdin", blockFrames: blockFrames)
    }

    /// Whether Earshot's WAV decoder takes the stream's header: 16-bit PCM (a header it refuses, such as
    /// 24-bit or float, is left to libsndfile through the spool).
    private static func decodesAsStreamingWAV(_ prefix: [UInt8]) -> Bool {
        var trial = WAVDecoder(name: "stdin", lengths: .estimated)
        var ignored = StageOutput<AudioBuffer>()
        return (try? trial.process(prefix, into: &ignored)) != nil
    }

    /// The first bytes of standard input: `count`, or fewer if it ends first.
    private static func readStandardInput(upTo count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                Foundation.read(STDIN_FILENO, $0.baseAddress! + filled, count - filled)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw EarshotError(.invalidInput, "stdin: read failed (\(OutputFile.systemError()))")
            }
            filled += got
        }
        return Array(bytes[0..<filled])
    }

    private static func spool(_ bytes: [UInt8], to descriptor: Int32) throws {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress! + written, bytes.count - written)
            }
            guard n > 0 else {
                throw EarshotError(
                    .writeFailed, "stdin: cannot spool to a temporary file (\(OutputFile.systemError()))")
            }
            written += n
        }
    }

    /// Copies the rest of standard input to `descriptor`, 64 KiB at a time; returns the bytes copied.
    private static func copyStandardInput(to descriptor: Int32) throws -> Int {
        var total = 0
        while true {
            let chunk = try readStandardInput(upTo: 1 << 16)
            if chunk.isEmpty { return total }
            try spool(chunk, to: descriptor)
            total += chunk.count
        }
    }
}
