import EarshotCore
import Foundation

/// Checks made on an input path before any C library sees it, so that every failure gets one clear
/// message naming the file and what was expected.
public enum InputPath {
    /// The path that means standard input (or standard output, for outputs).
    public static let standardStream = "-"

    /// Throws unless `path` is an existing, readable, non-empty regular file (or a pipe or device).
    public static func checkReadableFile(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw EarshotError(
                .invalidInput, "\(path): cannot open (\(OutputFile.systemError())); expected an audio file")
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw EarshotError(.invalidInput, "\(path): is a directory; expected an audio file")
        case S_IFREG:
            guard status.st_size > 0 else {
                throw EarshotError(.invalidInput, "\(path): is empty (0 bytes); expected audio")
            }
        default:
            break  // FIFOs and character devices (e.g. /dev/stdin) are read as streams
        }
        guard access(path, R_OK) == 0 else {
            throw EarshotError(.invalidInput, "\(path): cannot read (\(OutputFile.systemError()))")
        }
    }
}
