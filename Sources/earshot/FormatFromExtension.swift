import ArgumentParser
import Foundation
import Synchronization

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

    /// `given`, else the format `output`'s extension names, else `fallback`. A format the config file
    /// or environment set loses to the extension (only the command line's contradicts it).
    static func resolve(_ given: Self?, output: String?, default fallback: Self) -> Self {
        commandLine(given, output: output) ?? named(by: output) ?? fallback
    }

    /// `given`, unless it came from the settings (``Settings``) and `output`'s extension names a format.
    private static func commandLine(_ given: Self?, output: String?) -> Self? {
        guard named(by: output) != nil, Settings.injected.withLock({ $0.contains { $0.key == "format" } }) else {
            return given
        }
        return nil
    }

    /// Refuses a `--format` that `output`'s extension contradicts (a format no extension names, such
    /// as VAD's nemo lines in `x.json`, is never contradicted).
    static func check(_ given: Self?, output: String?) throws {
        guard let given = commandLine(given, output: output), !given.extensions.isEmpty, let named = named(by: output),
            named != given
        else { return }
        throw ValidationError(
            "--format \(given.rawValue) contradicts -o \(output!), whose extension names \(named.rawValue): "
                + "drop --format or rename the output")
    }
}
