import EarshotCore
import Foundation

/// The five LibriVox recordings Debian ships in `pocketsphinx-testdata` (sentences from *Sense and
/// Sensibility*, 16 kHz mono 16-bit WAV, 24.7 s in all), with their reference transcripts.
///
/// Recognizer tests score against these: PocketSphinx's own `pocketsphinx_continuous` reaches a word
/// error rate of 0.366 on them with the Debian en-us model.
public enum LibriVoxClips {
    /// Where `pocketsphinx-testdata` installs them.
    public static let directory = "/usr/share/pocketsphinx/test/data/librivox"

    /// One recording and what was said in it.
    public struct Clip: Sendable, Hashable {
        /// The utterance id, e.g. `sense_and_sensibility_01_austen_64kb-0880`.
        public var id: String
        /// The WAV file.
        public var path: String
        /// The reference words, lowercase, without the `<s>`/`</s>` markers.
        public var transcript: String
    }

    /// The clips listed in `directory/transcription`, in its order.
    ///
    /// Throws `.invalidInput` naming the Debian package when the directory, the transcription or a
    /// listed WAV file is missing, and naming the line when one is malformed.
    public static func load(from directory: String = directory) throws -> [Clip] {
        let transcription = directory + "/transcription"
        guard let text = try? String(contentsOfFile: transcription, encoding: .utf8) else {
            throw EarshotError(
                .invalidInput,
                "\(transcription): LibriVox test transcripts not found; "
                    + "install the Debian package pocketsphinx-testdata"
            )
        }
        var clips: [Clip] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            guard let clip = parse(line, directory: directory) else {
                throw EarshotError(
                    .invalidInput,
                    "\(transcription), line \(index + 1): expected \"<s> words </s> (id)\", found \"\(line)\"")
            }
            guard FileManager.default.isReadableFile(atPath: clip.path) else {
                throw EarshotError(
                    .invalidInput,
                    "\(clip.path): LibriVox test recording not found; install the Debian package pocketsphinx-testdata")
            }
            clips.append(clip)
        }
        return clips
    }

    /// Parses `<s> he was not an ill disposed young man </s> (sense_and_sensibility_01_austen_64kb-0880)`.
    private static func parse(_ line: Substring, directory: String) -> Clip? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") else { return nil }
        let id = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        guard !id.isEmpty, !id.contains("/") else { return nil }
        let words = trimmed[..<open].split(separator: " ").filter { $0 != "<s>" && $0 != "</s>" }
        return Clip(id: id, path: directory + "/" + id + ".wav", transcript: words.joined(separator: " "))
    }
}
