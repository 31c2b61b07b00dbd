/// How a command line names the standard streams. (The checks made on an input path before any C
/// library sees it are ``InputFile``'s.)
public enum InputPath {
    /// The path that means standard input (or standard output, for outputs).
    public static let standardStream = "-"
}
