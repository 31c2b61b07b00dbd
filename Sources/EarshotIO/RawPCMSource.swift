public import EarshotCore
import Foundation

/// How headerless PCM is laid out: the sox-style `--rate --channels --encoding` spec.
public struct RawPCMFormat: Sendable, Hashable {
    /// Sample encodings accepted for raw input.
    public enum Encoding: String, Sendable, CaseIterable {
        /// Signed 16-bit little-endian integers.
        case s16le
        /// 32-bit little-endian IEEE floats, full scale ±1.
        case f32le

        /// Bytes per sample.
        public var byteCount: Int { self == .s16le ? 2 : 4 }
    }

    public var format: AudioFormat
    public var encoding: Encoding

    public init(format: AudioFormat, encoding: Encoding) {
        self.format = format
        self.encoding = encoding
    }

    /// Bytes per frame (all channels).
    public var bytesPerFrame: Int { encoding.byteCount * format.channelCount }
}

/// Reads headerless PCM from a file descriptor (a file or standard input) in blocks.
///
/// The input must end on a whole frame; float input must be finite (a NaN would poison every stage
/// after it, so it is rejected with its sample offset).
public final class RawPCMSource: AudioSource {
    public let format: AudioFormat
    public let raw: RawPCMFormat
    /// The name used in messages (the path, or "stdin").
    public let name: String
    public let blockFrames: Int

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var bytes: [UInt8]
    private var buffer: AudioBuffer
    private var position: Int64 = 0

    /// Opens `path` (or standard input for "-") as raw PCM in `raw`'s layout.
    public convenience init(path: String, raw: RawPCMFormat, blockFrames: Int = 4096) throws {
        if path == InputPath.standardStream {
            self.init(
                descriptor: STDIN_FILENO, ownsDescriptor: false, name: "stdin", raw: raw, blockFrames: blockFrames)
            return
        }
        let file = try InputFile.open(path)
        self.init(descriptor: file.descriptor, ownsDescriptor: true, name: file.name, raw: raw, blockFrames: blockFrames)
    }

    init(descriptor: Int32, ownsDescriptor: Bool, name: String, raw: RawPCMFormat, blockFrames: Int) {
        precondition(blockFrames > 0, "blockFrames must be positive")
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.name = name
        self.raw = raw
        self.format = raw.format
        self.blockFrames = blockFrames
        bytes = [UInt8](repeating: 0, count: blockFrames * raw.bytesPerFrame)
        buffer = AudioBuffer(
            format: raw.format, samples: [Float](repeating: 0, count: blockFrames * raw.format.channelCount))
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    public var inputDescription: InputDescription {
        InputDescription(
            name: name, container: "raw", encoding: raw.encoding.rawValue, sampleRate: format.sampleRate,
            channelCount: format.channelCount)
    }

    public func read() throws -> AudioBuffer? {
        let filled = try fillBytes()
        guard filled > 0 else { return nil }
        let frameBytes = raw.bytesPerFrame
        guard filled % frameBytes == 0 else {
            let offset = position * Int64(frameBytes) + Int64(filled - filled % frameBytes)
            throw EarshotError(
                .invalidInput,
                "\(name): input ends mid-frame at byte \(offset + Int64(filled % frameBytes)) (\(filled % frameBytes) stray bytes); expected whole \(frameBytes)-byte frames of \(raw.encoding.rawValue)"
            )
        }
        let frames = filled / frameBytes
        let sampleCount = frames * format.channelCount
        if buffer.samples.count != sampleCount {
            buffer.samples.removeAll(keepingCapacity: true)
            buffer.samples.append(contentsOf: repeatElement(0, count: sampleCount))
        }
        let encoding = raw.encoding
        let firstSample = position * Int64(format.channelCount)
        let badSample: Int? = bytes.withUnsafeBytes { source in
            buffer.samples.withUnsafeMutableBufferPointer { samples in
                switch encoding {
                case .s16le:
                    for i in 0..<sampleCount {
                        samples[i] = PCM.float(
                            Int16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
                    }
                case .f32le:
                    for i in 0..<sampleCount {
                        let bits = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                        let value = Float(bitPattern: bits)
                        guard value.isFinite else { return i }
                        samples[i] = value
                    }
                }
                return nil
            }
        }
        if let badSample {
            throw EarshotError(
                .invalidInput,
                "\(name): sample \(firstSample + Int64(badSample)) is not a finite number; expected f32le samples near [-1, 1]"
            )
        }
        buffer.startFrame = position
        position += Int64(frames)
        return buffer
    }

    /// Reads until the block is full or the input ends; returns the bytes read.
    private func fillBytes() throws -> Int {
        var filled = 0
        let capacity = bytes.count
        while filled < capacity {
            let got = bytes.withUnsafeMutableBytes { target in
                Foundation.read(descriptor, target.baseAddress! + filled, capacity - filled)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw EarshotError(.invalidInput, "\(name): read failed (\(OutputFile.systemError()))")
            }
            filled += got
        }
        return filled
    }
}
