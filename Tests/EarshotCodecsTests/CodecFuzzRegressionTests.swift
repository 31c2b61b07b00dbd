import EarshotTesting
import EarshotTestTraits
import Testing

/// Replays the codec fuzz targets' seeds and saved findings (`Fuzz/corpus/<target>/`,
/// `Fuzz/regressions/<target>/`) through ``CodecFuzzEntry``: each must decode, or be refused with an
/// `EarshotError`, the same way whole and in pieces, never crash or hang.
@Suite(.computing) struct CodecFuzzRegressionTests {
    static let targets = ["wav", "amr", "speex", "ogg"]

    @Test(arguments: targets)
    func seedsArePresent(target: String) {
        #expect(FuzzInputs.files(target).contains { $0.hasPrefix("corpus/\(target)/") })
    }

    @Test(arguments: targets.flatMap(FuzzInputs.files))
    func replay(file: String) throws {
        let bytes = try FuzzInputs.bytes(file)
        switch file.split(separator: "/")[1] {
        case "wav": try CodecFuzzEntry.wav(bytes)
        case "amr": try CodecFuzzEntry.amr(bytes)
        case "speex": try CodecFuzzEntry.speex(bytes)
        case "ogg": try CodecFuzzEntry.ogg(bytes)
        default: Issue.record("no entry for \(file)")
        }
    }
}
