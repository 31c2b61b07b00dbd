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
    /// The open descriptor.
    let descriptor: Int32
    /// The name used in messages (the path, or "stdin").
    let name: String
    /// A regular file, which can be mapped and seeked; otherwise a FIFO, socket or character device,
    /// read as a stream (as standard input is).
    let isRegular: Bool
    /// The size of a regular file.
    let size: Int

    /// Opens `path` for reading. Throws, naming it, unless it is a readable non-empty regular file,
    /// or a FIFO, socket or character device (`<(sox …)`, `/dev/stdin`).
    static func open(_ path: String, name: String? = nil) throws -> InputFile {
        let name = name ?? path
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == EACCES {
                throw EarshotError(.invalidInput, "\(name): cannot read (\(OutputFile.systemError()))")
            }
            throw EarshotError(
                .invalidInput, "\(name): cannot open (\(OutputFile.systemError())); expected an audio file")
        }
        return try InputFile(descriptor: descriptor, name: name)
    }

    /// Takes `descriptor`, open for reading (a spooled standard input), and checks it as ``open(_:name:)``
    /// does a path; closes it if it throws.
    init(descriptor: Int32, name: String) throws {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = EarshotError(.invalidInput, "\(name): cannot open (\(OutputFile.systemError()))")
            Foundation.close(descriptor)
            throw error
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            Foundation.close(descriptor)
            throw EarshotError(.invalidInput, "\(name): is a directory; expected an audio file")
        case S_IFREG where status.st_size == 0:
            Foundation.close(descriptor)
            throw EarshotError(.invalidInput, "\(name): is empty (0 bytes); expected audio")
        default:
            break
        }
        self.descriptor = descriptor
        self.name = name
        isRegular = status.st_mode & S_IFMT == S_IFREG
        size = Int(status.st_size)
    }

    /// Closes the descriptor (when no source took it).
    func close() { Foundation.close(descriptor) }

    /// What a regular file holds, found in one pass over a read-only map of its bytes: the format its
    /// first bytes name, and whether it is a WAV whose header states no length (written while
    /// recording). Throws, naming the file, if its WAV chunks, MP3 frames or Ogg pages run past its
    /// end (``WAVHeaderCheck``, ``MP3FrameCheck``, ``OggPageCheck``): a truncated file is refused rather
    /// than decoded as if complete.
    func inspect() throws -> (sniffed: CodecFormat?, streamingWAV: Bool) {
        precondition(isRegular, "only a regular file is mapped")
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), map != MAP_FAILED else {
            throw EarshotError(.invalidInput, "\(name): cannot read (\(OutputFile.systemError()))")
        }
        defer { munmap(map, size) }
        let bytes = UnsafeRawBufferPointer(start: map, count: size)
        let streamingWAV = try WAVHeaderCheck.validate(bytes, name: name)
        try MP3FrameCheck.validate(bytes, name: name)
        try OggPageCheck.validate(bytes, name: name)
        return (CodecFormat.sniff(Array(bytes.prefix(512))), streamingWAV)
    }
}
