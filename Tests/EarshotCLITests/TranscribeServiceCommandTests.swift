import EarshotLab
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot transcribe --service` as a user runs it, against `earshot serve` on loopback: the same
/// transcript and word times as the embedded recognizer, retries when the service is busy, and
/// failed segments reported by their time ranges with nothing written.
@Suite(.serialized, .waiting) struct TranscribeServiceCommandTests {
    private static let clips = (try? LibriVoxClips.load().map(\.path)) ?? []

    private func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// The five LibriVox clips joined, then 1 s of silence: 25.7 s, which the chunker cuts in two.
    private func longFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("long.wav")
        let joined = try ExternalTool.run(["sox"] + Self.clips + [path, "pad", "0", "1"])
        #expect(joined.status == 0, "\(joined.standardError)")
        return path
    }

    private func json(_ result: ExternalTool.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    }

    @Test func theServiceGivesTheEmbeddedTranscriptAndWordTimes() throws {
        let server = try ServeCommandTests.Server()
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory)
        let remote = try json(
            earshot(
                ["transcribe", "--detector", "spectral", "--format", "json", long]
                    + ListenAndBenchCommandTests.service(server)))
        let local = try json(earshot(["transcribe", "--detector", "spectral", "--format", "json", long]))

        let parameters = try #require(remote["parameters"] as? [String: Any])
        #expect(parameters["recognizer"] as? String == "service" && parameters["audio_format"] as? String == "flac")
        #expect((remote["segments"] as? [Any])?.count == 2)
        let remoteText = try #require(remote["text"] as? String), localText = try #require(local["text"] as? String)
        let difference = WordErrorRate(reference: localText, hypothesis: remoteText)
        #expect(difference.rate <= 0.05, "service: \(remoteText)\nembedded: \(localText)")
        // Word times come back from the service (X-Arg: WordTimes=true) and land in media time.
        let remoteWords = try #require(remote["words"] as? [[String: Any]])
        let localWords = try #require(local["words"] as? [[String: Any]])
        var compared = 0
        for (a, b) in zip(remoteWords, localWords) where a["word"] as? String == b["word"] as? String {
            let shift = abs((a["start_s"] as? Double ?? -9) - (b["start_s"] as? Double ?? 9))
            #expect(shift <= 0.05, "\(a) vs \(b)")
            compared += 1
        }
        #expect(compared >= 40)

        // Subtitles from the service's word times parse, and start where the speech does.
        let srt = directory.file("out.srt")
        let subtitles = try earshot(
            ["transcribe", "--detector", "spectral", "--format", "srt", "-o", srt, long]
                + ListenAndBenchCommandTests.service(server))
        #expect(subtitles.status == 0, "\(subtitles.standardError)")
        let written = try String(contentsOfFile: srt, encoding: .utf8)
        #expect(written.hasPrefix("1\n00:00:00,"))
        let parsed = try ExternalTool.run(
            ["ffmpeg", "-nostdin", "-v", "error", "-i", srt, "-map", "0", "-c:s", "srt", "-f", "srt", "-"])
        #expect(parsed.status == 0 && parsed.standardError.isEmpty, "ffmpeg: \(parsed.standardError)")
        #expect(parsed.output.components(separatedBy: " --> ").count == written.components(separatedBy: " --> ").count)
    }

    @Test func aBusyServiceIsRetriedUntilEverySegmentIsTranscribed() throws {
        let server = try ServeCommandTests.Server(arguments: ["--recognizers", "1"])
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Three connections at once against one recognizer: two of the first three segments get 503.
        // Nine retries wait up to 511 s in all (only as long as the recognizer stays busy): beside a CPU
        // hog six (63 s) ran out while the one recognizer worked through the other segments.
        let result = try earshot(
            [
                "transcribe", "--detector", "spectral", "--jobs", "3", "--retries", "9", "--max-segment-duration", "8",
                "--min-segment-duration",
                "2",
                "--format", "json", try longFile(in: directory),
            ] + ListenAndBenchCommandTests.service(server))
        let document = try json(result)
        #expect(result.standardError.contains("HTTP 503"), "\(result.standardError)")
        #expect(result.standardError.contains("retrying in 1 s"))
        let segments = try #require(document["segments"] as? [[String: Any]])
        #expect(segments.count >= 4)
        #expect(segments.allSatisfy { $0["recognized"] as? Bool == true })
        #expect((document["words"] as? [Any])?.count ?? 0 >= 50)
    }

    /// Subtitle cues as (start, end, text), from SRT.
    private func cues(_ srt: String) -> [(Double, Double, String)] {
        srt.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard lines.count >= 3 else { return nil }
            let times = lines[1].components(separatedBy: " --> ").map { stamp -> Double in
                let parts = stamp.replacingOccurrences(of: ",", with: ".").split(separator: ":")
                return parts.count == 3 ? Double(parts[0])! * 3600 + Double(parts[1])! * 60 + Double(parts[2])! : -1
            }
            return (times[0], times[1], lines[2...].joined(separator: " "))
        }
    }

    /// The OpenAI-compatible API of `earshot serve` gives the cues the Speech API and the embedded
    /// recognizer give; the protocol comes from the URL's path, and a URL without one is refused
    /// naming the paths (or completed by --api).
    @Test func theOpenAIProtocolGivesTheSameSubtitles() throws {
        let server = try ServeCommandTests.Server()
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory)
        let base = "http://127.0.0.1:\(server.port)"
        // A 25 s segment took Whisper over the 30 s default beside a CPU hog; what is compared is the text.
        let credentials = [
            "--app-key", server.appKey, "--secret", server.secret, "--server-response-timeout", "300",
        ]
        func srt(_ service: [String]) throws -> [(Double, Double, String)] {
            let result = try earshot(["transcribe", "--detector", "spectral", "--format", "srt", long] + service)
            #expect(result.status == 0, "\(result.standardError)")
            return cues(result.output)
        }
        let openAI = try srt(["--service", base + "/v1/audio/transcriptions"] + credentials)
        let speechAPI = try srt(["--service", base + "/speech/v3/speechToText"] + credentials)
        let embedded = try srt([])
        #expect(openAI.count >= 3)
        for other in [speechAPI, embedded] {
            #expect(openAI.count == other.count)
            for (a, b) in zip(openAI, other) {
                #expect(abs(a.0 - b.0) <= 0.05 && abs(a.1 - b.1) <= 0.05, "\(a) vs \(b)")
                #expect(a.2 == b.2)
            }
        }

        let bare = try earshot(["transcribe", "--service", base, long] + credentials)
        #expect(bare.status == 64 || bare.status == 1, "\(bare.standardError)")
        #expect(
            bare.standardError.contains("/speech/v3/speechToText")
                && bare.standardError.contains("/v1/audio/transcriptions"))
        let forced = try earshot(
            ["transcribe", "--service", base, "--api", "openai", "--format", "srt", long] + credentials)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(cues(forced.output).count == openAI.count)
        let wrongKey = try earshot(["transcribe", "--service", base + "/v1", "--token", "not-a-token", long])
        #expect(wrongKey.status == 3)
        #expect(wrongKey.standardError.contains("HTTP 401: OpenAI invalid_api_key"), "\(wrongKey.standardError)")
    }

    @Test func segmentsTheServiceFailsAreNamedByTimeAndNothingIsWritten() throws {
        // The service takes at most 4 s of audio a request: the longer segments fail with 413.
        let server = try ServeCommandTests.Server(arguments: ["--max-audio-duration", "4"])
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory)
        let output = directory.file("out.txt")
        let result = try earshot(
            [
                "transcribe", "--detector", "spectral", "--max-segment-duration", "8", "--min-segment-duration", "2",
                "--retries", "1",
                "-o", output, long,
            ] + ListenAndBenchCommandTests.service(server))
        #expect(result.status == 3, "\(result.standardError)")
        // One line: which segments, by time, and why — "4 of 5 segments failed — 0.00–6.92 s, …: HTTP 413: …".
        let pattern = #"^earshot: .*long\.wav: \d of \d segments failed — \d+\.\d\d–\d+\.\d\d s, .*: HTTP 413: "#
        #expect(
            result.standardError.range(of: pattern, options: .regularExpression) != nil, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output), "a shortened transcript must not be written")

        // Nothing listening: each attempt is a ConnectionFailure, refused at once, retried soon, then
        // reported naming the connection, rather than waiting out a connect timeout on every try.
        let unreachable = try earshot(
            [
                "transcribe", "--service", "http://127.0.0.1:9/speech/v3/speechToText", "--token", "x",
                "--retries", "1", "--connection-timeout", "2", Self.clips[1],
            ])
        #expect(unreachable.status == 3)
        let lines = unreachable.standardError.split(separator: "\n")
        #expect(lines.count == 2, "\(unreachable.standardError)")
        #expect(lines.first?.hasPrefix("earshot: segment 0.00–2.99 s: ConnectionFailure: ") == true)
        #expect(
            lines.first?.hasSuffix(
                "could not connect for the recognition request to http://127.0.0.1:9/speech/v3/speechToText: "
                    + "connection refused; "
                    + "retrying in 0.25 s (1 of 1)") == true, "\(unreachable.standardError)")
        #expect(lines.last?.contains(": segment 0.00–2.99 s: ConnectionFailure: ") == true)
        #expect(lines.last?.hasSuffix(" (after 2 attempts)") == true, "\(unreachable.standardError)")
    }

    /// Ctrl-C while a segment is being recognized: the client stops within a second and hangs up,
    /// and the service lets go of the recognizer within a second of that.
    @Test(.timed) func ctrlCStopsPromptlyAndTheServiceLetsGoOfTheUpload() throws {
        let server = try ServeCommandTests.Server(arguments: ["--recognizers", "1"])
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let joined = directory.file("long.wav")  // 102.8 s
        #expect(
            try ExternalTool.run(["sox"] + Array(repeating: Self.clips, count: 4).flatMap { $0 } + [joined]).status == 0
        )
        let inUse = { () throws -> Double? in
            let scraped = try ExternalTool.run(["curl", "-sf", "http://127.0.0.1:\(server.port)/metrics"])
            let line = scraped.output.split(separator: "\n").first { $0.hasPrefix("earshot_recognizers_in_use ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments =
            ["transcribe", "--jobs", "1", "-o", directory.file("out.txt"), joined]
            + ListenAndBenchCommandTests.service(server)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        while try inUse() != 1, process.isRunning, Date().timeIntervalSince(started) < 60 {
            Thread.sleep(forTimeInterval: 0.005)
        }
        try #require(process.isRunning, "the transcription ended before it could be interrupted")
        let interrupted = Date()
        process.interrupt()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let stopped = Date().timeIntervalSince(interrupted)
        #expect(process.terminationStatus == 130, "\(message)")
        // The bounds are far below the minute and more the upload had left, and loose enough for a
        // machine running every other suite at once (a second was not, on CI).
        #expect(stopped < 3, "the client stopped \(stopped) s after SIGINT")
        while try inUse() != 0, Date().timeIntervalSince(interrupted) < 30 { Thread.sleep(forTimeInterval: 0.01) }
        let freed = Date().timeIntervalSince(interrupted) - stopped
        if freed >= 3 {
            let threads = ThreadDump.of(pid: server.process.processIdentifier)
            Issue.record("the service held the recognizer \(freed) s after the client exited; its threads:\n\(threads)")
        }
        #expect(directory.contents() == ["long.wav"], "no output file, partial or final")
    }

    @Test func aGrammarGoesToSpeechToTextCustom() throws {
        let server = try ServeCommandTests.Server()
        defer { _ = server.stop() }
        let card = try #require(try CardsRecordings.load().first { $0.id == "004" })
        let result = try earshot(
            ["transcribe", "--grammar", CardsRecordings.grammarPath, card.path]
                + ListenAndBenchCommandTests.service(server))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output == card.transcript + "\n")
    }

    /// `--language` reaches the Speech API as `Content-Language`: the service's default model (tiny.en,
    /// or PocketSphinx without it), which speaks English only, refuses French naming the header.
    @Test func theLanguageGoesToTheSpeechAPIAsContentLanguage() throws {
        let server = try ServeCommandTests.Server()
        defer { _ = server.stop() }
        let result = try earshot(
            ["transcribe", "--language", "fr", Self.clips[1]] + ListenAndBenchCommandTests.service(server))
        #expect(result.status != 0 && result.output.isEmpty, "\(result.output)")
        #expect(
            result.standardError.contains("HTTP 400")
                && result.standardError.contains("Content-Language: language 'fr'")
                && result.standardError.contains("English only"), "\(result.standardError)")
        let english = try earshot(
            ["transcribe", "--language", "en", Self.clips[1]] + ListenAndBenchCommandTests.service(server))
        #expect(english.status == 0 && !english.output.isEmpty, "\(english.standardError)")
    }

    @Test func wrongCredentialsAreNamedAsSuch() throws {
        let server = try ServeCommandTests.Server()
        defer { _ = server.stop() }
        let result = try earshot(
            [
                "transcribe", "--service", "http://127.0.0.1:\(server.port)/speech/v3/speechToText",
                "--app-key", server.appKey, "--secret", "wrong", Self.clips[1],
            ])
        #expect(result.status == 3)
        #expect(
            result.standardError.contains("HTTP 401: OAuth invalid_client: ")
                && result.standardError.contains("check the app key and secret"), "\(result.standardError)")
    }

    @Test func serviceOptionsNeedTheService() throws {
        let grammar = try earshot(["transcribe", "--grammar", CardsRecordings.grammarPath, Self.clips[1]])
        #expect(grammar.status == 1 && grammar.standardError.contains("--grammar needs --service"))
        let model = try earshot(
            [
                "transcribe", "--service", "http://127.0.0.1:9/speech/v3/speechToText", "--token", "x",
                "--model-dir", "/tmp", Self.clips[1],
            ])
        #expect(
            model.status == 1
                && model.standardError.contains("--model-dir sets the embedded recognizer; the service has its own"),
            "\(model.standardError)")
        let retries = try earshot(["transcribe", "--retries", "-1", Self.clips[1]])
        #expect(retries.status == 1)
    }
}
