import EarshotTesting
import Testing

/// Replays the service parsers' fuzz seeds and saved findings (`Fuzz/corpus/<target>/`,
/// `Fuzz/regressions/<target>/`) through ``ServerFuzzEntry``: each must be read or refused the same
/// way whole and in pieces, never crash or hang.
@Suite struct ServerFuzzRegressionTests {
    static let targets: [(String, ([UInt8]) throws -> Void)] = [
        ("multipart", ServerFuzzEntry.multipart), ("xarg", ServerFuzzEntry.extraArguments),
        ("oauthform", ServerFuzzEntry.oauthForm),
    ]

    @Test(arguments: ["multipart", "xarg", "oauthform"])
    func seedsArePresent(target: String) {
        #expect(FuzzInputs.files(target).contains { $0.hasPrefix("corpus/\(target)/") })
    }

    @Test(arguments: targets.flatMap { target, _ in FuzzInputs.files(target) })
    func replay(file: String) throws {
        let target = file.split(separator: "/")[1]
        let entry = try #require(Self.targets.first { $0.0 == target }?.1)
        try entry(try FuzzInputs.bytes(file))
    }
}
