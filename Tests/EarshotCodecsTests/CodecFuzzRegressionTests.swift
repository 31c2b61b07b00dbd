import EarshotTesting
import Testing

/// Replays the codec fuzz targets' seeds and saved findings (`Fuzz/corpus/<target>/`,
/// `Fuzz/regressions/<target>/`) through ``CodecFuzzEntry``: each must decode, or be refused with an
/// `EarshotError`, the same way whole and in pieces, never crash or hang.
@Suite struct CodecFuzzRegressionTests {
    static let targets: [(String, ([UInt8]) throws -> Void)] = [
        ("wav", CodecFuzzEntry.wav), ("amr", CodecFuzzEntry.amr), ("speex", CodecFuzzEntry.speex),
        ("ogg", CodecFuzzEntry.ogg),
    ]

    @Test(arguments: ["wav", "amr", "speex", "ogg"])
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
