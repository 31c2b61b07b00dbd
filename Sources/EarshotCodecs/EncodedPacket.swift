public import EarshotCore

/// Encoded bytes and the stretch of media time whose audio they hold.
///
/// A header (a RIFF header, `#!AMR\n`, Ogg identification pages) holds no audio: its `start` equals
/// its `end`, the media time at which the stream begins.
public struct EncodedPacket: Sendable, Equatable {
    public var bytes: [UInt8]
    /// Media time of the first sample encoded in `bytes`.
    public var start: MediaTime
    /// Media time just after the last sample encoded in `bytes`.
    public var end: MediaTime

    public init(bytes: [UInt8], start: MediaTime, end: MediaTime) {
        self.bytes = bytes
        self.start = start
        self.end = end
    }

    /// Seconds of audio the bytes hold.
    public var duration: Double { end.seconds - start.seconds }

    /// Stamps the packet as holding the encoded frames `encoded` (counted from the stream's first frame,
    /// which sits at media time `origin`), of which only the first `inputFrames` were real input. The
    /// packet-time rule of ``AudioEncoder`` lives here: padding and codec-delay flush carry no time.
    @inlinable
    public mutating func stamp(encoded: Range<Int64>, inputFrames: Int64, origin: Int64, sampleRate: Int) {
        start = MediaTime(frame: origin + min(encoded.lowerBound, inputFrames), sampleRate: sampleRate)
        end = MediaTime(frame: origin + min(encoded.upperBound, inputFrames), sampleRate: sampleRate)
    }
}

/// A stage that compresses or packs audio into a wire format.
///
/// Contract shared by every encoder:
/// - Input: buffers in exactly `inputFormat` (resample before), contiguous in media time.
/// - Output: at most one ``EncodedPacket`` per `process` call, holding every complete codec frame the
///   call finished (bytes in wire order), stamped with the media time of those frames. Padding and
///   frames that only flush a codec's delay carry no time: a packet never ends after the input did. The packet's
///   storage is reused from call to call, so the steady state allocates nothing as long as the
///   consumer does not keep the packet.
/// - A header, if the format has one, comes first, in its own packet or at the front of the first.
/// - `finish` encodes the last partial frame padded with silence (so decoded length is the input's
///   within one frame) and writes any trailer; an empty stream still yields a valid, empty file.
public protocol AudioEncoder: AudioStage where Input == AudioBuffer, Output == EncodedPacket {
    /// The only format `process` accepts.
    var inputFormat: AudioFormat { get }
    /// The HTTP `Content-Type` of the bytes, e.g. `audio/x-speex-with-header-byte;rate=16000`.
    var contentType: String { get }

    /// For a format whose header states lengths known only at the end (WAV), the header with the true
    /// lengths, to write over the start of a seekable output after `finish`; nil when the stream as
    /// sent is already complete. Streams go out with a placeholder header, so they need no patch.
    func finalizedHeader() -> [UInt8]?
}

extension AudioEncoder {
    public func finalizedHeader() -> [UInt8]? { nil }
}

/// A stage that turns a wire format back into audio, fed the bytes as they arrive.
///
/// Contract shared by every decoder:
/// - Input: byte chunks split anywhere (one byte at a time gives the same audio as the whole stream).
/// - Output: at most one buffer per `process` call, media time counted from 0 at the stream's start,
///   storage reused between calls.
/// - Malformed input (wrong magic, a length that runs past the data, an impossible header) throws
///   `.invalidInput` as soon as it is seen, naming the stream, the byte offset and what was expected;
///   `finish` throws if the stream stops mid-frame or before its header is complete.
public protocol AudioDecoder: AudioStage where Input == [UInt8], Output == AudioBuffer {
    /// The format of the decoded audio: known at creation for headerless formats, after the header otherwise.
    var outputFormat: AudioFormat? { get }
}
