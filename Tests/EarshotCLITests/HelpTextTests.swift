import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Every command's `--help` in an 80-column terminal: examples do not wrap (a long one is split with
/// a trailing ` \`, as shells take it), and each option shows one default.
@Suite(.computing) struct HelpTextTests {
    static func help(_ command: [String]) throws -> String {
        let result = try ExternalTool.run(
            [ExternalTool.earshotPath] + command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(result.status == 0, "\(command): \(result.standardError)")
        return result.output
    }

    /// The names under SUBCOMMANDS: in a help text.
    static func subcommands(_ text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
        }
    }

    /// Every command and subcommand, as argument lists.
    static func commands() throws -> [[String]] {
        var found: [[String]] = []
        var pending: [[String]] = [[]]
        while let command = pending.popLast() {
            found.append(command)
            pending += subcommands(try help(command)).map { command + [$0] }
        }
        return found
    }

    @Test func examplesFitEightyColumnsAndLongOnesContinueWithABackslash() throws {
        let commands = try Self.commands()
        #expect(commands.contains(["corpus", "export"]) && commands.count > 15)
        for command in commands {
            let lines = try Self.help(command).split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(of: "Examples:") else { continue }
            let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
            #expect(!examples.isEmpty, "\(command)")
            var continues = false
            for line in examples {
                #expect(line.count <= 80, "\(command): \(line)")
                if continues {
                    #expect(line.hasPrefix("    "), "\(command): a continuation is indented: \(line)")
                } else {
                    #expect(line.hasPrefix("  ") && !line.hasPrefix("   "), "\(command): a wrapped example: \(line)")
                }
                continues = line.hasSuffix(" \\")
            }
            #expect(!continues, "\(command): the last example ends with a backslash")
        }
    }

    @Test func jobsShowsOneDefault() throws {
        for command in [["transcribe"], ["eval"], ["sweep"]] {
            let text = try Self.help(command)
            let start = try #require(text.range(of: "--jobs <jobs>"), "\(command)")
            let entry = text[start.lowerBound...].split(separator: "\n").prefix { !$0.isEmpty }
            let option = entry.prefix(while: { $0 == entry.first || $0.hasPrefix("                        ") })
                .joined(separator: " ")
            #expect(option.components(separatedBy: "default").count == 2, "\(command): \(option)")
        }
    }
}
