import COpus
public import EarshotCore
import Foundation

/// Decodes Ogg Opus (`.opus`, `audio/ogg;codecs=opus`, RFC 7845) with libopus, from
/// ``OggOpusEncoder``, opusenc or ffmpeg.
///
/// Contract (see ``AudioDecoder``):
/// - Input: the file's bytes in pieces cut anywhere. The first page must begin a stream whose first
///   packet is an OpusHead (version 0.x, mapping family 0, one or two channels; other families throw
///   `.unsupportedFormat`) and whose second is an OpusTags packet; both are checked before libopus
///   sees anything.
/// - Output: mono at the rate chosen at creation (8, 12, 16, 24 or 48 kHz; stereo streams are
///   mixed down by libopus), media time from 0, the header's output gain applied. The pre-skip is
///   dropped and the last page is trimmed to its granule position (RFC 7845 §4.5), so a stream from
///   ``OggOpusEncoder`` decodes to exactly the input's length. Audio leaves as soon as its page is
///   complete.
/// - Errors: see ``OggPacketReader`` for the Ogg layer; an empty or invalid Opus packet throws
///   naming its offset.
public final class OggOpusDecoder: AudioDecoder {
    public typealias Input = [UInt8]
    public typealias Output = AudioBuffer

    private let engine: OggDecoderEngine<OpusOggPackets>

    /// `sampleRate` is the rate to decode at; `name` is the stream's name in error messages.
    public init(sampleRate: Int = 16_000, name: String = "request body") throws {
        guard OggOpusEncoder.Configuration.sampleRates.contains(sampleRate) else {
            throw EarshotError(
                .unsupportedFormat,
                "Opus decoder sample rate: \(sampleRate) Hz; expected 8000, 12000, 16000, 24000 or 48000")
        }
        engine = OggDecoderEngine(codec: try OpusOggPackets(sampleRate: sampleRate, name: name), name: name)
    }

    public var name: String { engine.name }
    public var outputFormat: AudioFormat? { engine.codec.outputFormat }

    public func process(_ input: [UInt8], into output: inout StageOutput<AudioBuffer>) throws {
        try engine.process(input, into: &output)
    }

    public func finish(into output: inout StageOutput<AudioBuffer>) throws {
        try engine.finish()
    }
}

/// The Opus side of Ogg Opus decoding: OpusHead, OpusTags, then one Opus packet per Ogg packet.
final class OpusOggPackets: OggPacketDecoding {
    let name: String
    let sampleRate: Int
    let outputFormat: AudioFormat?
    private let state: OpaquePointer
    private var preSkip48k = 0
    private var gain: Float = 1

    init(sampleRate: Int, name: String) throws {
        self.name = name
        self.sampleRate = sampleRate
        outputFormat = try AudioFormat(sampleRate: sampleRate, channelCount: 1, origin: name)
        var error: Int32 = 0
        guard let state = opus_decoder_create(Int32(sampleRate), 1, &error), error == OPUS_OK else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): libopus cannot decode at \(sampleRate) Hz (\(String(cString: opus_strerror(error))))")
        }
        self.state = state
    }

    deinit { opus_decoder_destroy(state) }

    /// The header's pre-skip, whatever the first page says (RFC 7845 §4.2).
    func samplesToSkip(firstAudioPageExcess excess: Int?) -> Int { (preSkip48k * sampleRate + 24_000) / 48_000 }

    func outputSamples(atGranulePosition granulePosition: Int64) -> Int64 {
        let samples48k = max(0, granulePosition - Int64(preSkip48k))
        return (samples48k * Int64(sampleRate) + 24_000) / 48_000
    }

    func readHeader(_ packet: OggPacketReader.Packet, index: Int) throws -> Bool {
        if index == 0 {
            try readOpusHead(packet)
            return true
        }
        try checkOpusTags(packet)
        return false
    }

    func decode(_ packet: OggPacketReader.Packet, appendingTo samples: inout [Float]) throws {
        let bytes = packet.bytes
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw EarshotError.malformedStream(name, at: packet.offset, "empty Opus packet", expected: "an Opus packet")
        }
        let count = Int(opus_packet_get_nb_samples(base, Int32(bytes.count), Int32(sampleRate)))
        guard count > 0, count <= sampleRate * 120 / 1_000 else {
            throw EarshotError.malformedStream(
                name, at: packet.offset, "Opus packet of \(bytes.count) bytes has an invalid table of contents",
                expected: "an Opus packet of 2.5–120 ms")
        }
        let start = samples.count
        samples.append(contentsOf: repeatElement(0, count: count))
        let decoded = samples.withUnsafeMutableBufferPointer { out in
            opus_decode_float(state, base, Int32(bytes.count), out.baseAddress! + start, Int32(count), 0)
        }
        guard decoded >= 0 else {
            samples.removeLast(count)
            throw EarshotError.malformedStream(
                name, at: packet.offset, "libopus rejects the packet (\(String(cString: opus_strerror(decoded))))",
                expected: "a valid Opus packet")
        }
        samples.removeLast(count - Int(decoded))
        if gain != 1 {
            for index in start..<samples.count { samples[index] *= gain }
        }
    }

    /// RFC 7845 §5.1, checked field by field.
    private func readOpusHead(_ packet: OggPacketReader.Packet) throws {
        let bytes = packet.bytes
        guard OggHeaderBytes.starts(bytes, with: "OpusHead") else {
            throw EarshotError.malformedStream(
                name, at: packet.offset, "first packet starts \(OggHeaderBytes.quoted(bytes, count: 8))",
                expected: "an Opus identification header (\"OpusHead\")")
        }
        guard bytes.count >= 19 else {
            throw EarshotError.malformedStream(
                name, at: packet.offset, "OpusHead is \(bytes.count) bytes", expected: "at least 19")
        }
        let version = bytes[8]
        guard version >> 4 == 0 else {
            throw EarshotError(
                .unsupportedFormat, "\(name): Ogg Opus version \(version >> 4).\(version & 15); expected 0.x")
        }
        let channels = Int(bytes[9])
        let family = bytes[18]
        guard family == 0 else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): Opus channel mapping family \(family); only family 0 (mono, stereo) is supported")
        }
        guard (1...2).contains(channels) else {
            throw EarshotError.malformedStream(
                name, at: packet.offset + 9, "OpusHead declares \(channels) channels with mapping family 0",
                expected: "1 or 2")
        }
        preSkip48k = Int(OggHeaderBytes.read(UInt16.self, in: bytes, at: 10))
        let gainQ8 = OggHeaderBytes.read(Int16.self, in: bytes, at: 16)
        gain = Float(pow(10, Double(gainQ8) / (20 * 256)))
    }

    /// RFC 7845 §5.2: magic, then length-prefixed vendor string and comments, all inside the packet.
    private func checkOpusTags(_ packet: OggPacketReader.Packet) throws {
        let bytes = packet.bytes
        func malformed(_ problem: String) -> EarshotError {
            EarshotError.malformedStream(name, at: packet.offset, problem, expected: "an OpusTags comment header")
        }
        guard OggHeaderBytes.starts(bytes, with: "OpusTags") else {
            throw malformed("second packet starts \(OggHeaderBytes.quoted(bytes, count: 8))")
        }
        var position = 8
        func length() throws -> Int {
            guard position + 4 <= bytes.count else { throw malformed("OpusTags ends inside a length field") }
            defer { position += 4 }
            return Int(OggHeaderBytes.read(UInt32.self, in: bytes, at: position))
        }
        let vendorLength = try length()
        position += vendorLength
        guard position <= bytes.count else { throw malformed("OpusTags vendor string runs past the packet") }
        let comments = try length()
        for _ in 0..<min(comments, bytes.count) {
            let commentLength = try length()
            position += commentLength
            guard position <= bytes.count else { throw malformed("an OpusTags comment runs past the packet") }
        }
    }
}
