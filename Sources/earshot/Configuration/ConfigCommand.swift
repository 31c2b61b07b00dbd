import ArgumentParser
import Foundation
import Synchronization

/// `earshot config show [COMMAND…]`: the settings the config files and `EARSHOT_…` variables give,
/// each with where it came from, as `git config --show-origin` prints them.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the settings config files and EARSHOT_… variables give, and their origins.",
        discussion: """
            Files: --config FILE (before or after the command), else $EARSHOT_CONFIG, else \
            $XDG_CONFIG_HOME/earshot/config.yaml (~/.config/earshot/config.yaml) over \
            /etc/earshot/config.yaml. YAML or JSON, a section per command whose keys are its long option \
            names, and shared sections (service, recognizer, detector, endpointing) for option groups:

              transcribe:
                format: srt
              endpointing:
                endingSilenceThreshold: 0.5
              vad:
                detector: energy
              serve:
                port: 8080

            A variable EARSHOT_<SECTION>_<KEY> (EARSHOT_SERVE_PORT, \
            EARSHOT_TRANSCRIBE_ENDING_SILENCE_THRESHOLD) overrides the files, and an option on the command \
            line overrides both. Unknown sections and keys, and values of the wrong type, are refused naming \
            the file and key; secret and token only in a file of mode 600.

            Examples:
              earshot config show
              earshot config show transcribe
              earshot --config team.yaml config show serve
            """,
        subcommands: [Show.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each setting with its origin: one command's every option, or everything set.")

        @Argument(
            help: ArgumentHelp("A command (transcribe, lm build, …): list all its options.", valueName: "command"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { return }
            let tree = Settings.current.withLock { $0?.tree } ?? CommandTree(of: Earshot.self)
            guard let node = tree.command(at: command), !node.options.isEmpty else {
                throw ValidationError(
                    "'\(command.joined(separator: " "))' is not a command with options (earshot --help lists them)")
            }
        }

        func run() throws {
            let settings =
                try Settings.current.withLock { $0 }
                ?? Settings.load(
                    configFlag: nil, environment: ProcessInfo.processInfo.environment,
                    tree: CommandTree(of: Earshot.self))
            for file in settings.files { print("# read \(file.path)") }
            for path in settings.absent { print("# absent \(path)") }
            if command.isEmpty {
                for value in try Self.everySetting(settings) { print(Self.line(value)) }
                return
            }
            let node = settings.tree.command(at: command)!
            for option in node.options {
                if let value = try settings.value(of: option, for: node) {
                    print(Self.line(value, as: node.section))
                } else {
                    print("default\t\(node.section).\(option.key)=\(option.shownDefault)")
                }
            }
        }

        /// Every value the environment and the files set, each section's options in turn.
        static func everySetting(_ settings: Settings) throws -> [Settings.Value] {
            var values: [Settings.Value] = []
            for section in settings.sections {
                for option in settings.options(ofSection: section) ?? [] {
                    let (name, text) = settings.environmentValue(section: section, key: option.key)
                    if let text {
                        values.append(
                            .init(section: section, key: option.key, values: [text], origin: .environment(name)))
                    }
                    for file in settings.files {
                        guard let given = try settings.value(of: option, section: section, in: file) else { continue }
                        values.append(.init(section: section, key: option.key, values: given, origin: .file(file.path)))
                    }
                }
            }
            return values
        }

        static func line(_ value: Settings.Value, as section: String? = nil) -> String {
            let shown = Settings.secretKeys.contains(value.key) ? "(secret)" : value.values.joined(separator: ",")
            let origin: String
            switch value.origin {
            case .environment(let name): origin = "env:" + name
            case .file(let path): origin = "file:" + path
            }
            let via = section.map { $0 == value.section ? "" : " (from \(value.section))" } ?? ""
            return "\(origin)\t\(section ?? value.section).\(value.key)=\(shown)\(via)"
        }
    }
}
