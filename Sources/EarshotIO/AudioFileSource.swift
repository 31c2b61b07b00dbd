import CSndFile
public import EarshotCore
import Foundation

/// Reads any audio file libsndfile understands — WAV, FLAC, Ogg Vorbis and Opus, AIFF, CAF, W64, AU…
/// at any sample rate and channel count — in blocks of `blockFrames` frames.
///
/// The header is checked before any sample is read: the file must be a regular, non-empty file whose
/// rate and channel count Earshot supports (see ``AudioFormat``). Integer PCM is normalised as
/// libsndfile does (an Int16 `x` reads as `x / 32768`), so 16-bit audio round-trips exactly.
/// Memory use is one block, whatever the length of the file.
public final class AudioFileSource: AudioSource {
    public let format: AudioFormat
    /// The name used in messages (the path, or "stdin").
    public let name: String
    /// Frames in the file as its header states them.
    public let frameCount: Int64
    /// The container as libsndfile names it, e.g. "WAV (Microsoft)".
    public let containerName: String
    /// The sample encoding as libsndfile names it, e.g. "Signed 16 bit PCM".
    public let encodingName: String
    /// Frames per buffer returned by `read()`.
    public let blockFrames: Int

    private let handle: OpaquePointer
    /// The file, open since before libsndfile read its header; closed after libsndfile is done.
    private let descriptor: Int32
    /// Whether `frameCount` is exact rather than an estimate (FLAC), so a shorter read is a truncation.
    private let statesExactLength: Bool
    private var buffer: AudioBuffer
    private var position: Int64 = 0

    /// Opens `path` for reading (once: see ``InputFile``).
    public convenience init(path: String, blockFrames: Int = 4096) throws {
        try self.init(file: InputFile.open(path, inspecting: true), blockFrames: blockFrames)
    }

    /// Reads `file` with libsndfile from the descriptor's current offset (a regular file inspected on
    /// opening: see ``InputFile``). Takes the descriptor: closes it when done, or if this throws.
    init(file: InputFile, blockFrames: Int) throws {
        let name = file.name
        precondition(blockFrames > 0, "blockFrames must be positive")
        var info = SF_INFO()
        // 0: libsndfile leaves the descriptor open, for this source to close.
        guard let handle = sf_open_fd(file.descriptor, Int32(SFM_READ), &info, 0) else {
            file.close()
            throw EarshotError(
                .invalidInput,
                "\(name): not a readable audio file (\(SndFile.lastError(nil))); expected WAV, FLAC, Ogg, AIFF, MP3 or "
                    + "another libsndfile format, AMR, MP4/M4A, WebM or ADTS AAC, or raw PCM with --rate, --channels "
                    + "and --encoding; convert anything else first, e.g. ffmpeg -i IN -ar 16000 -ac 1 OUT.wav"
            )
        }
        do {
            format = try AudioFormat(sampleRate: Int(info.samplerate), channelCount: Int(info.channels), origin: name)
            guard info.frames >= 0 else {
                throw EarshotError(.invalidInput, "\(name): header states a negative length (\(info.frames) frames)")
            }
        } catch {
            sf_close(handle)
            file.close()
            throw error
        }
        self.handle = handle
        descriptor = file.descriptor
        self.name = name
        self.blockFrames = blockFrames
        frameCount = info.frames
        // A FLAC written to a pipe (`ffmpeg … -f flac -`) cannot go back to fill in its sample count:
        // STREAMINFO says 0, "unknown", which libsndfile reports as SF_COUNT_MAX.
        statesExactLength =
            info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC) && info.frames < Int64.max
        containerName = SndFile.formatName(info.format & Int32(SF_FORMAT_TYPEMASK))
        encodingName = SndFile.formatName(info.format & Int32(SF_FORMAT_SUBMASK))
        buffer = AudioBuffer(format: format, samples: [Float](repeating: 0, count: blockFrames * format.channelCount))
    }

    deinit {
        sf_close(handle)
        close(descriptor)
    }

    /// Duration in seconds according to the header.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    public var inputDescription: InputDescription {
        InputDescription(
            name: name, container: containerName, encoding: encodingName, sampleRate: format.sampleRate,
            channelCount: format.channelCount, duration: frameCount < Int64.max ? duration : nil)
    }

    public func read() throws -> AudioBuffer? {
        let channels = format.channelCount
        // Restore full length (no reallocation while capacity suffices), read, then trim to what came.
        if buffer.samples.count < blockFrames * channels {
            buffer.samples.append(contentsOf: repeatElement(0, count: blockFrames * channels - buffer.samples.count))
        }
        let handle = self.handle
        let blockFrames = self.blockFrames
        let got = buffer.samples.withUnsafeMutableBufferPointer { samples in
            sf_readf_float(handle, samples.baseAddress, sf_count_t(blockFrames))
        }
        if got <= 0 {
            let status = sf_error(handle)
            if status != 0 {
                // What libsndfile's decoders report mid-file (FLAC's "lost sync") is a cut or damaged file.
                let of = frameCount > 0 && frameCount < Int64.max ? " of \(frameCount)" : ""
                throw EarshotError(
                    .invalidInput,
                    "\(name): truncated or damaged \(containerName): read failed after \(position)\(of) frames "
                        + "(\(SndFile.lastError(handle))); expected a complete file")
            }
            // FLAC's STREAMINFO counts its samples exactly: a file cut at a frame boundary ends early.
            if statesExactLength, frameCount > 0, position < frameCount {
                throw EarshotError(
                    .invalidInput,
                    "\(name): truncated \(containerName): its header states \(frameCount) frames but the file ends "
                        + "after \(position); expected a complete file")
            }
            return nil
        }
        buffer.samples.removeLast((blockFrames - Int(got)) * channels)
        buffer.startFrame = position
        position += Int64(got)
        return buffer
    }
}
