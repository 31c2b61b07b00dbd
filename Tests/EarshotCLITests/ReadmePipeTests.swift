import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The README's pipe examples (`sox … | earshot …`, `ffmpeg … | earshot …`), taken from README.md
/// itself and run as printed by bash, in a folder holding the files they name, made from a LibriVox
/// clip: what a user pastes works.
@Suite(.computing) struct ReadmePipeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"

    /// Lines of README.md's shell blocks that pipe into earshot, without their comments.
    static func pipeExamples() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var inShell = false
        var examples: [String] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShell = line == "```sh"
                continue
            }
            guard inShell, line.contains("| earshot ") else { continue }
            let command = line.split(separator: "#", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces)
            examples.append(command)
        }
        return examples
    }

    @Test func theReadmesPipeExamplesRunAsPrinted() throws {
        let examples = try Self.pipeExamples()
        #expect(examples.contains { $0.hasPrefix("sox ") } && examples.contains { $0.hasPrefix("ffmpeg ") })
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Every input file the examples name, made from the clip by extension.
        let quiet = ["ffmpeg", "-loglevel", "error", "-y", "-i", Self.clip]
        for example in examples {
            let words = example.split(separator: " ")
            for (index, word) in words.enumerated() where word.contains(".") && !word.hasPrefix("-") {
                // What an example writes (`> out.l16`, `-o out.wav`) is not an input to make.
                if index > 0, [">", "-o"].contains(words[index - 1]) { continue }
                let path = directory.file(String(word))
                guard !FileManager.default.fileExists(atPath: path) else { continue }
                let made = try ExternalTool.run(quiet + [path])
                try #require(made.status == 0, "making \(word): \(made.standardError)")
            }
        }
        let binaries = URL(fileURLWithPath: ExternalTool.earshotPath).deletingLastPathComponent().path
        for example in examples {
            let run = try ExternalTool.run(
                ["bash", "-o", "pipefail", "-c", "cd \"$DIR\" && " + example],
                environment: [
                    "DIR": directory.path, "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                ])
            #expect(run.status == 0, "\(example): \(run.standardError)")
            if let redirect = example.range(of: " > ") {
                // Standard output goes to a file: that file holds what it printed.
                let target = example[redirect.upperBound...].split(separator: " ")[0]
                let size = (try? FileManager.default.attributesOfItem(atPath: directory.file(String(target)))[.size]) as? Int
                #expect((size ?? 0) > 0, "\(example) wrote nothing to \(target)")
            } else {
                #expect(!run.output.isEmpty, "\(example) printed nothing")
            }
            if example.contains("transcribe") { #expect(run.output.contains("not an"), "\(run.output)") }
            if example.contains(" level ") { #expect(run.output.hasPrefix("start_s\trms_dbfs\tpeak_dbfs\tclipped\n")) }
        }
    }
}
