import EarshotCore
import Foundation

/// `--credentials FILE` of the service options: one `APP_KEY:SECRET` line in a file only its owner may
/// read or write, so the config file can name the credentials without holding them.
enum ClientCredentialsFile {
    static func read(_ path: String) throws -> (appKey: String, secret: String) {
        var status = stat()
        guard stat(path, &status) == 0, let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the credentials file")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw EarshotError(
                .invalidInput,
                "\(path): the credentials file may be read or written by other users (mode "
                    + "\(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard lines.count == 1, let colon = lines[0].firstIndex(of: ":"), colon != lines[0].startIndex,
            lines[0].index(after: colon) != lines[0].endIndex
        else {
            throw EarshotError(
                .invalidInput,
                "\(path): expected one line APP_KEY:SECRET (the secret is not shown), found \(lines.count) lines")
        }
        return (String(lines[0][..<colon]), String(lines[0][lines[0].index(after: colon)...]))
    }
}
