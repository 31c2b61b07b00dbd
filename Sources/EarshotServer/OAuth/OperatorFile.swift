import EarshotCore
import Foundation

/// The small text files an operator writes for `earshot serve` (credentials, API keys): one entry
/// per line, blank lines and lines starting with `#` skipped.
enum OperatorFile {
    /// The file's entries, trimmed, with their 1-based line numbers.
    static func lines(of text: String) -> [(number: Int, text: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : (index + 1, trimmed)
        }
    }

    /// The text of the file at `path`; `what` names it in the error ("the credentials file").
    static func read(_ path: String, what: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw EarshotError(.invalidInput, "\(path): cannot read \(what)")
        }
        return text
    }
}
