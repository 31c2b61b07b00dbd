import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

private func earshot(_ arguments: String..., stdin: Data? = nil) throws -> ExternalTool.Result {
    try earshot(arguments, stdin: stdin)
}

private func earshot(_ arguments: [String], stdin: Data? = nil) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments, standardInput: stdin)
}

/// The committed sample corpora (two files each), so these tests need no corpus build.
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let synthetic = repository.appendingPathComponent("corpora/synthetic/sample").path
private let noisy = repository.appendingPathComponent("corpora/noisy/sample").path
private let utterance = synthetic + "/audio/syn-015.wav"

@Suite(.computing) struct VADCommandTests {
    @Test func csvSegmentsWithThreeDecimals() throws {
        let result = try earshot("vad", utterance)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "start,end")
        #expect(lines.count >= 3, "the sample has pauses: several segments")
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",")
            #expect(fields.count == 2 && fields.allSatisfy { $0.split(separator: ".").last?.count == 3 })
        }
    }

    /// vad reports speech (profile speech: no hangover); --profile cutting gives the segments the
    /// cutting commands use, ending later; single flags still change a profile's value.
    @Test func vadReportsSpeechUnlessToldToCut() throws {
        let run = { (extra: [String]) throws -> String in
            let result = try earshot(["vad", "--detector", "spectral"] + extra + [utterance])
            #expect(result.status == 0, "\(result.standardError)")
            return result.output
        }
        let plain = try run([]), speech = try run(["--profile", "speech"]), cutting = try run(["--profile", "cutting"])
        #expect(plain == speech)
        #expect(cutting != speech)
        #expect(try run(["--profile", "cutting", "--hangover", "0"]) == speech)
        let ends = { (csv: String) in
            csv.split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[1]) }
        }
        #expect(zip(ends(cutting), ends(speech)).allSatisfy { $0 >= $1 }, "cutting ends no earlier")
        let bad = try earshot("vad", "--profile", "loose", utterance)
        #expect(bad.status == 1 && bad.standardError.contains("speech"), "\(bad.standardError)")
    }

    @Test func probsHaveOneLinePerTenMilliseconds() throws {
        let info = try earshot("info", "--format", "json", utterance)
        let duration = try #require(
            (try JSONSerialization.jsonObject(with: info.standardOutput) as? [String: Any])?["duration_s"] as? Double)
        for detector in ["energy", "spectral", "speex", "silero"] {
            let result = try earshot("vad", "--detector", detector, "--format", "probs", utterance)
            #expect(result.status == 0)
            let values = result.output.split(separator: "\n").compactMap { Double($0) }
            #expect(values.count == Int((duration / 0.01 - 0.5).rounded(.up)))
            #expect(values.allSatisfy { (0...1).contains($0) })
        }
    }

    @Test(arguments: ["json", "rttm", "audacity"])
    func otherFormats(format: String) throws {
        let result = try earshot("vad", "--detector", "spectral", "--format", format, utterance)
        #expect(result.status == 0)
        switch format {
        case "json":
            let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            #expect(document["schema_version"] as? Int == 2)
            #expect((document["parameters"] as? [String: Any])?["detector"] as? String == "spectral")
            let files = try #require(document["files"] as? [[String: Any]])
            #expect((files.first?["segments"] as? [[String: Double]])?.first?["start_s"] != nil)
        case "rttm": #expect(result.output.hasPrefix("SPEAKER syn-015 1 "))
        default: #expect(result.output.split(separator: "\n").first?.split(separator: "\t").count == 3)
        }
    }

    /// A file named with spaces keeps its RTTM lines at 10 fields, and `vad` and `corpus export` give a
    /// recording the same id.
    @Test func rttmIdsSurviveSpacesAndMatchCorpusExport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spaced = directory.file("my talk.wav")
        try FileManager.default.copyItem(atPath: utterance, toPath: spaced)
        let result = try earshot("vad", "--detector", "spectral", "--format", "rttm", spaced)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.output.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.split(separator: " ").count == 10 }, "\(result.output)")
        #expect(lines.first?.hasPrefix("SPEAKER my%20talk 1 ") == true)

        let exported = try earshot("corpus", "export", "--format", "rttm", synthetic)
        #expect(exported.status == 0, "\(exported.standardError)")
        let vad = try earshot("vad", "--detector", "spectral", "--format", "rttm", utterance)
        let id = { (text: String) in text.split(separator: "\n").first?.split(separator: " ")[1] }
        #expect(exported.output.contains("SPEAKER \(id(vad.output) ?? "?") 1 "), "the same id as vad writes")
    }

    @Test func outDirectoryGetsACsvAndAProbPerInputAndEvalScoresThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = try FileManager.default.contentsOfDirectory(atPath: synthetic + "/audio").sorted()
        let result = try ExternalTool.run(
            [ExternalTool.earshotPath, "vad", "--detector", "spectral", "--out", directory.path]
                + files.map { synthetic + "/audio/" + $0 })
        #expect(result.status == 0, "\(result.standardError)")
        #expect(directory.contents() == ["syn-015.csv", "syn-015.prob", "syn-037.csv", "syn-037.prob"])

        // Scored from the files, the predictions match the spectral detector run directly.
        let fromFiles = try earshot("eval", "--predictions", directory.path, "--format", "json", synthetic)
        let direct = try earshot("eval", "--detector", "spectral", "--format", "json", synthetic)
        #expect(fromFiles.status == 0 && direct.status == 0, "\(fromFiles.standardError)")
        let f1 = { (data: Data) throws -> Double? in
            let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let detector = (document?["detectors"] as? [[String: Any]])?.first
            return (detector?["frames"] as? [String: Any])?["f1"] as? Double
        }
        let a = try #require(try f1(fromFiles.standardOutput)), b = try #require(try f1(direct.standardOutput))
        #expect(abs(a - b) < 0.02, "predictions file F1 \(a), detector F1 \(b)")
    }

    @Test func aBadFileAmongManyIsReportedAndTheRestAreDone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bad = try directory.write(Array("not audio".utf8), to: "bad.wav")
        let result = try earshot("vad", "--out", directory.path, bad, utterance)
        #expect(result.status == 4)
        #expect(result.standardError.contains("bad.wav"))
        #expect(directory.contents().contains("syn-015.csv"))
    }
}

@Suite(.computing) struct EndpointCommandTests {
    @Test func printsTheEventsWithTheirReasonAndOutcome() throws {
        let result = try earshot("endpoint", "--endingSilence", "0.3", utterance)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(lines.first?.last == "speechStart")
        #expect(lines.contains { $0.dropFirst().joined(separator: " ") == "endpoint endingSilence" })
        #expect(lines.last?.dropFirst().joined(separator: " ") == "outcome audioCaptured")
    }

    @Test func theSDKsCamelCaseFlagsTakeKebabCaseToo() throws {
        let camel = try earshot(
            "endpoint", "--endingSilence", "0.3", "--minSpeechDuration", "0.2", "--maxInitialSilence", "5", utterance)
        let kebab = try earshot(
            "endpoint", "--ending-silence", "0.3", "--min-speech-duration", "0.2", "--max-initial-silence", "5",
            utterance)
        let other = try earshot("endpoint", "--ending-silence", "0.9", utterance)
        #expect(camel.status == 0 && kebab.status == 0, "\(kebab.standardError)")
        #expect(kebab.output == camel.output)
        #expect(other.output != camel.output)
    }

    @Test func aManualStopBeforeMinRecordingTimeIsAudioTooShort() throws {
        let result = try earshot("endpoint", "--format", "json", "--stop-at", "0.5", utterance)
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(document["reason"] as? String == "manualStop")
        #expect(document["outcome"] as? String == "audioTooShort")
        #expect(document["endpoint_s"] as? Double == 0.5)
    }

    @Test func invalidPropertiesNameTheField() throws {
        let negative = try earshot("endpoint", "--endingSilence", "-1", utterance)
        #expect(negative.status == 1 && negative.standardError.contains("endingSilence"))
        let crossed = try earshot("vad", "--threshold", "0.3", "--offsetThreshold", "0.6", utterance)
        #expect(crossed.status == 1 && crossed.standardError.contains("offsetThreshold"))
    }

    @Test func aSilentFileIsNoAudio() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let silent = directory.file("silent.wav")
        #expect(
            try ExternalTool.run(["sox", "-n", "-r", "16000", "-b", "16", "-c", "1", silent, "trim", "0", "3"]).status
                == 0)
        let result = try earshot("endpoint", "--format", "json", silent)
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(document["outcome"] as? String == "noAudio")
        #expect(document["reason"] as? String == "initialSilenceTimeout")
    }
}

@Suite(.computing) struct EvalAndSweepCommandTests {
    @Test func evalReportsEveryDetector() throws {
        let result = try earshot("eval", "--format", "json", "--pr-curve", noisy)
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let detectors = try #require(document["detectors"] as? [[String: Any]])
        #expect(detectors.compactMap { $0["detector"] as? String } == ["energy", "spectral", "speex", "silero"])
        for detector in detectors {
            #expect((detector["frames"] as? [String: Any])?["false_alarm_rate"] != nil)
            #expect(
                ((detector["boundaries"] as? [String: Any])?["start"] as? [String: Any])?.keys.contains("bias_s")
                    == true)
            #expect((detector["endpointing"] as? [String: Any])?["truncation_rate"] != nil)
            #expect(((detector["pr_curve"] as? [Any])?.count ?? 0) > 1)
        }
    }

    @Test func evalScoresEndpointsAgainstTheLabelOracle() throws {
        // Spectral on the two synthetic samples: with the SDK's rule both endpoints come 120 ms after the
        // oracle's (hangover, padding after, and padding before's look-ahead); on the detector's
        // evidence, 10 ms after.
        func oracle(_ arguments: String...) throws -> (block: [String: Any], delays: [Double]) {
            let result = try earshot(
                ["eval", "--detector", "spectral", "--format", "json", "--utterances"] + arguments + [synthetic])
            #expect(result.status == 0, "\(result.standardError)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            let detector = try #require((document["detectors"] as? [[String: Any]])?.first)
            let block = try #require((detector["endpointing"] as? [String: Any])?["oracle"] as? [String: Any])
            let utterances = try #require(detector["utterances"] as? [[String: Any]])
            return (block, utterances.compactMap { $0["delay_s"] as? Double })
        }
        let sdk = try oracle()
        #expect(sdk.block["tolerance_s"] as? Double == 0.1 && sdk.block["utterances"] as? Int == 2)
        #expect(sdk.block["late_rate"] as? Double == 1 && sdk.block["on_time_rate"] as? Double == 0)
        #expect(sdk.delays == [0.12, 0.12])
        let weighed = try oracle("--endingSilenceThreshold", "0.5")
        #expect(weighed.block["on_time_rate"] as? Double == 1 && weighed.delays == [0.01, 0.01])
        let loose = try oracle("--on-time-tolerance", "0.15")
        #expect(loose.block["on_time_rate"] as? Double == 1 && loose.block["tolerance_s"] as? Double == 0.15)

        let badThreshold = try earshot("eval", "--endingSilenceThreshold", "1.5", synthetic)
        #expect(badThreshold.status == 1)
        #expect(badThreshold.standardError.contains("endingSilenceThreshold: expected a probability in [0, 1]"))
        let badTolerance = try earshot("eval", "--on-time-tolerance=-1", synthetic)
        #expect(badTolerance.status == 1 && badTolerance.standardError.contains("--on-time-tolerance"))
    }

    @Test func groupByScoresEachTagValueFromTheSameDetectorRun() throws {
        let result = try earshot("eval", "--detector", "spectral", "--group-by", "noise", "--format", "json", noisy)
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let groups = try #require(document["groups"] as? [[String: Any]])
        #expect(groups.map { $0["group"] as? String } == [nil, "noise=brown", "noise=music"])
        #expect(groups.map { $0["files"] as? Int } == [2, 1, 1])
    }

    @Test func sweepWritesRowsAndResumesWithoutRecomputing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("sweep.csv")
        let first = try earshot("sweep", synthetic, "--grid", "endingSilence=0.3,0.6", "-o", output)
        #expect(first.status == 0, "\(first.standardError)")
        let firstText = try String(contentsOfFile: output, encoding: .utf8)
        #expect(firstText.split(separator: "\n").count == 3)

        // Widen the grid and resume: the finished rows are kept as written, the new one is added.
        let second = try earshot(
            "sweep", synthetic, "--grid", "endingSilence=0.3,0.6,1.5", "-o", output, "--resume")
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains("2 rows done"))
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.prefix(3).joined(separator: "\n").hasPrefix(firstText.split(separator: "\n").prefix(1).joined()))
        #expect(lines[3].hasPrefix("1.5,2,"))
        #expect(directory.contents() == ["sweep.csv"], "no temporary files left behind")
    }

    @Test func badGridsAndCorporaFailClearly() throws {
        let badValue = try earshot("sweep", synthetic, "--grid", "endingSilence=-0.5")
        #expect(badValue.status == 1 && badValue.standardError.contains("endingSilence"))
        let shadowed = try earshot("sweep", synthetic, "--grid", "endingSilence=0.5,1", "--rule", "speech:1:0")
        #expect(shadowed.status == 1 && shadowed.standardError.contains("--rule"))
        let unknown = try earshot("sweep", synthetic, "--grid", "detector=webrtc")
        #expect(unknown.status == 1 && unknown.standardError.contains("webrtc"))

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try directory.write(Array("{\"path\": 3}\n".utf8), to: "manifest.jsonl")
        let malformed = try earshot("eval", directory.path)
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("manifest.jsonl") && malformed.standardError.contains("line 1"))
        let empty = try TemporaryDirectory()
        defer { empty.remove() }
        _ = try empty.write([], to: "manifest.jsonl")
        let none = try earshot("sweep", empty.path, "--grid", "endingSilence=1")
        #expect(none.status == 2, "\(none.standardError)")
    }
}
