public import EarshotCodecs
public import EarshotCore
import Foundation

/// Opens what a user names on the command line as an audio source.
///
/// - With `codec`, the path (or "-") is decoded as that wire format: the way to read the formats
///   that carry no header (header-byte Speex, L16), whose rate and channels come from `raw`.
/// - With a raw spec, the path (or "-") is read as headerless PCM in that layout.
/// - Otherwise the format is sniffed from the first bytes. libsndfile reads most containers (MP3
///   included); the Speech API's AMR and Ogg Speex, and WAVs sent while recording (whose header
///   states no length, which libsndfile may read as empty), go through Earshot's own decoders; MP4/M4A,
///   WebM/Matroska and ADTS AAC, which libsndfile does not read, go through FFmpeg
///   (``MediaFileSource``).
/// - "-" without a spec reads standard input, and a path that is not a regular file — a FIFO such as
///   bash's `<(sox …)`, `/dev/stdin` on a pipe, a device — is read the same way, as a stream. A 16-bit
///   PCM WAV (or RF64) there is decoded as it arrives, so a live pipe (`ffmpeg -re … -f wav -`) flows
///   through at once; its header's lengths are taken as the writer's estimate (`sox … -t wav -` writes
///   one before it knows, or 0x7FFFF000), and the data is read to the end of the stream. Containers
///   such as FLAC and Ogg need to seek while parsing, so any other stream is first spooled to an
///   unlinked temporary file: memory stays constant, disk use equals the input's size.
/// - A path is opened once (``InputFile``): sniffing, the structure checks and the decoder all read
///   the one descriptor.
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
            return try openStream(descriptor: STDIN_FILENO, ownsDescriptor: false, name: name, blockFrames: blockFrames)
        }
        let file = try InputFile.open(path, inspecting: true)
        guard let contents = file.contents else {
            return try openStream(descriptor: file.descriptor, ownsDescriptor: true, name: name, blockFrames: blockFrames)
        }
        return try open(file, holding: contents, blockFrames: blockFrames)
    }

    /// Reads a regular file by its content, not its name: the descriptor opened once goes to the
    /// decoder its first bytes call for. Takes the descriptor.
    private static func open(_ file: InputFile, holding contents: InputFile.Contents, blockFrames: Int) throws
        -> any AudioSource
    {
        func decode(as codec: CodecFormat) throws -> DecodingSource {
            let decoder: any AudioDecoder
            do {
                decoder = try codec.makeDecoder(name: file.name)
            } catch {
                file.close()
                throw error
            }
            return try DecodingSource(
                descriptor: file.descriptor, ownsDescriptor: true, name: file.name, codec: codec, decoder: decoder,
                readSize: 16_384)
        }
        // MP3 and Ogg Vorbis stay with libsndfile, which the command line has always read them with.
        if let container = contents.container, MediaContainer.beyondSndFile.contains(container) {
            return try MediaFileSource(file: file, container: container, blockFrames: blockFrames)
        }
        switch contents.sniffed {
        case .amr: return try decode(as: .amr)
        case .oggSpeex: return try decode(as: .oggSpeex)
        case .speexWideband: return try decode(as: .speexWideband)
        case .speexNarrowband: return try decode(as: .speexNarrowband)
        case .wav where contents.streamingWAV: return try decode(as: .wav)
        default: return try AudioFileSource(file: file, blockFrames: blockFrames)
        }
    }

    /// Reads standard input, a FIFO (`<(sox …)`) or a device as a stream. A 16-bit PCM WAV is decoded
    /// as it arrives; anything else is spooled to an unlinked temporary file, which is then read as a
    /// regular file (by its descriptor: the spool is never opened twice). Takes the descriptor if
    /// `ownsDescriptor`.
    private static func openStream(descriptor: Int32, ownsDescriptor: Bool, name: String, blockFrames: Int) throws
        -> any AudioSource
    {
        let spool: Int32
        do {
            let prefix = try readStream(descriptor, name: name, upTo: 512)
            if CodecFormat.sniff(prefix) == .wav, decodesAsStreamingWAV(prefix, name: name) {
                // The source takes the descriptor over (and closes it, if it is ours, even if this throws).
                return try DecodingSource(
                    descriptor: descriptor, ownsDescriptor: ownsDescriptor, name: name, codec: .wav,
                    decoder: WAVDecoder(name: name, lengths: .estimated), readSize: 16_384, prefix: prefix)
            }
            spool = try spoolStream(descriptor, prefix: prefix, name: name)
        } catch {
            if ownsDescriptor { close(descriptor) }
            throw error
        }
        if ownsDescriptor { close(descriptor) }
        let file = try InputFile(descriptor: spool, name: name, inspecting: true)
        return try open(file, holding: file.contents!, blockFrames: blockFrames)  // a spool is a regular file
    }

    /// Copies `prefix` and the rest of the stream `descriptor` to an unlinked temporary file (memory
    /// stays constant; disk use equals the input's size); returns its descriptor, at offset 0.
    private static func spoolStream(_ descriptor: Int32, prefix: [UInt8], name: String) throws -> Int32 {
        let (spool, spoolPath) = try OutputFile.makeTemporary(
            template: FileManager.default.temporaryDirectory.path + "/earshot-stdin-XXXXXX", naming: name)
        unlink(spoolPath)  // the descriptor keeps the data alive
        TemporaryFiles.unregister(spoolPath)
        do {
            var copied = 0
            var chunk = prefix
            while !chunk.isEmpty {
                try write(chunk, to: spool, name: name)
                copied += chunk.count
                chunk = try readStream(descriptor, name: name, upTo: 1 << 16)
            }
            guard copied > 0 else {
                throw EarshotError(
                    .invalidInput,
                    "\(name): is empty (0 bytes); expected audio (for headerless PCM give --rate, --channels and --encoding)")
            }
            guard lseek(spool, 0, SEEK_SET) == 0 else {
                throw EarshotError(.writeFailed, "\(name): cannot rewind its spool file (\(OutputFile.systemError()))")
            }
            return spool
        } catch {
            close(spool)
            throw error
        }
    }

    /// Whether Earshot's WAV decoder takes the stream's header: 16-bit PCM (a header it refuses, such as
    /// 24-bit or float, is left to libsndfile through the spool).
    private static func decodesAsStreamingWAV(_ prefix: [UInt8], name: String) -> Bool {
        var trial = WAVDecoder(name: name, lengths: .estimated)
        var ignored = StageOutput<AudioBuffer>()
        return (try? trial.process(prefix, into: &ignored)) != nil
    }

    /// The next bytes of a stream: `count`, or fewer if it ends first.
    private static func readStream(_ descriptor: Int32, name: String, upTo count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                Foundation.read(descriptor, $0.baseAddress! + filled, count - filled)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw EarshotError(.invalidInput, "\(name): read failed (\(OutputFile.systemError()))")
            }
            filled += got
        }
        return Array(bytes[0..<filled])
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32, name: String) throws {
        guard bytes.withUnsafeBytes({ OutputFile.writeAll($0, to: descriptor) }) else {
            throw EarshotError(.writeFailed, "\(name): cannot spool to a temporary file (\(OutputFile.systemError()))")
        }
    }
}
