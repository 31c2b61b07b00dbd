public import EarshotCodecs
public import EarshotCore
import Foundation

/// A ``MediaContainer`` (MP4/M4A, WebM, ADTS AAC, MP3) as an ``AudioDecoder`` fed a request body as it
/// arrives: the bytes are spooled to an unlinked temporary file, and decoded with ``MediaFileSource``
/// when the body ends.
///
/// An MP4 may hold its index after its audio, so nothing can be decoded before the end; the audio
/// comes out of ``finish(into:)``, in blocks, and stops once it runs past `maxDuration` seconds (the
/// caller's own limit then refuses it), so memory stays bounded whatever the file holds. Disk use
/// equals the body's size, which the caller bounds.
public final class MediaSpoolDecoder: AudioDecoder {
    public let container: MediaContainer
    /// The name used in messages.
    public let name: String
    public private(set) var outputFormat: AudioFormat?
    /// Bytes spooled so far.
    public private(set) var spooledBytes = 0
    private let maxDuration: Double
    private var spool: Int32

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

    public func finish(into output: inout StageOutput<AudioBuffer>) throws {
        guard spool >= 0 else { return }
        let descriptor = spool
        spool = -1  // the source takes it
        guard spooledBytes > 0 else {
            close(descriptor)
            throw EarshotError(.invalidInput, "\(name): is empty (0 bytes); expected audio")
        }
        let source = try MediaFileSource(
            file: InputFile(descriptor: descriptor, name: name), container: container, blockFrames: 16_384)
        outputFormat = source.format
        let limitFrames = maxDuration * Double(source.format.sampleRate)
        let limit = limitFrames < 1e15 ? Int64(max(limitFrames, 0)) : Int64.max
        var frames: Int64 = 0
        while frames <= limit, let buffer = try source.read() {
            frames += Int64(buffer.frameCount)
            output.emit(buffer)
        }
    }
}
