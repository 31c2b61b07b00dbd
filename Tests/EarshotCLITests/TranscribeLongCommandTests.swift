import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot transcribe` on long and many files: batches, formats, determinism, Ctrl-C.
@Suite(.serialized, .waiting) struct TranscribeLongCommandTests {
    private static let clips = (try? LibriVoxClips.load().map(\.path)) ?? []

    private func earshot(_ arguments: String...) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// The five LibriVox clips joined `times` times, then 1 s of silence (sox), in `directory`.
    private func longFile(in directory: TemporaryDirectory, times: Int) throws -> String {
        let path = directory.file("long.wav")
        let joined = try ExternalTool.run(
            ["sox"] + Array(repeating: Self.clips, count: times).flatMap { $0 } + [path, "pad", "0", "1"])
        #expect(joined.status == 0, "\(joined.standardError)")
        return path
    }

    @Test func aBadFileAmongSeveralIsReportedAndTheRestTranscribed() throws {
        let result = try earshot("transcribe", Self.clips[1], "/nonexistent/missing.wav", Self.clips[4])
        #expect(result.status == 4, "exit 4: a batch in which some items failed")
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 2 && errors[0].contains("/nonexistent/missing.wav"), "\(result.standardError)")
        #expect(errors.last == "earshot: 2 of 3 files transcribed; 1 failed: /nonexistent/missing.wav")
        let blocks = result.output.components(separatedBy: "==> ")
        #expect(blocks.count == 3)
        #expect(blocks[1].hasPrefix(Self.clips[1] + " <==\n") && blocks[1].contains("young man"))
        #expect(blocks[2].hasPrefix(Self.clips[4] + " <==\n") && blocks[2].contains("might even"))
    }

    @Test func outputDirWritesOneFilePerInputInAnyFormat() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("subtitles/season1")  // created, parents too
        let result = try earshot("transcribe", "--format", "srt", "--output-dir", target, Self.clips[0], Self.clips[1])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.isEmpty, "nothing on stdout: \(result.output)")
        #expect(result.standardError == "earshot: 2 of 2 files transcribed\n")
        let names = Self.clips[0...1].map {
            (($0 as NSString).lastPathComponent as NSString).deletingPathExtension + ".srt"
        }
        #expect((try FileManager.default.contentsOfDirectory(atPath: target)).sorted() == names.sorted())
        for name in names {
            let text = try String(contentsOfFile: target + "/" + name, encoding: .utf8)
            #expect(text.hasPrefix("1\n00:00:"), "\(name): \(text)")
        }

        // Two inputs that would write one name are refused before any work, naming both.
        let copy = directory.file(((Self.clips[0] as NSString).lastPathComponent))
        try FileManager.default.copyItem(atPath: Self.clips[0], toPath: copy)
        let clash = try earshot("transcribe", "--output-dir", target, Self.clips[0], copy)
        #expect(clash.status == 1)
        #expect(
            clash.standardError.contains("\(Self.clips[0]) and \(copy) would both be written to"),
            "\(clash.standardError)")
        let both = try earshot("transcribe", "-o", directory.file("x.txt"), "--output-dir", target, Self.clips[0])
        #expect(both.status == 1)
    }

    /// Text goes out a segment at a time: the first line comes while later segments are still being
    /// recognized, not all at the end.
    @Test func textIsPrintedSegmentBySegment() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory, times: 6)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = ["transcribe", "--jobs", "1", long]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let data = output.fileHandleForReading.availableData
            try #require(!data.isEmpty, "transcribe ended before printing a line")
            received += data
        }
        #expect(process.isRunning, "the first segment's line came before the last segment was recognized")
        received += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let whole = try earshot("transcribe", "--jobs", "1", long)
        #expect(String(decoding: received, as: UTF8.self) == whole.output, "streamed text is the same text")
    }

    @Test func aBatchInWhichEveryFileFailedExitsTwo() throws {
        let result = try earshot("transcribe", "/nonexistent/a.wav", "/nonexistent/b.wav")
        #expect(result.status == 2, "\(result.standardError)")
        #expect(
            result.standardError.hasSuffix(
                "earshot: 0 of 2 files transcribed; 2 failed: /nonexistent/a.wav, /nonexistent/b.wav\n"),
            "\(result.standardError)")
    }

    @Test func jsonForSeveralFilesIsOneDocumentPerLine() throws {
        let result = try earshot("transcribe", "--format", "json", "--jobs", "2", Self.clips[0], Self.clips[1])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 2)
        for (line, clip) in zip(lines, Self.clips) {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(document["schema_version"] as? Int == 1)
            #expect((document["input"] as? [String: Any])?["path"] as? String == clip)
            let segments = try #require(document["segments"] as? [[String: Any]])
            #expect(segments.first?["start_s"] as? Double == 0 && segments.first?["cut"] != nil)
        }
    }

    @Test func subtitlesTakeOneFileAndTxtIsStillAccepted() throws {
        let two = try earshot("transcribe", "--format", "srt", Self.clips[0], Self.clips[1])
        #expect(two.status == 1 && two.standardError.contains("give one FILE"))
        let txt = try earshot("transcribe", "--format", "txt", Self.clips[1])
        #expect(txt.status == 0 && txt.output.contains("young man"))
        let badJobs = try earshot("transcribe", "--jobs", "0", Self.clips[1])
        #expect(badJobs.status == 1)
    }

    @Test func aLongFileGivesTheSameSubtitlesOnEveryRunAndWritesThemAtomically() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory, times: 1)  // 25.7 s: two segments
        let vtt = directory.file("out.vtt")
        let first = try earshot("transcribe", "--jobs", "2", "--format", "vtt", "-o", vtt, long)
        #expect(first.status == 0 && first.output.isEmpty, "\(first.standardError)")
        let written = try String(contentsOfFile: vtt, encoding: .utf8)
        #expect(written.hasPrefix("WEBVTT\n\n00:00:00."))
        #expect(written.components(separatedBy: " --> ").count > 4)
        let second = try earshot("transcribe", "--jobs", "2", "--format", "vtt", long)
        #expect(second.output == written, "dealing by segment length makes --jobs 2 deterministic")
        #expect(directory.contents() == ["long.wav", "out.vtt"])
    }

    @Test(.timed) func ctrlCStopsAndLeavesNoOutputFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let long = try longFile(in: directory, times: 4)  // 99.9 s, ~35 s of work on one job
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = [
            "transcribe", "--jobs", "1", "--progress", "ndjson", "-o", directory.file("out.txt"), long,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Interrupted once it reports audio decoded (the event itself, not a time): the worker is mid-file.
        func decoding(_ line: Substring) -> Bool {
            guard line.contains(#""event":"progress""#),
                let range = line.range(of: #""done_s":[0-9.]+"#, options: .regularExpression)
            else { return false }
            return (Double(line[range].dropFirst(#""done_s":"#.count)) ?? 0) > 0
        }
        var printed = ""
        while !printed.split(separator: "\n").contains(where: decoding) {
            let data = errors.fileHandleForReading.availableData
            if data.isEmpty { break }
            printed += String(decoding: data, as: UTF8.self)
        }
        try #require(process.isRunning, "transcribe finished before it could be interrupted: \(printed)")
        #expect(directory.contents().contains { $0.hasPrefix(".out.txt.partial") }, "the output is being written")
        let interrupted = Date()
        process.interrupt()  // SIGINT, as Ctrl-C sends
        process.waitUntilExit()
        let stopped = Date().timeIntervalSince(interrupted)
        #expect(stopped < 1, "stopped \(stopped) s after SIGINT: cancellation reaches the worker between blocks")
        #expect(process.terminationStatus == 130)
        let message = printed + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("interrupted"))
        #expect(directory.contents() == ["long.wav"], "no output file, partial or final")
    }
}
