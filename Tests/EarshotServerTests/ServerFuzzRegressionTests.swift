import EarshotTestTraits
import EarshotTesting
import Testing

@testable import EarshotServer

/// Replays the service parsers' fuzz seeds and saved findings (`Fuzz/corpus/<target>/`,
/// `Fuzz/regressions/<target>/`) through ``ServerFuzzEntry``: each must be read or refused the same
/// way whole and in pieces, never crash or hang.
@Suite(.waiting) struct ServerFuzzRegressionTests {
    static let targets = ["multipart", "xarg", "oauthform", "secrets", "token"]

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
        case "secrets": try SecretsFuzzEntry.secretsFile(bytes)
        case "token": try SecretsFuzzEntry.signedToken(bytes)
        default: Issue.record("no entry for \(file)")
        }
    }

    /// The token seeds are a token signed with the target's key and the same with its signature's
    /// spare bits changed: the first verifies, the second must not.
    @Test func theTokenSeedsAreOneTokenAndOneRespelling() throws {
        let valid = String(decoding: try FuzzInputs.bytes("corpus/token/valid.txt"), as: UTF8.self)
        let respelt = String(decoding: try FuzzInputs.bytes("corpus/token/respelt.txt"), as: UTF8.self)
        #expect(SignedToken(decoding: valid, with: SecretsFuzzEntry.key)?.clientID == "app1")
        #expect(SignedToken(decoding: respelt, with: SecretsFuzzEntry.key) == nil)
    }
}
