public import EarshotCore

/// Packs audio as 16-bit little-endian PCM WAV (`audio/wav`), header first, as the Speech SDK streams
/// it while recording (`ATTSKAudioFormatWAV_NB` / `_WB`: 8 or 16 kHz mono, 128 or 256 kbit/s).
///
/// Contract (see ``AudioEncoder``):
/// - Input: any rate Earshot supports, mono or stereo, fixed at creation. (More channels would need a
///   `WAVE_FORMAT_EXTENSIBLE` header and are refused.)
/// - Output: the 44-byte RIFF header at the front of the first packet, then the samples of each call
///   whole: a WAV frame is one sample frame, so there is no latency and `finish` has nothing to pad.
/// - The length is unknown when the header goes out, so the RIFF and `data` sizes are 0xFFFFFFFF, the
///   streaming placeholder: ffmpeg and sox both read such a file to its end (sox warns "Premature EOF",
///   ffmpeg "Ignoring maximum wav data size"), while with 0 sox reads no samples at all.
/// - A writer that can seek (a file) overwrites the first ``headerSize`` bytes with
///   ``finalizedHeader()`` after `finish`, making the file exact; nothing is buffered meanwhile, and a
///   file left unpatched (a crash) still reads to its end.
public struct WAVEncoder: AudioEncoder, Sendable {
    public typealias Input = AudioBuffer
    public typealias Output = EncodedPacket

    /// Bytes of the header: `RIFF` (12), `fmt ` (8 + 16), `data` (8).
    public static let headerSize = 44
    /// The RIFF and `data` size written while the length is unknown.
    public static let unknownSize: UInt32 = 0xFFFF_FFFF

    public let inputFormat: AudioFormat
    public var contentType: String { CodecFormat.wav.contentType() }

    private var packet: EncodedPacket
    private var wroteHeader = false
    private var origin: Int64?
    private var framesEncoded: Int64 = 0

    public init(inputFormat: AudioFormat) throws {
        guard inputFormat.channelCount <= 2 else {
            throw EarshotError(
                .unsupportedFormat,
                "WAV encoder: \(inputFormat.channelCount) channels; expected mono or stereo (downmix first)")
        }
        self.inputFormat = inputFormat
        let zero = MediaTime.zero(sampleRate: inputFormat.sampleRate)
        packet = EncodedPacket(bytes: [], start: zero, end: zero)
    }

    /// Bytes of sample data encoded so far.
    public var dataByteCount: Int64 { framesEncoded * Int64(2 * inputFormat.channelCount) }

    /// The header with the true sizes of what has been encoded so far, to patch over the first
    /// ``headerSize`` bytes once the stream is finished. Past 4 GiB of data, WAV cannot state the size,
    /// so the placeholder stays.
    public func finalizedHeader() -> [UInt8]? {
        let fits = dataByteCount <= Int64(UInt32.max) - 36 - 1
        return Self.header(format: inputFormat, dataSize: fits ? UInt32(dataByteCount) : Self.unknownSize)
    }

    public mutating func process(_ input: AudioBuffer, into output: inout StageOutput<EncodedPacket>) throws {
        try input.requireFormat(inputFormat, stage: "WAV encoder")
        let origin = self.origin ?? input.startFrame
        self.origin = origin
        guard !input.isEmpty || !wroteHeader else { return }
        startPacket()
        let start = origin + framesEncoded
        input.samples.withUnsafeBufferPointer { PCM16Bytes.append($0, bigEndian: false, to: &packet.bytes) }
        framesEncoded += Int64(input.frameCount)
        emitPacket(from: start, into: &output)
    }

    public mutating func finish(into output: inout StageOutput<EncodedPacket>) throws {
        // Only an empty stream still owes its header here.
        guard !wroteHeader else { return }
        let origin = self.origin ?? 0
        self.origin = origin
        startPacket()
        emitPacket(from: origin, into: &output)
    }

    private mutating func startPacket() {
        packet.bytes.removeAll(keepingCapacity: true)
        if !wroteHeader {
            packet.bytes.append(contentsOf: Self.header(format: inputFormat, dataSize: Self.unknownSize))
            wroteHeader = true
        }
    }

    private mutating func emitPacket(from start: Int64, into output: inout StageOutput<EncodedPacket>) {
        packet.start = MediaTime(frame: start, sampleRate: inputFormat.sampleRate)
        packet.end = MediaTime(frame: (origin ?? 0) + framesEncoded, sampleRate: inputFormat.sampleRate)
        output.emit(packet)
    }

    /// The canonical 44-byte header of 16-bit PCM (format tag 1). `dataSize` of ``unknownSize`` makes
    /// the RIFF size unknown too.
    static func header(format: AudioFormat, dataSize: UInt32) -> [UInt8] {
        let blockAlign = 2 * format.channelCount
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize)
        func put(_ text: String) { bytes.append(contentsOf: text.utf8) }
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        put("RIFF")
        put32(dataSize == unknownSize ? unknownSize : 36 + dataSize)
        put("WAVE")
        put("fmt ")
        put32(16)
        put16(1)
        put16(UInt16(format.channelCount))
        put32(UInt32(format.sampleRate))
        put32(UInt32(format.sampleRate * blockAlign))
        put16(UInt16(blockAlign))
        put16(16)
        put("data")
        put32(dataSize)
        return bytes
    }
}
