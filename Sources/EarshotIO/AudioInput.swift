import EarshotCore
import Foundation

/// Opens what a user names on the command line as an audio source.
///
/// - A path opens as a file whose format libsndfile sniffs from its header.
/// - With a raw spec, the path (or "-") is read as headerless PCM in that layout.
/// - "-" without a raw spec reads a headered stream from standard input. Containers such as FLAC
///   and Ogg need to seek while parsing, so standard input is first spooled to an unlinked temporary
///   file: memory stays constant, disk use equals the input's size.
public enum AudioInput {
    public static func open(path: String, raw: RawPCMFormat? = nil, blockFrames: Int = 4096) throws -> any AudioSource {
        if let raw {
            return try RawPCMSource(path: path, raw: raw, blockFrames: blockFrames)
        }
        if path == InputPath.standardStream {
            return try openStandardInput(blockFrames: blockFrames)
        }
        return try AudioFileSource(path: path, blockFrames: blockFrames)
    }

    private static func openStandardInput(blockFrames: Int) throws -> AudioFileSource {
        let (descriptor, spoolPath) = try AtomicFile.makeTemporary(
            template: FileManager.default.temporaryDirectory.path + "/earshot-stdin-XXXXXX", naming: "stdin")
        defer {
            close(descriptor)
            unlink(spoolPath)  // the open libsndfile handle keeps the data alive
        }
        let copied = try copyStandardInput(to: descriptor)
        guard copied > 0 else {
            throw EarshotError(
                .invalidInput,
                "stdin: is empty (0 bytes); expected audio (for headerless PCM give --rate, --channels and --encoding)")
        }
        return try AudioFileSource(openedPath: spoolPath, name: "stdin", blockFrames: blockFrames)
    }

    private static func copyStandardInput(to descriptor: Int32) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let got = chunk.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress!, $0.count) }
            if got == 0 { return total }
            if got < 0 {
                if errno == EINTR { continue }
                throw EarshotError(.invalidInput, "stdin: read failed (\(AtomicFile.systemError()))")
            }
            var written = 0
            while written < got {
                let n = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, got - written) }
                guard n > 0 else {
                    throw EarshotError(
                        .writeFailed, "stdin: cannot spool to a temporary file (\(AtomicFile.systemError()))")
                }
                written += n
            }
            total += got
        }
    }
}
