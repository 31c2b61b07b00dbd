import ArgumentParser
import Foundation

/// The commands and their options as the argument parser declares them, read from its own
/// description (`_dumpHelp()`, the JSON `--experimental-dump-help` prints), so the config file and the
/// `EARSHOT_…` variables accept exactly the options the command line does, under the same names.
struct CommandTree: Sendable {
    /// One option or flag of a command.
    struct Option: Sendable, Equatable {
        /// Long names without dashes (`format`, `endingSilenceThreshold`; an inverted flag has both
        /// `timestamps` and `no-timestamps`).
        let longNames: [String]
        /// Short names without the dash (`f`).
        let shortNames: [String]
        let isFlag: Bool
        let isRepeating: Bool
        /// The default the help states, if any.
        let defaultValue: String?
        let help: String?

        /// What `config show` prints as the default: the parser's, else the one the help states in a
        /// word (`Default: 5.`), else `(unset)` — an option whose absence means "decided at run time"
        /// (a model found by search, a recognizer chosen by what is installed).
        var shownDefault: String {
            if let defaultValue { return defaultValue }
            if let help, let range = help.range(of: #"Default: [^ ;,()]+\.(\s|$)"#, options: .regularExpression) {
                let stated = help[range].dropFirst("Default: ".count).trimmingCharacters(in: .whitespaces)
                return String(stated.dropLast())
            }
            return "(unset)"
        }

        /// The config key: the long name, the positive one for an inverted flag.
        var key: String { longNames.first { !$0.hasPrefix("no-") } ?? longNames[0] }

        /// Every name a config file may set it by: ``key`` first, then its other long names (the
        /// kebab-case spelling of an SDK name, `ending-silence`), never the negation.
        var keys: [String] { [key] + longNames.filter { $0 != key && $0 != negation } }

        /// The flag's negative form (`no-timestamps`), if it has one.
        var negation: String? { longNames.first { $0 == "no-" + key } }

        /// Whether `arguments` (a command's own, before any `--`) give this option.
        func isGiven(in arguments: some Collection<String>) -> Bool {
            arguments.contains { argument in
                if argument.hasPrefix("--") {
                    let name = argument.dropFirst(2).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                    return longNames.contains(name)
                }
                guard argument.hasPrefix("-"), argument.count >= 2 else { return false }
                return shortNames.contains(String(argument.dropFirst().prefix(1)))
            }
        }
    }

    /// One command: its path below `earshot` (`["lm", "build"]`), options and subcommands.
    struct Command: Sendable {
        let path: [String]
        let options: [Option]
        let subcommands: [Command]
        let defaultSubcommand: String?

        /// The config section: the path joined with dots (`transcribe`, `lm.build`).
        var section: String { path.joined(separator: ".") }

        func option(forKey key: String) -> Option? { options.first { $0.key == key } }

        /// Every command at or below this one.
        var all: [Command] { [self] + subcommands.flatMap(\.all) }
    }

    let root: Command

    /// Options the parser adds itself, which configure nothing.
    static let builtIn: Set<String> = ["help", "version", "experimental-dump-help", "generate-completion-script"]

    init(root: Command) { self.root = root }

    /// The tree of `command`, and of every subcommand.
    init(of command: any ParsableArguments.Type) {
        let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(command._dumpHelp().utf8))
        root =
            info.map { Self.command($0.command, path: []) }
            ?? Command(path: [], options: [], subcommands: [], defaultSubcommand: nil)
    }

    /// The options of an option group (`ServiceOptions`), for the sections several commands share.
    static func options(of group: any ParsableArguments.Type) -> [Option] { CommandTree(of: group).root.options }

    /// The command `arguments` (without the program name) run, and how many leading arguments name it.
    /// A command with a default subcommand (`models` → `models list`) resolves to that subcommand.
    func command(running arguments: [String]) -> (command: Command, consumed: Int) {
        var command = root
        var consumed = 0
        while consumed < arguments.count,
            let next = command.subcommands.first(where: { $0.path.last == arguments[consumed] })
        {
            command = next
            consumed += 1
        }
        if let name = command.defaultSubcommand,
            let fallback = command.subcommands.first(where: { $0.path.last == name })
        {
            command = fallback
        }
        return (command, consumed)
    }

    func command(at path: [String]) -> Command? { root.all.first { $0.path == path } }

    private static func command(_ info: ToolInfo.CommandInfo, path: [String]) -> Command {
        let options = (info.arguments ?? []).compactMap { argument -> Option? in
            guard argument.kind != "positional", let names = argument.names else { return nil }
            let long = names.filter { $0.kind == "long" }.map(\.name)
            guard !long.isEmpty, Set(long).isDisjoint(with: builtIn) else { return nil }
            return Option(
                longNames: long, shortNames: names.filter { $0.kind == "short" }.map(\.name),
                isFlag: argument.kind == "flag", isRepeating: argument.isRepeating ?? false,
                defaultValue: argument.defaultValue, help: argument.abstract)
        }
        let subcommands = (info.subcommands ?? []).map { command($0, path: path + [$0.commandName]) }
        return Command(
            path: path, options: options, subcommands: subcommands, defaultSubcommand: info.defaultSubcommand)
    }

    /// The part of swift-argument-parser's tool description (ToolInfoV0) read here.
    private struct ToolInfo: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        struct Argument: Decodable {
            let kind: String
            let names: [Name]?
            let isRepeating: Bool?
            let defaultValue: String?
            let abstract: String?
        }
        struct CommandInfo: Decodable {
            let commandName: String
            let defaultSubcommand: String?
            let subcommands: [CommandInfo]?
            let arguments: [Argument]?
        }
        let command: CommandInfo
    }
}
