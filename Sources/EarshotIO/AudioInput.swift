import EarshotCodecs
import EarshotCore
import Foundation

/// Opens what a user names on the command line as an audio source.
///
/// - With `codec`, the path (or "-") is decoded as that wire format: the way to read the formats
///   that carry no header (header-byte Speex, L16), whose rate and channels come from `raw`.
/// - With a raw spec, the path (or "-") is read as headerless PCM in that layout.
/// - Otherwise the format is sniffed from the first bytes. libsndfile reads most containers; the
///   Speech API's AMR and Ogg Speex, and WAVs sent while recording (whose header states no length,
///   which libsndfile may read as empty), go through Earshot's own decoders.
/// - "-" without a spec reads standard input. Containers such as FLAC and Ogg need to seek while
///   parsing, so standard input is first spooled to an unlinked temporary file: memory stays
///   constant, disk use equals the input's size.
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
        let (descriptor, spoolPath) = try AtomicFile.makeTemporary(
            template: FileManager.default.temporaryDirectory.path + "/earshot-stdin-XXXXXX", naming: "stdin")
        defer {
            close(descriptor)
            unlink(spoolPath)  // the source opened below keeps the data alive
            TemporaryFiles.unregister(spoolPath)
        }
        let copied = try copyStandardInput(to: descriptor)
        guard copied > 0 else {
            throw EarshotError(
                .invalidInput,
                "stdin: is empty (0 bytes); expected audio (for headerless PCM give --rate, --channels and --encoding)")
        }
        return try openFile(spoolPath, name: "stdin", blockFrames: blockFrames)
    }

    private static func copyStandardInput(to descriptor: Int32) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let got = chunk.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            if got == 0 { return total }
            if got < 0 {
                if errno == EINTR { continue }
                throw EarshotError(.invalidInput, "stdin: read failed (\(AtomicFile.systemError()))")
            }
            var written = 0
            while written < got {
                let n = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, got - written) }
                guard n > 0 else {
                    throw EarshotError(
                        .writeFailed, "stdin: cannot spool to a temporary file (\(AtomicFile.systemError()))")
                }
                written += n
            }
            total += got
        }
    }
}
