import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `earshot vad`'s interchange formats, read by the tools they are for: pyannote.database's RTTM
/// loader, kaldiio on a Kaldi data directory (with validate_data_dir.sh's rules), and NeMo's manifest
/// rules — the Python readers `make interchange-readers` installs into `.earshot/venv`.
@Suite(.computing) struct InterchangeFormatTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let utterance = root.appendingPathComponent("corpora/synthetic/sample/audio/syn-015.wav").path
    static let other = root.appendingPathComponent("corpora/synthetic/sample/audio/syn-037.wav").path

    /// Runs one of Tests/Python's readers in the venv and returns the JSON it prints.
    static func read(_ script: String, _ arguments: String...) throws -> Any {
        let python = root.appendingPathComponent(".earshot/venv/bin/python").path
        try #require(
            FileManager.default.isExecutableFile(atPath: python),
            "\(python) is missing: `make interchange-readers` installs the readers there")
        let run = try ExternalTool.run(
            [python, root.appendingPathComponent("Tests/Python/\(script)").path] + arguments)
        try #require(run.status == 0, "\(script) refused it: \(run.standardError)")
        return try JSONSerialization.jsonObject(with: run.standardOutput)
    }

    static func vad(_ arguments: String...) throws -> ExternalTool.Result {
        let result = try ExternalTool.run([ExternalTool.earshotPath, "vad", "--detector", "spectral"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        return result
    }

    /// A copy of the sample named with spaces, and the sample's CSV segments (start, end).
    static func spacedCopy(in directory: TemporaryDirectory) throws -> (path: String, segments: [[Double]]) {
        let spaced = directory.file("my talk.wav")
        try FileManager.default.copyItem(atPath: utterance, toPath: spaced)
        let csv = try vad(spaced)
        let segments = csv.output.split(separator: "\n").dropFirst().map {
            $0.split(separator: ",").compactMap { Double($0) }
        }
        #expect(segments.count >= 2, "the sample has pauses: several segments")
        return (spaced, segments)
    }

    @Test func pyannoteReadsTheRTTMOfAFileNamedWithSpaces() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (spaced, segments) = try Self.spacedCopy(in: directory)
        let rttm = try directory.write(Array(try Self.vad("--format", "rttm", spaced).output.utf8), to: "hyp.rttm")

        let annotations = try #require(try Self.read("pyannote_rttm.py", rttm) as? [String: [[Double]]])
        #expect(Array(annotations.keys) == ["my%20talk"], "the uri is the escaped id")
        #expect("my%20talk".removingPercentEncoding == "my talk")
        let read = try #require(annotations["my%20talk"])
        #expect(read.count == segments.count)
        for (got, want) in zip(read, segments) {
            #expect(abs(got[0] - want[0]) < 1e-9 && abs(got[1] - want[1]) < 1e-6, "\(got) vs \(want)")
        }
    }

    @Test func kaldiioReadsTheDataDirectoryAndItsIdsAreTheRTTMOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (spaced, segments) = try Self.spacedCopy(in: directory)
        let data = directory.file("data/test")
        _ = try Self.vad("--kaldi-dir", data, spaced, Self.other)
        #expect(
            (try FileManager.default.contentsOfDirectory(atPath: data)).sorted()
                == ["segments", "spk2utt", "utt2spk", "wav.scp"])

        let report = try #require(try Self.read("kaldi_data_dir.py", data) as? [String: [Any]])
        let mine = report.filter { $0.key.hasPrefix("my%20talk-") }.sorted { $0.key < $1.key }
        #expect(mine.count == segments.count)
        #expect(report.values.contains { $0[0] as? String == "syn-037" })
        for ((id, row), want) in zip(mine, segments) {
            #expect(row[0] as? String == "my%20talk")
            let start = try #require(row[1] as? Double), end = try #require(row[2] as? Double)
            #expect(abs(start - want[0]) < 1e-9 && abs(end - want[1]) < 1e-9, "\(id)")
            // kaldiio cut exactly the segment's samples out of the recording.
            #expect(row[3] as? Int == Int((end * 16_000).rounded()) - Int((start * 16_000).rounded()), "\(id)")
        }

        // The recording id is the one vad --format rttm writes; --format segments is the same file.
        let rttm = try Self.vad("--format", "rttm", spaced)
        #expect(rttm.output.hasPrefix("SPEAKER my%20talk 1 "))
        let alone = try Self.vad("--format", "segments", spaced, Self.other)
        #expect(alone.output == (try String(contentsOfFile: data + "/segments", encoding: .utf8)))
    }

    @Test func nemoManifestFollowsNeMosReaderRules() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (spaced, segments) = try Self.spacedCopy(in: directory)
        let result = try Self.vad("--format", "nemo", spaced)
        let manifest = try directory.write(Array(result.output.utf8), to: "manifest.jsonl")

        let items = try #require(try Self.read("nemo_manifest.py", manifest) as? [[Any]])
        #expect(items.count == segments.count)
        for (item, want) in zip(items, segments) {
            #expect(
                item[0] as? String == URL(fileURLWithPath: spaced).standardizedFileURL.path,
                "an absolute path, spaces as they are")
            let offset = try #require(item[1] as? Double), duration = try #require(item[2] as? Double)
            #expect(abs(offset - want[0]) < 1e-9 && abs(offset + duration - want[1]) < 1e-9)
        }
    }

    @Test func manifestsRefuseStandardInputAndSharedIds() throws {
        // Refused before anything is read (so nothing is written to its standard input).
        for arguments in [["--format", "nemo", "-"], ["--kaldi-dir", "/tmp/never-made", "-"]] {
            let result = try ExternalTool.run([ExternalTool.earshotPath, "vad", "--detector", "spectral"] + arguments)
            #expect(result.status == 1)
            #expect(result.standardError.contains("give files, not - (stdin)"), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-made"))

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let twin = directory.file("syn-015.flac")
        try FileManager.default.copyItem(atPath: Self.utterance, toPath: twin)
        let result = try ExternalTool.run([
            ExternalTool.earshotPath, "vad", "--detector", "spectral", "--format", "segments", Self.utterance, twin,
        ])
        #expect(result.status == 1)
        #expect(result.standardError.contains("would share the recording id syn-015"), "\(result.standardError)")
    }
}
