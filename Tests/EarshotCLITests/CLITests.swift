import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Runs the built `earshot` with `arguments`.
private func earshot(_ arguments: String..., stdin: Data? = nil) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments, standardInput: stdin)
}

private let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"

@Suite(.serialized, .computing) struct TranscribeCommandTests {
    @Test func printsTheTranscriptAndNothingElse() throws {
        let result = try earshot("transcribe", clip)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        // Whisper tiny.en (the default recognizer once `make models` installed it); faster-whisper
        // hears the same (WhisperParityTests).
        #expect(result.output == "He was not an old-sposed young man.\n")
        #expect(result.output.split(separator: "\n").count == 1, "stdout holds the transcript only")
        #expect(result.standardError.isEmpty, "no log noise when stderr is not a terminal: \(result.standardError)")
    }

    @Test func jsonHasWordsWithTimesAndTheEffectiveParameters() throws {
        let result = try earshot("transcribe", "--format", "json", clip)
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(document["schema_version"] as? Int == 1)
        #expect((document["duration_s"] as? Double).map { abs($0 - 2.99) < 0.001 } == true)
        let parameters = try #require(document["parameters"] as? [String: Any])
        #expect(parameters["sample_rate_hz"] as? Int == 16_000)
        #expect(parameters["recognizer"] as? String == "whisper" && parameters["model"] as? String == "whisper-tiny.en")
        #expect(parameters["beam_size"] as? Int == 5)
        let words = try #require(document["words"] as? [[String: Any]])
        #expect(words.count >= 5)
        var previousEnd = 0.0
        for word in words {
            let start = try #require(word["start_s"] as? Double), end = try #require(word["end_s"] as? Double)
            #expect(start >= previousEnd - 1e-9 && start < end && end <= 2.99 + 1e-9)
            previousEnd = end
        }
        #expect((document["text"] as? String) == words.compactMap { $0["word"] as? String }.joined(separator: " "))
    }

    @Test func readsStandardInputAndResampledFormats() throws {
        let expected = try earshot("transcribe", clip).output
        let piped = try earshot("transcribe", "-", stdin: try Data(contentsOf: URL(fileURLWithPath: clip)))
        #expect(piped.status == 0 && piped.output == expected)

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Resampled and multichannel input: sox makes a 44.1 kHz stereo FLAC and headerless 8 kHz PCM.
        let flac = directory.file("stereo.flac"), raw = directory.file("narrow.raw")
        #expect(try ExternalTool.run(["sox", clip, "-r", "44100", "-c", "2", flac]).status == 0)
        #expect(
            try ExternalTool.run(["sox", clip, "-r", "8000", "-t", "raw", "-e", "signed", "-b", "16", "-L", raw]).status
                == 0)
        let fromFlac = try earshot("transcribe", flac)
        #expect(fromFlac.status == 0 && fromFlac.output.contains("young man"))
        let fromRaw = try earshot("transcribe", "--rate", "8000", "--encoding", "s16le", raw)
        #expect(fromRaw.status == 0 && !fromRaw.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func outputFileAppearsOnlyWhenComplete() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("transcript.txt")
        #expect(try earshot("transcribe", "-o", target, clip).status == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("young man"))

        let failed = try earshot("transcribe", "-o", directory.file("never.txt"), "/nonexistent.wav")
        #expect(failed.status == 2)
        #expect(directory.contents() == ["transcript.txt"], "a failed run leaves no file, partial or final")
    }

    @Test func aMissingModelIsARecognizerError() throws {
        let result = try earshot("transcribe", "--model-dir", "/nonexistent/model", clip)
        #expect(result.status == 3)
        #expect(result.standardError.contains("/nonexistent/model"))
    }
}

@Suite(.serialized, .computing) struct InfoAndLevelCommandTests {
    @Test func infoDescribesTheFile() throws {
        let text = try earshot("info", clip)
        #expect(text.status == 0)
        #expect(text.output.contains("sample rate: 16000 Hz"))
        #expect(text.output.contains("duration:    2.990 s (47840 frames)"))

        let json = try earshot("info", "--format", "json", clip)
        let document = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(document["schema_version"] as? Int == 1)
        #expect(document["frames"] as? Int == 47_840)
        let peak = try #require(document["peak_dbfs"] as? Double), rms = try #require(document["rms_dbfs"] as? Double)
        #expect(peak <= 0 && rms < peak)
    }

    @Test func levelPrintsOneLinePer100ms() throws {
        let result = try earshot("level", clip)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "start_s\trms_dbfs\tpeak_dbfs\tclipped")
        #expect(lines.count == 1 + 30, "2.99 s gives 29 full windows and one partial")
        #expect(lines[1].hasPrefix("0.000\t") && lines[30].hasPrefix("2.900\t"))
    }

    @Test func helpExplainsEachCommand() throws {
        for command in ["transcribe", "info", "level"] {
            let result = try earshot(command, "--help")
            #expect(result.status == 0)
            #expect(result.output.contains("Examples:"))
            #expect(result.output.contains("--rate"))
        }
        #expect(try earshot("--help").output.contains("Exit codes: 0 success; 1 usage error; 2 unreadable"))
    }
}

@Suite(.serialized, .computing) struct BadInputCommandTests {
    /// Each bad input gives exit `status` and exactly one line on stderr that names the file.
    private func expectFailure(_ arguments: [String], status: Int32, mentions: String) throws {
        for command in ["transcribe", "info", "level"] {
            let result = try ExternalTool.run([ExternalTool.earshotPath, command] + arguments)
            #expect(result.status == status, "\(command) \(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "one line, no stack trace: \(result.standardError)")
            #expect(result.standardError.contains(mentions))
        }
    }

    @Test func badFilesExitWith2() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try expectFailure(["/nonexistent/a.wav"], status: 2, mentions: "/nonexistent/a.wav: cannot open")
        try expectFailure([directory.path], status: 2, mentions: "is a directory")
        try expectFailure([try directory.write([], to: "empty.wav")], status: 2, mentions: "empty.wav: is empty")
        try expectFailure(
            [try directory.write(Array("hello\n".utf8), to: "text.wav")], status: 2,
            mentions: "text.wav: not a readable audio file")
        let header = Array(try Data(contentsOf: URL(fileURLWithPath: clip)).prefix(30))
        try expectFailure([try directory.write(header, to: "cut.wav")], status: 2, mentions: "cut.wav: ")
        try expectFailure(["--rate", "0", clip], status: 2, mentions: "unsupported sample rate 0 Hz")
        try expectFailure(
            ["--rate", "16000", "--channels", "65", clip], status: 2, mentions: "unsupported channel count 65")
    }

    @Test func rawWithoutRateAndBadFlagsExitWith1() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let raw = try directory.write([0, 0, 0, 0], to: "speech.raw")
        try expectFailure([raw], status: 1, mentions: "speech.raw: headerless PCM needs --rate")
        let unknown = try earshot("transcribe", "--no-such-flag", clip)
        #expect(unknown.status == 1)
        let badEncoding = try earshot("info", "--rate", "16000", "--encoding", "u8", raw)
        #expect(badEncoding.status == 1)
    }
}

@Suite(.computing) struct RawStandardInputTests {
    @Test func headerlessPCMOnStandardInputIsReadWithItsSpec() throws {
        // 0.25 s of a −20 dBFS sine as f32le: info must report exactly what was piped.
        let frames = 4_000
        var bytes = Data()
        for i in 0..<frames {
            let value = Float(0.1 * sin(2 * Double.pi * 1_000 * Double(i) / 16_000))
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        let result = try earshot(
            "info", "--format", "json", "--rate", "16000", "--encoding", "f32le", "-", stdin: bytes)
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(document["frames"] as? Int == frames)
        let input = try #require(document["input"] as? [String: Any])
        #expect(input["path"] as? String == "stdin" && input["container"] as? String == "raw")
        #expect((document["rms_dbfs"] as? Double).map { abs($0 - (-23.01)) <= 0.05 } == true)
    }
}
