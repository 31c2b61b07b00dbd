import EarshotCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files that hold an operator's secrets for `earshot serve` — `--credentials`, `--api-keys` and
/// `--token-key` — all read one way, so a key or secret is exactly the characters the operator meant
/// and no other user could have read it or put one there.
///
/// **Permissions.** Refused, naming the file and its mode, unless only its owner may read or write it
/// (no group or other bits: `chmod 600`, or 400). A symbolic link is judged by the file it points to.
///
/// **Syntax**, the same for every text form (credentials, API keys, a hex token key):
/// - a line ends with a line feed or a carriage return and line feed (the last line may have neither);
/// - an empty line, or one of only spaces and tabs, is skipped;
/// - a line whose first character is `#` is a comment. `#` anywhere else is an ordinary character (it
///   may be part of a secret): there are no comments at the end of an entry;
/// - every other line is an entry, of printable ASCII only (`!` to `~`, and the single spaces a format
///   separates its fields with), with nothing before or after it: no leading or trailing space, no tab,
///   no control character, no byte outside ASCII, no byte-order mark.
///
/// Anything else is refused with an error naming the file, the line and what was expected, never
/// quoting the line: it may hold a secret.
enum SecretsFile {
    /// An entry: its 1-based line number and its text (printable ASCII, neither starting nor ending
    /// with a space).
    struct Line: Equatable {
        var number: Int
        var text: String
    }

    /// The file's entries, comments and blank lines skipped, or an error naming `origin` and the line.
    static func lines(of bytes: [UInt8], origin: String) throws -> [Line] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw EarshotError(
                .invalidInput, "\(origin), line 1: the file starts with a byte-order mark; expected plain ASCII text")
        }
        var entries: [Line] = []
        var number = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            number += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var line = bytes[start..<end]
            start = end == bytes.endIndex ? end : end + 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.first == UInt8(ascii: "#") || line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let place = "\(origin), line \(number)"
            if let bad = line.firstIndex(where: { !(0x20...0x7E).contains($0) }) {
                let found =
                    switch line[bad] {
                    case 0x09: "a tab"
                    case 0x0D: "a carriage return without a line feed after it"
                    case 0x00..<0x20, 0x7F: "a control character"
                    default: "a byte outside ASCII"
                    }
                throw EarshotError(
                    .invalidInput,
                    "\(place), column \(bad - line.startIndex + 1): \(found); expected printable ASCII, each line "
                        + "ending with a line feed (or a carriage return and line feed)")
            }
            guard line.first != 0x20, line.last != 0x20 else {
                throw EarshotError(
                    .invalidInput,
                    "\(place): a space before or after the entry; expected nothing around it (a comment is a line "
                        + "of its own, starting with #)")
            }
            entries.append(Line(number: number, text: String(decoding: line, as: UTF8.self)))
        }
        return entries
    }

    /// Larger files are refused before they are read whole: a secrets file is a few kilobytes.
    static let maximumSize = 1 << 20

    /// The bytes of the file at `path` once its permissions are checked (see the type's documentation);
    /// `what` names it in errors ("the credentials file").
    static func read(_ path: String, what: String) throws -> [UInt8] {
        // The mode is read from the descriptor the bytes then come from, so it is the same file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw cannotRead(path, what) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw cannotRead(path, what) }
        let mode = Int(status.st_mode) & 0o777
        guard mode & 0o077 == 0 else {
            let octal = String(mode, radix: 8)
            throw EarshotError(
                .invalidInput,
                "\(path): \(what) may be read or written by other users (mode "
                    + "\(String(repeating: "0", count: max(0, 3 - octal.count)) + octal)); chmod 600 it")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw cannotRead(path, what)
            }
            if count == 0 { break }
            bytes += buffer[..<count]
            guard bytes.count <= maximumSize else {
                throw EarshotError(.invalidInput, "\(path): \(what) is larger than 1 MiB; is this the right file?")
            }
        }
        return bytes
    }

    private static func cannotRead(_ path: String, _ what: String) -> EarshotError {
        EarshotError(.invalidInput, "\(path): cannot read \(what): \(String(cString: strerror(errno)).lowercased())")
    }
}
