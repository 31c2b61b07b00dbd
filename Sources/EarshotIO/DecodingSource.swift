public import EarshotCodecs
public import EarshotCore
import Foundation

/// Reads an encoded stream (AMR, Speex, Ogg Speex, L16, … — the Speech API's formats that libsndfile
/// does not read) from a file descriptor and decodes it as it goes.
///
/// The decoder sees the bytes in blocks of `readSize`, exactly as the service sees an upload, so a
/// file and a streamed body decode alike. Opening reads until the decoder knows the stream's format
/// (after its header), so a malformed header fails at open with the decoder's message.
public final class DecodingSource: AudioSource {
    /// The decoded format, known once the header has been read (which `init` ensures).
    public var format: AudioFormat { headerFormat! }
    /// The name used in messages.
    public let name: String
    /// The wire format being decoded.
    public let codec: CodecFormat
    /// Bytes read so far.
    public private(set) var bytesRead = 0

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var decoder: any AudioDecoder
    private var chunk: [UInt8]
    private var decoded = StageOutput<AudioBuffer>()
    private var queue: [AudioBuffer] = []
    private var ended = false
    private var headerFormat: AudioFormat?
    /// Bytes read before the decoder was made, decoded first.
    private var pending: [UInt8]

    /// Decodes the file at `path` ("-" for standard input) with `decoder`; `name` replaces the path in messages.
    public convenience init(
        path: String, name: String? = nil, codec: CodecFormat, decoder: any AudioDecoder, readSize: Int = 16_384
    ) throws {
        if path == InputPath.standardStream {
            try self.init(
                descriptor: STDIN_FILENO, ownsDescriptor: false, name: name ?? "stdin", codec: codec, decoder: decoder,
                readSize: readSize)
            return
        }
        let file = try InputFile.open(path, name: name)
        try self.init(
            descriptor: file.descriptor, ownsDescriptor: true, name: file.name, codec: codec, decoder: decoder,
            readSize: readSize)
    }

    /// Decodes what `descriptor` holds after `prefix`, the bytes already read from it (a sniffed
    /// header), as they arrive: a pipe is decoded while its writer is still writing.
    init(
        descriptor: Int32, ownsDescriptor: Bool, name: String, codec: CodecFormat, decoder: any AudioDecoder,
        readSize: Int, prefix: [UInt8] = []
    ) throws {
        pending = prefix
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.name = name
        self.codec = codec
        self.decoder = decoder
        chunk = [UInt8](repeating: 0, count: readSize)
        // Feed bytes until the header has told the decoder what it holds. (deinit closes the descriptor
        // if this throws.)
        while self.decoder.outputFormat == nil, try pump() {}
        guard let known = self.decoder.outputFormat else {
            throw EarshotError(
                .invalidInput, "\(name): ended after \(bytesRead) bytes, before a complete \(codec.displayName) header")
        }
        headerFormat = known
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public var inputDescription: InputDescription {
        InputDescription(
            name: name, container: codec.displayName, encoding: codec.rawValue, sampleRate: format.sampleRate,
            channelCount: format.channelCount)
    }

    public func read() throws -> AudioBuffer? {
        while queue.isEmpty {
            guard try pump() else { break }
        }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    /// Reads one block and decodes it (or finishes the decoder at the end); false once nothing is left.
    private func pump() throws -> Bool {
        if ended { return false }
        decoded.removeAll()
        if !pending.isEmpty {
            let prefix = pending
            pending = []
            bytesRead += prefix.count
            try decoder.process(prefix, into: &decoded)
            queue += decoded.items.filter { !$0.isEmpty }
            return true
        }
        let count = try readBlock()
        if count == 0 {
            ended = true
            try decoder.finish(into: &decoded)
        } else {
            try decoder.process(Array(chunk[0..<count]), into: &decoded)
        }
        queue += decoded.items.filter { !$0.isEmpty }
        return true
    }

    private func readBlock() throws -> Int {
        while true {
            let got = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress!, $0.count) }
            if got >= 0 {
                bytesRead += got
                return got
            }
            if errno != EINTR {
                throw EarshotError(.invalidInput, "\(name): read failed (\(OutputFile.systemError()))")
            }
        }
    }
}
