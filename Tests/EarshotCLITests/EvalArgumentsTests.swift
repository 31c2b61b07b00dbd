import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

private func earshot(_ arguments: String...) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments)
}

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let synthetic = repository.appendingPathComponent("corpora/synthetic/sample").path

private func json(_ result: ExternalTool.Result) throws -> [String: Any] {
    #expect(result.status == 0, "\(result.standardError)")
    return try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
}

/// `eval --detector` takes values up to the next option; the corpus may come before or after them.
@Suite(.computing) struct EvalArgumentsTests {
    @Test func evalTakesTheCorpusBeforeOrAfterTheDetectors() throws {
        let after = try json(try earshot("eval", "--format", "json", "--detector", "spectral", "energy", synthetic))
        let before = try json(try earshot("eval", synthetic, "--format", "json", "--detector", "spectral", "energy"))
        let names = { (document: [String: Any]) in
            (document["detectors"] as? [[String: Any]])?.compactMap { $0["detector"] as? String }
        }
        #expect(names(after) == ["spectral", "energy"])
        #expect(names(before) == ["spectral", "energy"])
        #expect(after["corpus"] as? String == synthetic)

        let unknown = try earshot("eval", "--detector", "spectral", "webrtc", synthetic)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("unknown detector 'webrtc'"), "\(unknown.standardError)")
        let missing = try earshot("eval", "--detector", "spectral")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("<corpus>"), "\(missing.standardError)")
    }
}
