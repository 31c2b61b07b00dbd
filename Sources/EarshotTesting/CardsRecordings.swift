import EarshotCore
import Foundation

/// The five "cards" recordings Debian ships in `pocketsphinx-testdata` (a speaker reading playing
/// cards: "ten of clubs", "five five", …) and the SRGS grammar of their phrases kept in
/// `Examples/grammars/cards.grxml`: the test material for grammar-constrained recognition.
public enum CardsRecordings {
    public static let directory = "/usr/share/pocketsphinx/test/data/cards"

    /// The repository's SRGS rendering of the cards grammar.
    public static let grammarPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/grammars/cards.grxml").path

    public struct Recording: Sendable {
        public var id: String
        public var path: String
        public var transcript: String
    }

    /// The recordings with their transcripts, from `cards.transcription`.
    public static func load() throws -> [Recording] {
        let listing = "\(directory)/cards.transcription"
        guard let text = try? String(contentsOfFile: listing, encoding: .utf8) else {
            throw EarshotError(
                .invalidInput, "\(listing): cards test transcripts not found; install the Debian package pocketsphinx-testdata")
        }
        return text.split(separator: "\n").compactMap { line in
            // "<s> ten of clubs  </s> (001)"
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
            let id = String(line[line.index(after: open)..<close])
            let words = line[..<open].split(separator: " ").filter { $0 != "<s>" && $0 != "</s>" }
            return Recording(id: id, path: "\(directory)/\(id).wav", transcript: words.joined(separator: " "))
        }
    }

    /// The grammar file's bytes.
    public static func grammar() throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: grammarPath) else {
            throw EarshotError(.invalidInput, "\(grammarPath): the cards grammar is missing from the repository")
        }
        return [UInt8](data)
    }
}
