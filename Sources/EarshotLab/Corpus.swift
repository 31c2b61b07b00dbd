import EarshotCore
import EarshotIO
import Foundation

/// A labelled corpus: a folder of audio files and its `manifest.jsonl` (see ``CorpusEntry``).
public struct Corpus: Sendable, Equatable {
    /// The manifest's file name inside the corpus folder.
    public static let manifestName = "manifest.jsonl"

    /// The corpus folder; entry paths are relative to it.
    public var directory: String
    /// The entries, in manifest order.
    public var entries: [CorpusEntry]

    public init(directory: String, entries: [CorpusEntry]) {
        self.directory = directory
        self.entries = entries
    }

    /// How far `duration_s` may be from the audio's real length: one 10 ms cell of the metrics grid.
    public static let durationTolerance = 0.01

    /// The manifest's path.
    public var manifestPath: String { directory + "/" + Self.manifestName }

    /// The absolute (or working-directory-relative) path of an entry's audio.
    public func audioPath(of entry: CorpusEntry) -> String { directory + "/" + entry.path }

    /// Every file a run over the corpus reads: its manifest and its audio.
    public var inputPaths: [String] { [manifestPath] + entries.map(audioPath(of:)) }

    /// Reads and validates `directory/manifest.jsonl` (see ``ManifestReader`` for the checks), and
    /// checks every audio file it lists: that it exists, opens as audio, and is as long as its
    /// `duration_s` says (within ``durationTolerance``), so no label can lie past the end of the audio.
    /// Errors are `.invalidInput` and name the manifest, the line and the field.
    public static func load(directory: String) throws -> Corpus {
        let manifest = directory + "/" + manifestName
        guard let data = FileManager.default.contents(atPath: manifest) else {
            throw EarshotError(
                .invalidInput, "\(manifest): cannot read the corpus manifest (missing or unreadable)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw EarshotError(.invalidInput, "\(manifest): is not UTF-8 text")
        }
        let numbered = try ManifestReader.numberedEntries(from: text, name: manifest)
        for (line, entry) in numbered {
            let path = directory + "/" + entry.path
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ManifestReader.failure(manifest, line, "path", "audio file \(path) is missing")
            }
            let source: any AudioSource
            do {
                source = try AudioInput.open(path: path, raw: nil, codec: nil, blockFrames: 1)
            } catch let error as EarshotError {
                throw ManifestReader.failure(manifest, line, "path", error.message)
            }
            // Only containers with a length in their header can be checked without decoding.
            if let file = source as? AudioFileSource, abs(file.duration - entry.duration) > durationTolerance {
                throw ManifestReader.failure(
                    manifest, line, "duration_s",
                    "\(ManifestWriter.seconds(entry.duration)) s, but \(path) is \(ManifestWriter.seconds(file.duration)) s long"
                )
            }
        }
        return Corpus(directory: directory, entries: numbered.map(\.entry))
    }

    /// Writes the manifest atomically with ``ManifestWriter``.
    public func writeManifest() throws {
        try ManifestWriter.write(entries, to: manifestPath)
    }

    /// Total audio, in seconds.
    public var totalDuration: Double { entries.map(\.duration).reduce(0, +) }

    /// Total labelled speech, in seconds.
    public var totalSpeech: Double { entries.flatMap(\.speech).map(\.duration).reduce(0, +) }
}
