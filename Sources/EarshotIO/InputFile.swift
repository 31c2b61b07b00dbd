public import EarshotCodecs
import EarshotCore
import Foundation

/// An input path opened once: the descriptor that every later step reads — sniffing, the checks of
/// a file's structure, then the decoder (libsndfile or Earshot's own) — so the path is resolved a
/// single time and what is checked is what is decoded.
///
/// Whoever holds an `InputFile` owns its descriptor: it hands it to the source that reads it, or
/// calls ``close()``.
struct InputFile {
    /// What a regular file holds, found in one pass over a read-only map of its bytes.
    struct Contents {
        /// The format its first bytes name.
        var sniffed: CodecFormat?
        /// A WAV whose header states no length (written while recording).
        var streamingWAV: Bool
        /// The container its first bytes name, when it is one read through FFmpeg (nil for the
        /// formats above).
        var container: MediaContainer? = nil
    }

    /// The open descriptor.
    let descriptor: Int32
    /// The name used in messages (the path, or "stdin").
    let name: String
    /// A regular file, which can be mapped and seeked; otherwise a FIFO, socket or character device,
    /// read as a stream (as standard input is).
    let isRegular: Bool
    /// What an inspected regular file holds; nil for a stream, or when not asked for.
    let contents: Contents?

    /// Opens `path` for reading. Throws, naming it, unless it is a readable non-empty regular file,
    /// or a FIFO, socket or character device (`<(sox …)`, `/dev/stdin`). With `inspecting`, a regular
    /// file's structure is checked at once (see ``init(descriptor:name:inspecting:)``).
    static func open(_ path: String, name: String? = nil, inspecting: Bool = false) throws -> InputFile {
        let name = name ?? path
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == EACCES {
                throw EarshotError(.invalidInput, "\(name): cannot read (\(OutputFile.systemError()))")
            }
            throw EarshotError(
                .invalidInput, "\(name): cannot open (\(OutputFile.systemError())); expected an audio file")
        }
        return try InputFile(descriptor: descriptor, name: name, inspecting: inspecting)
    }

    /// Takes `descriptor`, open for reading (a spooled standard input), and checks it as
    /// ``open(_:name:inspecting:)`` does a path; closes it if it throws.
    ///
    /// With `inspecting`, a regular file is read once through a read-only map of its bytes for its
    /// ``contents``, and refused, naming it, if its WAV chunks, MP3 frames or Ogg pages run past its
    /// end (``WAVHeaderCheck``, ``MP3FrameCheck``, ``OggPageCheck``): a truncated file is refused
    /// rather than decoded as if complete.
    init(descriptor: Int32, name: String, inspecting: Bool = false) throws {
        do {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                throw EarshotError(.invalidInput, "\(name): cannot open (\(OutputFile.systemError()))")
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                throw EarshotError(.invalidInput, "\(name): is a directory; expected an audio file")
            case S_IFREG where status.st_size == 0:
                throw EarshotError(.invalidInput, "\(name): is empty (0 bytes); expected audio")
            default:
                break
            }
            isRegular = status.st_mode & S_IFMT == S_IFREG
            contents =
                isRegular && inspecting
                ? try Self.inspect(descriptor, size: Int(status.st_size), name: name) : nil
        } catch {
            Foundation.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.name = name
    }

    /// Closes the descriptor (when no source took it).
    func close() { Foundation.close(descriptor) }

    private static func inspect(_ descriptor: Int32, size: Int, name: String) throws -> Contents {
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), map != MAP_FAILED else {
            throw EarshotError(.invalidInput, "\(name): cannot read (\(OutputFile.systemError()))")
        }
        defer { munmap(map, size) }
        let bytes = UnsafeRawBufferPointer(start: map, count: size)
        let streamingWAV = try WAVHeaderCheck.validate(bytes, name: name)
        try MP3FrameCheck.validate(bytes, name: name)
        try OggPageCheck.validate(bytes, name: name)
        // Header-byte Speex (what `earshot encode --format speex-wb` writes) has no header: its frames
        // are read, after every format that has one.
        if let sniffed = CodecFormat.sniff(bytes.prefix(512)) {
            return Contents(sniffed: sniffed, streamingWAV: streamingWAV)
        }
        if let container = MediaContainer.sniff(bytes.prefix(16)) {
            return Contents(sniffed: nil, streamingWAV: false, container: container)
        }
        return Contents(sniffed: CodecFormat.sniffHeaderByteSpeex(bytes.prefix(4096)), streamingWAV: streamingWAV)
    }
}
