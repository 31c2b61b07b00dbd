import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot corpus build` as users run it: each build its own process.
@Suite(.computing) struct CorpusBuildCommandTests {
    /// Builds `recipe` twice, each in its own process, and returns both folders' files by path.
    private func buildTwice(_ arguments: [String], environment: [String: String] = [:]) throws -> [[String: Data]] {
        var builds: [[String: Data]] = []
        for _ in 0..<2 {
            let directory = try TemporaryDirectory("earshot-corpus-build")
            defer { directory.remove() }
            let result = try ExternalTool.run(
                [ExternalTool.earshotPath, "corpus", "build"] + arguments + ["--out", directory.path],
                environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            var files: [String: Data] = [:]
            let root = URL(fileURLWithPath: directory.path)
            for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
                var isDirectory: ObjCBool = false
                let url = root.appendingPathComponent(path)
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    files[path] = try Data(contentsOf: url)
                }
            }
            builds.append(files)
        }
        return builds
    }

    /// The synthetic corpus is spoken in-process (eSpeak NG and Flite through the synthesis stage):
    /// it builds with no program on PATH, every voice of the recipe speaks (ten utterances cover all
    /// nine), and two builds from one seed are byte-identical.
    @Test func theSyntheticCorpusIsSpokenInProcessAndRebuildsByteIdentical() throws {
        let builds = try buildTwice(
            ["synthetic", "--limit", "10", "--seed", "5"], environment: ["PATH": "/nonexistent"])
        #expect(builds[0].count == 11)
        #expect(builds[0] == builds[1])
        let manifest = String(decoding: builds[0]["manifest.jsonl"] ?? Data(), as: UTF8.self)
        let voices = Set(
            manifest.split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                let tags = object?["tags"] as? [String: String]
                return tags.map { "\($0["source"] ?? ""):\($0["voice"] ?? "")" }
            })
        #expect(voices.count == 9)
        #expect(voices.contains("flite:kal16") && voices.contains("espeak-ng:en-gb+f3"))
    }

    /// The noisy corpus, which speaks the synthetic utterances again and renders music with
    /// fluidsynth, rebuilds byte-identical too.
    @Test func theNoisyCorpusRebuildsByteIdentical() throws {
        let builds = try buildTwice(["noisy", "--limit", "1", "--seed", "5"])
        #expect(builds[0].count >= 4)
        #expect(builds[0] == builds[1])
    }
}
