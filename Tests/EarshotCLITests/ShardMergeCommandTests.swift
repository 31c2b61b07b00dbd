import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `--shard I/N` and `--merge` on the CLI: three shards merged print what one run prints, byte for byte,
/// and parts that do not belong together are refused naming the file and the field.
@Suite(.computing) struct ShardMergeCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// The four committed sample corpora as one corpus of 7 files (one folder each, tags kept), so three
    /// shards get 3, 2 and 2 files of mixed sources, with and without speech.
    static func makeCorpus(in directory: TemporaryDirectory) throws -> String {
        let corpus = directory.file("corpus")
        var manifest = ""
        for name in ["real", "synthetic", "noisy", "long"] {
            let sample = repository.appendingPathComponent("corpora/\(name)/sample").path
            try FileManager.default.createDirectory(atPath: corpus + "/" + name, withIntermediateDirectories: true)
            for file in try FileManager.default.contentsOfDirectory(atPath: sample + "/audio") {
                try FileManager.default.copyItem(atPath: sample + "/audio/" + file, toPath: "\(corpus)/\(name)/\(file)")
            }
            manifest += try String(contentsOfFile: sample + "/manifest.jsonl", encoding: .utf8)
                .replacingOccurrences(of: "\"path\":\"audio/", with: "\"path\":\"\(name)/")
        }
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: corpus + "/manifest.jsonl"))
        return corpus
    }

    /// Runs `command` (its options, then `corpus`) as shards 1…count, each writing its part; returns the paths.
    static func shards(
        _ command: String, _ options: [String], corpus: String, count: Int, into directory: TemporaryDirectory,
        name: String = "part"
    ) throws -> [String] {
        try (1...count).map { index in
            let path = directory.file("\(name).\(index).json")
            let result = try earshot([command] + options + ["--shard", "\(index)/\(count)", "-o", path, corpus])
            #expect(result.status == 0, "shard \(index): \(result.standardError)")
            return path
        }
    }

    @Test func evalShardsMergeIntoExactlyOneRunsReport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let corpus = try Self.makeCorpus(in: directory)
        // Predictions files make the run deterministic to the byte (no CPU time is measured).
        let predictions = directory.file("predictions")
        let files = try FileManager.default.subpathsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".wav") }
        let vad = try Self.earshot(
            ["vad", "--detector", "spectral", "--out", predictions] + files.map { corpus + "/" + $0 })
        #expect(vad.status == 0, "\(vad.standardError)")
        let options = ["--predictions", predictions, "--group-by", "source", "--endingSilence", "0.5"]
        let parts = try Self.shards("eval", options, corpus: corpus, count: 3, into: directory)
        for format in [["--format", "text"], ["--format", "json", "--utterances", "--pr-curve"]] {
            let single = try Self.earshot(["eval"] + options + format + [corpus])
            let merged = try Self.earshot(["eval", "--merge"] + parts.reversed() + format)
            #expect(single.status == 0 && merged.status == 0, "\(merged.standardError)")
            #expect(!single.output.isEmpty && merged.output == single.output, "\(format)")
        }
        // Into a file, through the atomic output.
        let report = directory.file("eval.json")
        #expect(try Self.earshot(["eval", "--merge"] + parts + ["--format", "json", "-o", report]).status == 0)
        #expect(
            FileManager.default.contents(atPath: report)
                == (try Self.earshot(["eval", "--format", "json"] + options + [corpus])).standardOutput)
    }

    /// With detectors every figure matches too; only speed, a measurement of CPU time, differs run to run.
    @Test func evalWithADetectorMatchesButForSpeed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let corpus = try Self.makeCorpus(in: directory)
        let options = ["--detector", "energy", "spectral", "--jobs", "1"]
        let parts = try Self.shards("eval", options, corpus: corpus, count: 3, into: directory)
        let single = try Self.earshot(["eval", "--format", "json"] + options + [corpus])
        let merged = try Self.earshot(["eval", "--merge"] + parts + ["--format", "json"])
        let speed = try Regex(#""speed_x_realtime" : [0-9.e+]+"#)
        #expect(single.status == 0 && merged.status == 0, "\(merged.standardError)")
        #expect(merged.output.replacing(speed, with: "") == single.output.replacing(speed, with: ""))
        #expect(merged.output.contains("\"speed_x_realtime\" : "), "speed is the parts' audio over their CPU time")
    }

    @Test func sweepShardsMergeIntoExactlyOneRunsTable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let corpus = try Self.makeCorpus(in: directory)
        let options = ["--grid", "detector=energy,spectral", "--grid", "endingSilence=0.3:1.1:0.2", "--jobs", "1"]
        let parts = try Self.shards("sweep", options, corpus: corpus, count: 3, into: directory)
        for format in ["csv", "json"] {
            let single = try Self.earshot(["sweep", "--format", format] + options + [corpus])
            let merged = try Self.earshot(["sweep", "--merge"] + parts + ["--format", format])
            #expect(single.status == 0 && merged.status == 0, "\(merged.standardError)")
            #expect(!single.output.isEmpty && merged.output == single.output, "\(format)")
        }
        // The Pareto column is over all rows: a shard's own rows would mark others.
        let csv = try Self.earshot(["sweep", "--merge"] + parts).output
        #expect(csv.split(separator: "\n").count == 11 && csv.contains(",1,"))
    }

    @Test func partsOfDifferentRunsAMissingOrRepeatedShardAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let corpus = try Self.makeCorpus(in: directory)
        let options = ["--grid", "endingSilence=0.3,0.6,0.9", "--detector", "energy", "--jobs", "1"]
        let parts = try Self.shards("sweep", options, corpus: corpus, count: 3, into: directory)
        let other = try Self.shards(
            "sweep", options + ["--maxInitialSilence", "2"], corpus: corpus, count: 3, into: directory, name: "other")
        let four = try Self.shards("sweep", options, corpus: corpus, count: 4, into: directory, name: "four")
        let eval = try Self.shards(
            "eval", ["--detector", "energy"], corpus: corpus, count: 3, into: directory, name: "eval")

        func refused(_ arguments: [String], status: Int32, mentions: [String]) throws {
            let result = try Self.earshot(arguments)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.output.isEmpty)
            for text in mentions { #expect(result.standardError.contains(text), "\(result.standardError)") }
        }
        try refused(
            ["sweep", "--merge", parts[0], other[1], parts[2]], status: 2,
            mentions: [other[1], "parameters.maxInitialSilence", "different runs"])
        try refused(["sweep", "--merge", parts[0], parts[1], four[2]], status: 2, mentions: [four[2], "'shard'"])
        try refused(["sweep", "--merge", parts[0], parts[2]], status: 1, mentions: ["shard 2/3 missing"])
        try refused(["sweep", "--merge", parts[0], parts[1], parts[1], parts[2]], status: 1, mentions: ["given twice"])
        try refused(["sweep", "--merge"] + eval, status: 2, mentions: [eval[0], "'kind'", "earshot.sweep.partial"])
        try refused(["eval", "--merge"] + eval + ["--detector", "spectral"], status: 1, mentions: ["--detector"])

        // A part of another corpus (same files, one label moved) differs in its manifest's SHA-256.
        let manifest = corpus + "/manifest.jsonl"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\"end_s\":1.733", with: "\"end_s\":1.743").utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let moved = try Self.shards("sweep", options, corpus: corpus, count: 3, into: directory, name: "moved")
        try refused(
            ["sweep", "--merge", parts[0], parts[1], moved[2]], status: 2, mentions: [moved[2], "corpus_sha256"])

        // Nothing is written where the merge would have put its report.
        let report = directory.file("report.csv")
        try refused(["sweep", "--merge", parts[0], parts[1], "-o", report], status: 1, mentions: ["3/3 missing"])
        #expect(!FileManager.default.fileExists(atPath: report))
    }

    @Test(arguments: ["0/3", "4/3", "1/0", "x", "1/", "/3", "-1/3", "1/3/3"])
    func aBadShardIsAUsageError(shard: String) throws {
        for command in [["eval", "--detector", "energy"], ["sweep", "--grid", "endingSilence=0.5"]] {
            let result = try Self.earshot(command + ["--shard", shard, Self.repository.path + "/corpora/real/sample"])
            #expect(result.status == 1, "\(command) --shard \(shard): \(result.standardError)")
            #expect(result.standardError.contains("--shard"), "\(result.standardError)")
        }
    }

    /// `vad --out`: the shards write into one folder exactly the files one run writes.
    @Test func vadShardsWriteOneRunsFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let corpus = try Self.makeCorpus(in: directory)
        let files = try FileManager.default.subpathsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".wav") }
            .map { corpus + "/" + $0 }
        for index in 1...3 {
            let result = try Self.earshot(
                ["vad", "--detector", "energy", "--shard", "\(index)/3", "--out", directory.file("sharded")] + files)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let single = try Self.earshot(["vad", "--detector", "energy", "--out", directory.file("single")] + files)
        #expect(single.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("single")).sorted()
        #expect(names.count == 14)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("sharded")).sorted() == names)
        for name in names {
            #expect(
                FileManager.default.contents(atPath: directory.file("sharded/" + name))
                    == FileManager.default.contents(atPath: directory.file("single/" + name)), "\(name)")
        }
    }
}
