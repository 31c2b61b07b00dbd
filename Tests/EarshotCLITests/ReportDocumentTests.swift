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
private let utterance = synthetic + "/audio/syn-015.wav"

private func json(_ result: ExternalTool.Result) throws -> [String: Any] {
    #expect(result.status == 0, "\(result.standardError)")
    return try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
}

/// The JSON reports' shared conventions: typed effective parameters (schema_version 2), and levels
/// present as null for digital silence.
@Suite(.computing) struct ReportDocumentTests {
    /// Numbers are JSON numbers and flags JSON booleans, in every report that records parameters.
    @Test(arguments: [
        ["vad", "--detector", "spectral", "--format", "json", utterance],
        ["endpoint", "--detector", "spectral", "--format", "json", utterance],
        ["eval", "--detector", "spectral", "--format", "json", synthetic],
        ["sweep", synthetic, "--detector", "spectral", "--grid", "endingSilence=0.5,1", "--format", "json"],
    ])
    func parametersAreTyped(arguments: [String]) throws {
        let document = try json(try ExternalTool.run([ExternalTool.earshotPath] + arguments))
        #expect(document["schema_version"] as? Int == 2)
        let parameters = try #require(document["parameters"] as? [String: Any])
        // JSONSerialization gives NSNumber for numbers and booleans alike; the JSON text tells them apart.
        let text = String(decoding: try JSONSerialization.data(withJSONObject: parameters), as: UTF8.self)
        #expect(text.contains("\"onsetThreshold\":0.5"), "\(text)")
        #expect(text.contains("\"offsetThreshold\":0.35"), "\(text)")
        #expect(text.contains("\"minSpeechDuration\":0.25"), "\(text)")
        if arguments[0] != "vad" {
            #expect(text.contains("\"cancelWhenSilent\":true"), "\(text)")
            #expect(text.contains("\"maxInitialSilence\":1.5"), "\(text)")
        }
        #expect(!parameters.values.contains { ($0 as? String).map { Double($0) != nil || $0 == "true" } == true })
    }

    @Test func anInfiniteLimitIsTheStringInf() throws {
        let document = try json(
            try earshot(
                "endpoint", "--detector", "spectral", "--maxInitialSilence", "inf", "--format", "json", utterance))
        #expect((document["parameters"] as? [String: Any])?["maxInitialSilence"] as? String == "inf")
    }

    /// Digital silence is −∞ dBFS: `peak_dbfs` and `rms_dbfs` are there, as null, in info and level.
    @Test func digitalSilenceHasNullLevels() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let silent = directory.file("silent.wav")
        // -D: no dither, so every sample is 0.
        let sox = try ExternalTool.run([
            "sox", "-D", "-n", "-r", "16000", "-b", "16", "-c", "1", silent, "trim", "0", "0.3",
        ])
        try #require(sox.status == 0)

        let info = try json(try earshot("info", "--format", "json", silent))
        #expect(info["schema_version"] as? Int == 1)
        #expect(info.keys.contains("peak_dbfs") && info["peak_dbfs"] is NSNull)
        #expect(info.keys.contains("rms_dbfs") && info["rms_dbfs"] is NSNull)

        let level = try json(try earshot("level", "--format", "json", silent))
        let windows = try #require(level["levels"] as? [[String: Any]])
        #expect(windows.count == 3)
        #expect(windows.allSatisfy { $0["peak_dbfs"] is NSNull && $0["rms_dbfs"] is NSNull })
        #expect(try earshot("info", silent).output.contains("peak:        -inf dBFS"))
    }
}
