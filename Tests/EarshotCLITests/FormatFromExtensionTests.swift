import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

private func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments)
}

private let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"

/// `-o x.srt` writes SRT without `--format`, as ffmpeg and sox pick a format from the output's
/// extension; a `--format` the extension contradicts is refused before anything is written.
@Suite(.computing) struct FormatFromExtensionTests {
    @Test func theOutputsExtensionChoosesTheFormat() throws {
        let directory = try TemporaryDirectory("earshot-format-extension")
        let cases: [(arguments: [String], file: String, starts: String)] = [
            (["transcribe", "--recognizer", "pocketsphinx", clip], "talk.srt", "1\n00:00:"),
            (["transcribe", "--recognizer", "pocketsphinx", clip], "talk.vtt", "WEBVTT"),
            (["transcribe", "--recognizer", "pocketsphinx", clip], "talk.json", "{"),
            (["vad", "--detector", "energy", clip], "speech.rttm", "SPEAKER "),
            (["vad", "--detector", "energy", clip], "speech.json", "{"),
            (["vad", "--detector", "energy", clip], "speech.srt", "1\n00:00:"),
            (["vad", "--detector", "energy", clip], "speech.vtt", "WEBVTT\n\n00:00:"),
            (["level", clip], "levels.csv", "start_s,rms_dbfs"),
            (["level", clip], "levels.json", "{"),
            (["endpoint", "--detector", "energy", clip], "events.json", "{"),
        ]
        for (arguments, file, starts) in cases {
            let path = directory.file(file)
            let run = try earshot(arguments + ["-o", path])
            #expect(run.status == 0, "\(arguments) -o \(file): \(run.standardError)")
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written.hasPrefix(starts), "\(arguments) -o \(file): \(written.prefix(80))")
        }
        // No extension it knows: the command's default (tsv for level).
        let plain = directory.file("levels.out")
        #expect(try earshot(["level", clip, "-o", plain]).status == 0)
        #expect(try String(contentsOfFile: plain, encoding: .utf8).hasPrefix("start_s\trms_dbfs"))
        // --format agreeing with the extension, or for a format no extension names, is fine.
        #expect(try earshot(["level", clip, "--format", "csv", "-o", directory.file("agree.csv")]).status == 0)
        #expect(
            try earshot(["vad", "--detector", "energy", "--format", "nemo", clip, "-o", directory.file("nemo.json")])
                .status == 0)
    }

    /// Issue 51, item 3: `vad -o speech.srt` wrote CSV into it. It writes cues now; an extension that
    /// names none of vad's formats is refused, naming them, and nothing is written.
    @Test func vadWritesSubtitlesAndRefusesAnExtensionItDoesNotWrite() throws {
        let directory = try TemporaryDirectory("earshot-vad-extension")
        let srt = directory.file("speech.srt")
        #expect(try earshot(["vad", "--detector", "energy", clip, "-o", srt]).status == 0)
        let cues = try String(contentsOfFile: srt, encoding: .utf8).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(!cues.isEmpty && cues.allSatisfy { $0.hasSuffix(" --> ") == false && $0.hasSuffix("\nspeech") })
        let labels = directory.file("labels.txt")
        #expect(try earshot(["vad", "--detector", "energy", clip, "-o", labels]).status == 0)
        #expect(try String(contentsOfFile: labels, encoding: .utf8).split(separator: "\n").allSatisfy {
            $0.split(separator: "\t").count == 3
        })
        let unknown = directory.file("speech.xyz")
        let refused = try earshot(["vad", "--detector", "energy", clip, "-o", unknown])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains(".xyz names no format vad writes"), "\(refused.standardError)")
        #expect(refused.standardError.contains(".srt .vtt"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: unknown))
    }

    @Test func aFormatTheExtensionContradictsIsRefused() throws {
        let directory = try TemporaryDirectory("earshot-format-conflict")
        for (arguments, file, format) in [
            (["transcribe", "--recognizer", "pocketsphinx", clip], "talk.json", "srt"),
            (["vad", "--detector", "energy", clip], "speech.rttm", "csv"),
            (["level", clip], "levels.csv", "json"),
            (["endpoint", clip], "events.txt", "json"),
        ] {
            let path = directory.file(file)
            let run = try earshot(arguments + ["--format", format, "-o", path])
            #expect(run.status == 1, "\(arguments)")
            #expect(
                run.standardError.contains("--format \(format) contradicts -o \(path)"), "\(run.standardError)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
