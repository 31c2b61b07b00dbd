import Foundation

/// How a command line names the standard streams. (The checks made on an input path before any C
/// library sees it are ``InputFile``'s.)
public enum InputPath {
    /// The path that means standard input (or standard output, for outputs).
    public static let standardStream = "-"

    /// How outputs call an input: its path, or `stdin` for standard input.
    public static func displayName(_ path: String) -> String { path == standardStream ? "stdin" : path }

    /// What a recording is called in files written per input and in RTTM, Kaldi and corpus ids: its
    /// file name without directory and extension (`stdin` for standard input).
    public static func stem(_ path: String) -> String {
        ((displayName(path) as NSString).lastPathComponent as NSString).deletingPathExtension
    }
}
