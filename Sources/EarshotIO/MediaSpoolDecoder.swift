public import EarshotCodecs
public import EarshotCore
import Foundation

/// A ``MediaContainer`` (MP4/M4A, WebM, ADTS AAC, MP3, Ogg Vorbis) as an ``AudioDecoder`` fed a
/// request body as it arrives: the bytes are spooled to an unlinked temporary file, and decoded with
/// ``MediaFileSource`` when the body ends.
///
/// An MP4 may hold its index after its audio, so nothing can be decoded before the end. Then the
/// audio comes out one block at a time, from ``decodeNextBlock(into:)``: a caller that takes each
/// block through the rest of its chain (down-mix, resampling, recognition) before asking for the
/// next holds one block, at most ``maxBlockSamples`` samples whatever the file's rate, channel count
/// and length. ``finish(into:)`` emits every block not yet taken at once, so it holds the whole
/// file's audio at its own rate and channel count. Decoding stops once the audio runs past
/// `maxDuration` seconds (the caller's own limit then refuses it). Disk use equals the body's size,
/// which the caller bounds.
public final class MediaSpoolDecoder: AudioDecoder {
    /// Samples (all channels counted) in one decoded block: 256 KiB of Float32, whether the file has
    /// one channel at 8 kHz or 64 at 192 kHz.
    public static var maxBlockSamples: Int { 65_536 }

    public let container: MediaContainer
    /// The name used in messages.
    public let name: String
    public private(set) var outputFormat: AudioFormat?
    /// Bytes spooled so far.
    public private(set) var spooledBytes = 0
    private let maxDuration: Double
    /// The body's spool until it ends, then -1 (the source has it).
    private var spool: Int32
    /// The spool being decoded, until its audio ends (or passes `maxDuration`).
    private var source: MediaFileSource?
    private var decodedFrames: Int64 = 0
    private var limitFrames: Int64 = .max

    /// Spools to a fresh unlinked file in the temporary folder. Throws if it cannot be made.
    public init(container: MediaContainer, name: String, maxDuration: Double) throws {
        self.container = container
        self.name = name
        self.maxDuration = maxDuration
        let (spool, path) = try OutputFile.makeTemporary(
            template: FileManager.default.temporaryDirectory.path + "/earshot-upload-XXXXXX", naming: name)
        unlink(path)  // the descriptor keeps the data alive
        TemporaryFiles.unregister(path)
        self.spool = spool
    }

    deinit {
        if spool >= 0 { close(spool) }
    }

    public func process(_ input: [UInt8], into output: inout StageOutput<AudioBuffer>) throws {
        guard spool >= 0 else { throw EarshotError(.invalidInput, "\(name): audio after the end of the stream") }
        guard input.withUnsafeBytes({ OutputFile.writeAll($0, to: spool) }) else {
            throw EarshotError(.writeFailed, "\(name): cannot spool to a temporary file (\(OutputFile.systemError()))")
        }
        spooledBytes += input.count
    }

    /// Ends the body (at the first call) and emits its next decoded block; returns false, emitting
    /// nothing, once the audio has ended or run past `maxDuration`. Throws as ``MediaFileSource``
    /// does for a body that is empty, not the container, damaged or cut short.
    public func decodeNextBlock(into output: inout StageOutput<AudioBuffer>) throws -> Bool {
        if spool >= 0 { try openSource() }
        guard let source else { return false }
        guard decodedFrames <= limitFrames, let block = try source.read() else {
            self.source = nil  // frees FFmpeg's state and the spool now, not when the request ends
            return false
        }
        decodedFrames += Int64(block.frameCount)
        output.emit(block)
        return true
    }

    /// Emits every block ``decodeNextBlock(into:)`` has not: the rest of the audio at once.
    public func finish(into output: inout StageOutput<AudioBuffer>) throws {
        while try decodeNextBlock(into: &output) {}
    }

    private func openSource() throws {
        let descriptor = spool
        spool = -1  // the source takes it
        guard spooledBytes > 0 else {
            close(descriptor)
            throw EarshotError(.invalidInput, "\(name): is empty (0 bytes); expected audio")
        }
        let source = try MediaFileSource(
            file: InputFile(descriptor: descriptor, name: name), container: container, blockFrames: 16_384,
            maxBlockSamples: Self.maxBlockSamples)
        outputFormat = source.format
        let limitFrames = maxDuration * Double(source.format.sampleRate)
        self.limitFrames = limitFrames < 1e15 ? Int64(max(limitFrames, 0)) : .max
        self.source = source
    }
}
