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
        guard let root = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any],
            let command = root["command"] as? [String: Any]
        else { throw CocoaError(.propertyListReadCorrupt) }
        var options: [Option] = []
        func walk(_ command: [String: Any], path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard let name = (argument["preferredName"] as? [String: Any])?["name"] as? String else { continue }
                let help = [argument["abstract"], argument["discussion"]].compactMap { $0 as? String }
                    .joined(separator: " ")
                let names = argument["names"] as? [[String: Any]] ?? []
                let long = names.filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
                options.append(
                    Option(
                        command: path.joined(separator: " "), name: name, longNames: long,
                        isRepeating: argument["isRepeating"] as? Bool ?? false,
                        defaultValue: argument["defaultValue"] as? String, help: help))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path: path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(command, path: [])
        self.options = options
    }

    public func option(_ command: String, _ name: String) -> Option? {
        options.first { $0.command == command && $0.name == name }
    }

    /// The parser's default of `command --name` as a number.
    public func numericDefault(_ command: String, _ name: String) -> Double? {
        option(command, name)?.defaultValue.flatMap(Double.init)
    }
}
