public import Foundation

/// The options of the built `earshot` as its parser describes them (`--experimental-dump-help`): what
/// tests read to hold the help and the parser's defaults to the library's.
public struct OptionDump: Sendable {
    public struct Option: Sendable {
        /// The command's path below `earshot` (`"serve"`, `"lm build"`).
        public let command: String
        /// The preferred name, without dashes.
        public let name: String
        /// Every long name (an option may have aliases), without dashes.
        public let longNames: [String]
        /// Whether it may be given more than once.
        public let isRepeating: Bool
        public let defaultValue: String?
        /// The abstract and discussion.
        public let help: String
    }

    public let options: [Option]

    /// Runs the `earshot` beside the test bundle and reads every command's options.
    public init() throws {
        let result = try ExternalTool.run([ExternalTool.earshotPath, "--experimental-dump-help"])
        let root = try JSONDecoder().decode(ToolInfo.self, from: result.standardOutput)
        var options: [Option] = []
        func walk(_ command: ToolInfo.CommandInfo, path: [String]) {
            for argument in command.arguments ?? [] {
                guard let name = argument.preferredName?.name else { continue }
                let long = (argument.names ?? []).filter { $0.kind == "long" }.map(\.name)
                options.append(
                    Option(
                        command: path.joined(separator: " "), name: name, longNames: long,
                        isRepeating: argument.isRepeating ?? false, defaultValue: argument.defaultValue,
                        help: [argument.abstract, argument.discussion].compactMap { $0 }.joined(separator: " ")))
            }
            for sub in command.subcommands ?? [] { walk(sub, path: path + [sub.commandName]) }
        }
        walk(root.command, path: [])
        self.options = options
    }

    /// The part of swift-argument-parser's tool description (ToolInfoV0) read here.
    private struct ToolInfo: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        struct Argument: Decodable {
            let preferredName: Name?
            let names: [Name]?
            let isRepeating: Bool?
            let defaultValue: String?
            let abstract: String?
            let discussion: String?
        }
        struct CommandInfo: Decodable {
            let commandName: String
            let subcommands: [CommandInfo]?
            let arguments: [Argument]?
        }
        let command: CommandInfo
    }

    public func option(_ command: String, _ name: String) -> Option? {
        options.first { $0.command == command && $0.name == name }
    }

    /// The parser's default of `command --name` as a number.
    public func numericDefault(_ command: String, _ name: String) -> Double? {
        option(command, name)?.defaultValue.flatMap(Double.init)
    }
}
