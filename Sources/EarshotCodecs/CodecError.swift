public import EarshotCore

extension EarshotError {
    /// A malformed encoded stream: names the stream, the byte offset and what was expected there.
    public static func malformedStream(_ name: String, at offset: Int, _ problem: String, expected: String)
        -> EarshotError
    {
        EarshotError(.invalidInput, "\(name): \(problem) at byte \(offset); expected \(expected)")
    }
}
