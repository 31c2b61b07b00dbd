import CSndFile
public import EarshotCore
import Foundation

/// Writes audio to a file through libsndfile, atomically: samples go to a temporary file beside the
/// destination, which takes the final name only when ``finish()`` succeeds. A writer dropped before
/// `finish()` (an error, a cancel) removes its temporary file, so a half-written file never appears
/// under the final name.
public final class AudioFileWriter {
    /// Containers and encodings the writer produces.
    public enum FileType: String, Sendable, CaseIterable {
        case wav, aiff, caf, w64, flac
        /// Ogg Vorbis (lossy).
        case oggVorbis = "ogg"
        /// Ogg Opus (lossy; 8, 12, 16, 24 or 48 kHz only).
        case oggOpus = "opus"

        /// The type a file name's extension suggests, if any.
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "wav", "wave": self = .wav
            case "aif", "aiff": self = .aiff
            case "caf": self = .caf
            case "w64": self = .w64
            case "flac": self = .flac
            case "ogg", "oga": self = .oggVorbis
            case "opus": self = .oggOpus
            default: return nil
            }
        }

        var majorFormat: Int32 {
            switch self {
            case .wav: Int32(SF_FORMAT_WAV)
            case .aiff: Int32(SF_FORMAT_AIFF)
            case .caf: Int32(SF_FORMAT_CAF)
            case .w64: Int32(SF_FORMAT_W64)
            case .flac: Int32(SF_FORMAT_FLAC)
            case .oggVorbis, .oggOpus: Int32(SF_FORMAT_OGG)
            }
        }
    }

    /// Sample encodings for the PCM containers (ignored by the lossy Ogg types).
    public enum SampleEncoding: String, Sendable, CaseIterable {
        /// 16-bit integers, quantised as ``PCM/int16(_:)`` does, so 16-bit audio round-trips exactly.
        case pcm16
        /// 32-bit floats, unchanged.
        case float32
    }

    public let path: String
    public let format: AudioFormat
    public let fileType: FileType
    public let encoding: SampleEncoding
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0

    private var handle: OpaquePointer?
    private let file: OutputFile
    private var scratch: [Int16] = []

    public init(path: String, format: AudioFormat, fileType: FileType, encoding: SampleEncoding = .pcm16) throws {
        let subtype: Int32
        switch fileType {
        case .oggVorbis: subtype = Int32(SF_FORMAT_VORBIS)
        case .oggOpus: subtype = Int32(SF_FORMAT_OPUS)
        case .flac where encoding == .float32:
            throw EarshotError(.invalidParameter, "\(path): FLAC holds integer PCM only; expected encoding pcm16")
        default: subtype = encoding == .pcm16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_FLOAT)
        }
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channelCount)
        info.format = fileType.majorFormat | subtype
        guard sf_format_check(&info) != 0 else {
            throw EarshotError(
                .unsupportedFormat, "\(path): \(fileType.rawValue) cannot hold \(encoding.rawValue) audio at \(format)")
        }

        let file = try OutputFile(path: path)
        guard let handle = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, 1) else {
            throw EarshotError(.writeFailed, "\(path): cannot write \(fileType.rawValue) (\(SndFile.lastError(nil)))")
        }
        file.descriptorWasClosed()  // from here on sf_close owns it
        self.file = file
        self.handle = handle
        self.path = path
        self.format = format
        self.fileType = fileType
        self.encoding = encoding
    }

    deinit {
        // Without finish() the OutputFile removes the temporary file.
        if let handle { sf_close(handle) }
    }

    /// Appends `buffer`, which must be in the writer's format.
    public func write(_ buffer: AudioBuffer) throws {
        guard let handle else { preconditionFailure("write after finish") }
        guard buffer.format == format else {
            throw EarshotError(
                .invalidParameter, "\(path): buffer is \(buffer.format); the file was opened for \(format)")
        }
        let frames = buffer.frameCount
        let written: sf_count_t
        if encoding == .pcm16 && fileType != .oggVorbis && fileType != .oggOpus {
            if scratch.count < buffer.samples.count {
                scratch = [Int16](repeating: 0, count: buffer.samples.count)
            }
            written = buffer.samples.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { target in
                    PCM.convert(source, to: target)
                    return sf_writef_short(handle, target.baseAddress, sf_count_t(frames))
                }
            }
        } else {
            written = buffer.samples.withUnsafeBufferPointer {
                sf_writef_float(handle, $0.baseAddress, sf_count_t(frames))
            }
        }
        guard written == frames else {
            throw EarshotError(
                .writeFailed, "\(path): write failed after \(framesWritten) frames (\(SndFile.lastError(handle)))")
        }
        framesWritten += Int64(frames)
    }

    /// Completes the file and moves it to its final name.
    public func finish() throws {
        guard let handle else { return }
        self.handle = nil
        let status = sf_close(handle)
        guard status == 0 else {
            throw EarshotError(.writeFailed, "\(path): closing failed (libsndfile error \(status))")
        }
        try file.commit()
    }
}
