/// What a fuzz entry throws when an input breaks a parser's contract without crashing it: a result
/// that depends on how the input was cut into pieces, or an error of a kind the parser must not throw.
/// The fuzz targets trap on it (so libFuzzer saves the input); the regression tests fail on it.
public struct FuzzFinding: Error, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
