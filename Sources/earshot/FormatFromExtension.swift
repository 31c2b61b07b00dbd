import ArgumentParser
import Foundation

/// An output format that a file's extension can name, as ffmpeg and sox choose theirs: `-o talk.srt`
/// writes SRT without `--format`, and a `--format` the extension contradicts is refused.
protocol FormatFromExtension: CaseIterable, RawRepresentable<String> {
    /// The extensions (lower case, without the dot) that name this format; none for a format no
    /// extension names on its own.
    var extensions: [String] { get }
}

extension FormatFromExtension {
    var extensions: [String] { [rawValue] }

    /// The format `output`'s extension names, if any (nil for standard output, `-`).
    static func named(by output: String?) -> Self? {
        guard let output, output != "-" else { return nil }
        let suffix = (output as NSString).pathExtension.lowercased()
        guard !suffix.isEmpty else { return nil }
        return allCases.first { $0.extensions.contains(suffix) }
    }

    /// `given`, else the format `output`'s extension names, else `fallback`.
    static func resolve(_ given: Self?, output: String?, default fallback: Self) -> Self {
        given ?? named(by: output) ?? fallback
    }

    /// Refuses a `--format` that `output`'s extension contradicts (a format no extension names, such
    /// as VAD's nemo lines in `x.json`, is never contradicted).
    static func check(_ given: Self?, output: String?) throws {
        guard let given, !given.extensions.isEmpty, let named = named(by: output), named != given else { return }
        throw ValidationError(
            "--format \(given.rawValue) contradicts -o \(output!), whose extension names \(named.rawValue): "
                + "drop --format or rename the output")
    }
}
