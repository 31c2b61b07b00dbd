public import EarshotCore

/// Parses a 16-bit PCM WAV stream fed in pieces split anywhere (an HTTP body arriving in chunks), as
/// sent by the Speech SDK: possibly a "streaming" WAV whose header states no length.
///
/// Contract (see ``AudioDecoder``):
/// - Input: `RIFF` (or `RF64`, whose sizes are in a `ds64` chunk that is skipped), a size, `WAVE`, then chunks. Unknown chunks (`LIST`, `fact`, …) are skipped as they
///   stream past, with their pad byte when their size is odd, so no chunk size (a hostile 4 GB one
///   included) causes buffering: at most the first 40 bytes of `fmt ` are held. `fmt ` must come before
///   `data` and describe 16-bit PCM (see `WAVFormatChunk`).
/// - `data` with a real size is read to that size and anything after it is ignored; a size of 0,
///   0xFFFFFFFF or 0x7FFFF000 (the placeholders of streaming writers: the SDK and ffmpeg, and sox)
///   means "until the stream ends". (So a truly empty `data` chunk followed by other chunks would have
///   them read as samples; writers put such chunks first.) With ``Lengths/estimated`` — a pipe, whose
///   writer may have guessed the length before it knew it, as `sox … -t wav -` does — every `data`
///   chunk is read to the end of the stream, and a last, incomplete sample frame is dropped; but a
///   stream that ends well short of a stated size (by more than half a second and 2 % of it) is
///   truncated, as it would be from a file: a writer's guess is off by a rounding, not by seconds.
/// - Output: buffers at the file's rate and channel count, interleaved (downmixing and resampling are
///   other stages' work), every complete sample frame of each call; no latency.
/// - Errors name the byte offset: wrong magic, a non-ASCII chunk id, a short or unsupported `fmt `,
///   `data` before `fmt `; at `finish`, a stream that ends before `data` or before `data`'s stated
///   size, or inside a sample frame (an odd trailing byte).
public struct WAVDecoder: AudioDecoder, Sendable {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    private enum State: Sendable {
        /// Gathering the 12 bytes `RIFF` size `WAVE`.
        case riffHeader
        /// Gathering a chunk's 8-byte id and size.
        case chunkHeader
        /// Gathering the first bytes of `fmt `, of `size` bytes in all.
        case formatBody(size: UInt32)
        /// Passing over `remaining` bytes of a chunk that is not read.
        case skipping(remaining: Int64)
        /// In the samples: `remaining` bytes of them, or `nil` to the end of the stream.
        case samples(remaining: Int64?)
        /// Past the end of a `data` chunk with a known size.
        case done
    }

    private static let riffMagic: [UInt8] = Array("RIFF\0\0\0\0WAVE".utf8)
    private static let rf64Magic: [UInt8] = Array("RF64".utf8)
    /// `data` sizes that stand for "until the stream ends".
    static let unknownSizes: Set<UInt32> = [0, WAVEncoder.unknownSize, 0x7FFF_F000]

    /// What the sizes in a header are worth.
    public enum Lengths: Sendable {
        /// A stated `data` size is the data's size: a stream that ends before it is truncated.
        case exact
        /// A stated size may be a writer's guess: the data runs to the end of the stream.
        case estimated
    }

    /// Names the stream in error messages: a file name or "request body".
    public let name: String
    /// Whether stated sizes are trusted.
    public let lengths: Lengths
    /// Known once the `fmt ` chunk has been read.
    public private(set) var outputFormat: AudioFormat?
    /// The size the `data` chunk states, or `nil` while unknown or for a streaming WAV.
    public private(set) var declaredDataSize: Int64?

    private var state = State.riffHeader
    /// Bytes of the stream consumed so far.
    private var offset = 0
    /// Where the current chunk's header starts.
    private var chunkStart = 0
    /// Header bytes gathered so far (at most 40, the part of `fmt ` that is read).
    private var gathered: [UInt8] = []
    private var unpacker = PCM16Unpacker(channelCount: 1, bigEndian: false)
    private var output = AudioBuffer(format: .wideband)
    private var framesDecoded: Int64 = 0
    /// Bytes of `data` read so far.
    private var dataBytesRead: Int64 = 0

    public init(name: String, lengths: Lengths = .exact) {
        self.name = name
        self.lengths = lengths
        gathered.reserveCapacity(WAVFormatChunk.readSize)
    }

    public mutating func process(_ input: [UInt8], into sink: inout StageOutput<AudioBuffer>) throws {
        output.samples.removeAll(keepingCapacity: true)
        try input.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                let available = bytes.count - index
                switch state {
                case .riffHeader:
                    let before = gathered.count
                    let taken = gather(bytes, from: index, upTo: 12)
                    index += taken
                    try checkMagic(from: before)
                    offset += taken
                    if gathered.count == 12 { enterChunk() }
                case .chunkHeader:
                    let taken = gather(bytes, from: index, upTo: 8)
                    index += taken
                    offset += taken
                    if gathered.count == 8 { try dispatchChunk() }
                case .formatBody(let size):
                    let taken = gather(bytes, from: index, upTo: Int(min(size, UInt32(WAVFormatChunk.readSize))))
                    index += taken
                    offset += taken
                    if gathered.count == Int(min(size, UInt32(WAVFormatChunk.readSize))) { try readFormat(size: size) }
                case .skipping(let remaining):
                    let taken = Int(min(Int64(available), remaining))
                    index += taken
                    offset += taken
                    if Int64(taken) == remaining {
                        enterChunk()
                    } else {
                        state = .skipping(remaining: remaining - Int64(taken))
                    }
                case .samples(let remaining):
                    let taken = remaining.map { Int(min(Int64(available), $0)) } ?? available
                    unpacker.unpack(UnsafeBufferPointer(rebasing: bytes[index..<index + taken]), into: &output.samples)
                    index += taken
                    offset += taken
                    dataBytesRead += Int64(taken)
                    if let remaining {
                        state = Int64(taken) == remaining ? .done : .samples(remaining: remaining - Int64(taken))
                    }
                case .done:
                    // Chunks after a sized `data` chunk (LIST, id3, …) hold no samples.
                    offset += available
                    index = bytes.count
                }
            }
        }
        guard !output.isEmpty else { return }
        output.startFrame = framesDecoded
        framesDecoded += Int64(output.frameCount)
        sink.emit(output)
    }

    public mutating func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        switch state {
        case .riffHeader, .chunkHeader, .formatBody, .skipping:
            let problem = offset == 0 ? "the stream is empty" : "the stream ends before any samples"
            let expected = outputFormat == nil ? "a RIFF/WAVE header, a fmt chunk and a data chunk" : "a data chunk"
            throw EarshotError.malformedStream(name, at: offset, problem, expected: expected)
        case .samples(let remaining?):
            throw EarshotError.malformedStream(
                name, at: offset,
                "the data chunk at byte \(chunkStart) states \(declaredDataSize ?? 0) bytes but the stream ends after \((declaredDataSize ?? 0) - remaining) of them",
                expected: "\(remaining) more bytes (a truncated WAV)")
        case .samples(nil), .done:
            try checkEstimatedLength()
            let pending = unpacker.pendingByteCount
            guard pending > 0, lengths == .exact else { return }
            let problem =
                pending == 1 && unpacker.frameByteCount == 2
                ? "an odd trailing byte in 16-bit data"
                : "the data ends inside a sample frame after \(pending) of its \(unpacker.frameByteCount) bytes"
            throw EarshotError.malformedStream(
                name, at: offset - pending, problem, expected: "whole 16-bit sample frames")
        }
    }

    /// With ``Lengths/estimated``, fails when the data falls short of a stated size by more than a
    /// writer's rounding could explain: half a second of audio and 2 % of the size.
    private func checkEstimatedLength() throws {
        guard lengths == .estimated, let declared = declaredDataSize, let format = outputFormat else { return }
        let bytesPerSecond = Int64(2 * format.channelCount * format.sampleRate)
        let shortfall = declared - dataBytesRead
        guard shortfall > max(bytesPerSecond / 2, declared / 50) else { return }
        let seconds = { (bytes: Int64) in "\(Double(bytes * 100 / bytesPerSecond) / 100) s" }
        throw EarshotError.malformedStream(
            name, at: offset,
            "the data chunk at byte \(chunkStart) states \(declared) bytes (\(seconds(declared))) but the stream ends after \(dataBytesRead) of them (\(seconds(dataBytesRead)))",
            expected: "the rest of the recording (a truncated WAV); a writer that cannot know the length states 0 or 0xFFFFFFFF")
    }

    /// Appends bytes to `gathered` until it holds `count`; returns how many were taken.
    private mutating func gather(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int, upTo count: Int) -> Int {
        let taken = min(count - gathered.count, bytes.count - index)
        gathered.append(contentsOf: bytes[index..<index + taken])
        return taken
    }

    /// Checks the `RIFF` (or `RF64`)…`WAVE` bytes gathered since `before`, failing on the first wrong one.
    private func checkMagic(from before: Int) throws {
        for position in before..<gathered.count where position < 4 || position >= 8 {
            if position < 4 {
                let start = Array(gathered[0...position])
                if start == Array(Self.riffMagic[0...position]) || start == Array(Self.rf64Magic[0...position]) {
                    continue
                }
            } else if gathered[position] == Self.riffMagic[position] {
                continue
            }
            let (at, expected) = position < 4 ? (0, "\"RIFF\"") : (8, "\"WAVE\" after the RIFF size")
            throw EarshotError.malformedStream(
                name, at: at, "not a WAV stream: \(Self.quote(gathered[(position < 4 ? 0 : 8)...]))", expected: expected
            )
        }
    }

    private mutating func enterChunk() {
        gathered.removeAll(keepingCapacity: true)
        chunkStart = offset
        state = .chunkHeader
    }

    /// Acts on a complete chunk header in `gathered`.
    private mutating func dispatchChunk() throws {
        let id = Array(gathered[0..<4])
        let size =
            UInt32(gathered[4]) | UInt32(gathered[5]) << 8 | UInt32(gathered[6]) << 16 | UInt32(gathered[7]) << 24
        guard id.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw EarshotError.malformedStream(
                name, at: chunkStart, "a chunk id that is not ASCII (\(Self.quote(id[...])))",
                expected: "a four-character chunk id such as \"fmt \", \"data\" or \"LIST\"")
        }
        gathered.removeAll(keepingCapacity: true)
        switch id {
        case Array("fmt ".utf8):
            guard outputFormat == nil else {
                throw EarshotError.malformedStream(
                    name, at: chunkStart, "a second fmt chunk", expected: "one fmt chunk, before the data chunk")
            }
            guard size >= WAVFormatChunk.minimumSize else {
                throw EarshotError.malformedStream(
                    name, at: chunkStart + 4, "a fmt chunk of only \(size) bytes", expected: "at least 16 bytes")
            }
            state = .formatBody(size: size)
        case Array("data".utf8):
            guard let format = outputFormat else {
                throw EarshotError.malformedStream(
                    name, at: chunkStart, "a data chunk before the fmt chunk", expected: "the fmt chunk first")
            }
            if Self.unknownSizes.contains(size) || lengths == .estimated {
                if !Self.unknownSizes.contains(size) { declaredDataSize = Int64(size) }
                state = .samples(remaining: nil)
                return
            }
            guard Int(size) % (2 * format.channelCount) == 0 else {
                throw EarshotError.malformedStream(
                    name, at: chunkStart + 4, "a data chunk of \(size) bytes",
                    expected: "a multiple of \(2 * format.channelCount) (whole 16-bit sample frames)")
            }
            declaredDataSize = Int64(size)
            state = .samples(remaining: Int64(size))
        default:
            skip(Int64(size) + Int64(size & 1))
        }
    }

    /// Validates the gathered `fmt ` body, then skips whatever of it was not read.
    private mutating func readFormat(size: UInt32) throws {
        let chunk = try WAVFormatChunk(body: gathered[...], size: size, bodyOffset: chunkStart + 8, name: name)
        outputFormat = chunk.format
        output = AudioBuffer(format: chunk.format)
        unpacker = PCM16Unpacker(channelCount: chunk.format.channelCount, bigEndian: false)
        skip(Int64(size) - Int64(gathered.count) + Int64(size & 1))
    }

    private mutating func skip(_ count: Int64) {
        if count == 0 { enterChunk() } else { state = .skipping(remaining: count) }
    }

    /// Bytes as text when they are printable ASCII, in hex otherwise.
    private static func quote(_ bytes: ArraySlice<UInt8>) -> String {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) { return "\"\(String(decoding: bytes, as: UTF8.self))\"" }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
    }
}
