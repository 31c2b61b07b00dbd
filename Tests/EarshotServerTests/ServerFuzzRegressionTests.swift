import EarshotTesting
import EarshotTestTraits
import Testing

/// Replays the service parsers' fuzz seeds and saved findings (`Fuzz/corpus/<target>/`,
/// `Fuzz/regressions/<target>/`) through ``ServerFuzzEntry``: each must be read or refused the same
/// way whole and in pieces, never crash or hang.
@Suite(.waiting) struct ServerFuzzRegressionTests {
    static let targets = ["multipart", "xarg", "oauthform"]

    @Test(arguments: targets)
    func seedsArePresent(target: String) {
        #expect(FuzzInputs.files(target).contains { $0.hasPrefix("corpus/\(target)/") })
    }

    @Test(arguments: targets.flatMap(FuzzInputs.files))
    func replay(file: String) throws {
        let bytes = try FuzzInputs.bytes(file)
        switch file.split(separator: "/")[1] {
        case "multipart": try ServerFuzzEntry.multipart(bytes)
        case "xarg": try ServerFuzzEntry.extraArguments(bytes)
        case "oauthform": try ServerFuzzEntry.oauthForm(bytes)
        default: Issue.record("no entry for \(file)")
        }
    }
}
