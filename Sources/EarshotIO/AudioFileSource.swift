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
    /// Whether `frameCount` is exact rather than an estimate (FLAC), so a shorter read is a truncation.
    private let statesExactLength: Bool
    private var buffer: AudioBuffer
    private var position: Int64 = 0

    /// Opens `path` for reading; `name` replaces the path in messages.
    public convenience init(path: String, blockFrames: Int = 4096) throws {
        try InputPath.checkReadableFile(path)
        try WAVHeaderCheck.validate(path: path, name: path)
        try MP3FrameCheck.validate(path: path, name: path)
        try OggPageCheck.validate(path: path, name: path)
        try self.init(openedPath: path, name: path, blockFrames: blockFrames)
    }

    /// Opens a path whose checks (``InputPath``, ``WAVHeaderCheck``, ``MP3FrameCheck``, ``OggPageCheck``) the caller has already made.
    init(openedPath path: String, name: String, blockFrames: Int) throws {
        precondition(blockFrames > 0, "blockFrames must be positive")
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw EarshotError(
                .invalidInput,
                "\(name): not a readable audio file (\(SndFile.lastError(nil))); expected WAV, FLAC, Ogg, AIFF or another libsndfile format, or raw PCM with --rate, --channels and --encoding"
            )
        }
        do {
            format = try AudioFormat(sampleRate: Int(info.samplerate), channelCount: Int(info.channels), origin: name)
            guard info.frames >= 0 else {
                throw EarshotError(.invalidInput, "\(name): header states a negative length (\(info.frames) frames)")
            }
        } catch {
            sf_close(handle)
            throw error
        }
        self.handle = handle
        self.name = name
        self.blockFrames = blockFrames
        frameCount = info.frames
        statesExactLength = info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC)
        containerName = SndFile.formatName(info.format & Int32(SF_FORMAT_TYPEMASK))
        encodingName = SndFile.formatName(info.format & Int32(SF_FORMAT_SUBMASK))
        buffer = AudioBuffer(format: format, samples: [Float](repeating: 0, count: blockFrames * format.channelCount))
    }

    deinit { sf_close(handle) }

    /// Duration in seconds according to the header.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

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
