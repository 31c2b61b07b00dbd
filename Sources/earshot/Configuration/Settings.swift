import ArgumentParser
import Configuration
import EarshotCore
import Foundation
import Synchronization

/// Where a command's settings come from besides its command line, in precedence order: `EARSHOT_…`
/// environment variables, then the config files. The command line wins over both, and both over the
/// built-in defaults; within each, a command's own section wins over a shared one.
///
/// Keys are the commands' long option names, in a section per command (`transcribe:`, `lm.build:` as
/// `lm: {build: …}`), or in a section several commands share (`service:`, `recognizer:`, `detector:`,
/// `endpointing:`, each the options of one option group). A variable is `EARSHOT_` + section + key in
/// upper case with `_` between words: `EARSHOT_TRANSCRIBE_ENDING_SILENCE_THRESHOLD`, `EARSHOT_SERVE_PORT`.
struct Settings: Sendable {
    /// One value and where it came from.
    struct Value: Sendable {
        let section: String
        let key: String
        /// Scalars as written; a list for a repeatable option; `true`/`false` for a flag.
        let values: [String]
        let origin: Origin
    }

    enum Origin: Sendable, Equatable, CustomStringConvertible {
        case environment(String)
        case file(String)

        var description: String {
            switch self {
            case .environment(let name): "$" + name
            case .file(let path): path
            }
        }
    }

    /// The config files read, highest precedence first, and the ones looked for but absent.
    let files: [ConfigurationFile]
    let absent: [String]
    let environment: [String: String]
    let tree: CommandTree
    /// swift-configuration's reader of `environment`, made once (it is asked for every option).
    private let environmentProvider: EnvironmentVariablesProvider

    init(files: [ConfigurationFile], absent: [String], environment: [String: String], tree: CommandTree) {
        self.files = files
        self.absent = absent
        self.environment = environment
        self.tree = tree
        environmentProvider = EnvironmentVariablesProvider(environmentVariables: environment)
    }

    /// Sections several commands share, each the options of one option group.
    static let sharedGroups: [(name: String, group: any ParsableArguments.Type)] = [
        ("service", ServiceOptions.self), ("recognizer", RecognizerOptions.self), ("detector", VADModelOptions.self),
        ("endpointing", EndpointingOptions.self),
    ]
    static let sharedSections: [(name: String, options: [CommandTree.Option])] = sharedGroups.map {
        ($0.name, CommandTree.options(of: $0.group))
    }

    /// Whether any source of settings exists: `--config`, `$EARSHOT_CONFIG`, a config file where one is
    /// looked for (readable or not: reading it reports why not), or an `EARSHOT_` variable whose next
    /// word begins a section's name (`EARSHOT_TRANSCRIBE_…`, `EARSHOT_SERVICE_…`). When none does, there is
    /// nothing to add to a command line, and the command tree (a third of a bare start-up's CPU) is not built.
    static func anySource(
        configFlag: String?, environment: [String: String], commands: [String], fileExists: (String) -> Bool
    ) -> Bool {
        let candidates = candidateFiles(flag: configFlag, environment: environment)
        if candidates.contains(where: { $0.required || fileExists($0.path) }) { return true }
        let words = Set(
            (commands + sharedGroups.map(\.name)).map { name in
                name.split(whereSeparator: { $0 == "-" || $0 == "." }).first.map { $0.uppercased() } ?? ""
            })
        return environment.keys.contains { name in
            guard name.hasPrefix("EARSHOT_") else { return false }
            let word = name.dropFirst("EARSHOT_".count).prefix { $0 != "_" }
            return words.contains(String(word))
        }
    }

    /// Keys whose values are secrets: refused in a file others can read, never printed.
    static let secretKeys: Set<String> = ["secret", "token"]

    /// The settings this process runs with (set once by `main` before the command is parsed).
    static let current = Mutex<Settings?>(nil)
    /// What the config and environment added to the command line (for `config show` and messages).
    static let injected = Mutex<[Value]>([])
    /// The command line as given, without `--config FILE`, and that file: what a reload reads again.
    static let invocation = Mutex<(arguments: [String], configFlag: String?)>(([], nil))

    /// The files to read: `--config FILE`, else `$EARSHOT_CONFIG`, else the user's
    /// `$XDG_CONFIG_HOME/earshot/config.yaml` (`~/.config/…`) over the system's `/etc/earshot/config.yaml`.
    static func candidateFiles(flag: String?, environment: [String: String]) -> [(path: String, required: Bool)] {
        if let flag { return [(flag, true)] }
        if let given = environment["EARSHOT_CONFIG"], !given.isEmpty { return [(given, true)] }
        var files: [(String, Bool)] = []
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            files.append((config + "/earshot/config.yaml", false))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            files.append(((home == "/" ? "" : home) + "/.config/earshot/config.yaml", false))
        }
        files.append(("/etc/earshot/config.yaml", false))
        return files
    }

    /// Reads and checks the files: every key must name a section and one of its options, a flag must be
    /// true or false, and a secret may stand only in a file of mode 600.
    static func load(configFlag: String?, environment: [String: String], tree: CommandTree) throws -> Settings {
        var files: [ConfigurationFile] = []
        var absent: [String] = []
        for (path, required) in candidateFiles(flag: configFlag, environment: environment) {
            if let file = try ConfigurationFile.read(path, required: required) {
                files.append(file)
            } else {
                absent.append(path)
            }
        }
        let settings = Settings(files: files, absent: absent, environment: environment, tree: tree)
        let sections = settings.sections
        for file in files {
            for key in file.keys { try settings.check(key, in: file, sections: sections) }
        }
        return settings
    }

    /// Every section name: the commands' (with options) and the shared ones.
    var sections: [String] {
        tree.root.all.filter { !$0.path.isEmpty && !$0.options.isEmpty }.map(\.section)
            + Self.sharedSections.map(\.name)
    }

    /// The options a section accepts.
    func options(ofSection section: String) -> [CommandTree.Option]? {
        if let shared = Self.sharedSections.first(where: { $0.name == section }) { return shared.options }
        return tree.command(at: section.split(separator: ".").map(String.init))?.options
    }

    private func check(_ dotted: String, in file: ConfigurationFile, sections known: [String]) throws {
        let components = dotted.split(separator: ".").map(String.init)
        guard
            let sectionLength = (1..<max(components.count, 1)).reversed().first(where: {
                known.contains(components.prefix($0).joined(separator: "."))
            })
        else {
            let first = components[0]
            throw EarshotError(
                .invalidParameter,
                "\(file.path): '\(first)' is not a section\(Self.suggestion(first, among: known)); expected a command "
                    + "(transcribe, vad, endpoint, serve, …) or a shared section (service, recognizer, detector, endpointing)"
            )
        }
        let section = components.prefix(sectionLength).joined(separator: ".")
        let key = components.dropFirst(sectionLength).joined(separator: ".")
        let options = options(ofSection: section) ?? []
        guard let option = options.first(where: { $0.keys.contains(key) }) else {
            throw EarshotError(
                .invalidParameter,
                "\(file.path): \(dotted): \(section) has no option --\(key)\(Self.suggestion(key, among: options.map(\.key))) "
                    + "(keys are long option names: earshot \(section.replacingOccurrences(of: ".", with: " ")) --help lists them)"
            )
        }
        if Self.secretKeys.contains(key), !file.isPrivate {
            throw EarshotError(
                .invalidParameter,
                "\(file.path): \(dotted): a secret in a file others can read; chmod 600 the file, or set it in the environment"
            )
        }
        _ = try value(of: option, at: components, in: file)
    }

    /// The value of `option` at `key` in `file`, checked for the option's shape.
    func value(of option: CommandTree.Option, at key: [String], in file: ConfigurationFile) throws -> [String]? {
        if option.isFlag {
            guard case .bool(let flag)? = try file.value(key, as: .bool, expected: "true or false") else { return nil }
            return [flag ? "true" : "false"]
        }
        if option.isRepeating, case .stringArray(let list)? = try? file.value(key, as: .stringArray, expected: "a list")
        {
            return list
        }
        let expected = option.isRepeating ? "a value or a list of values" : "a single value (not a list or a section)"
        guard case .string(let text)? = try file.value(key, as: .string, expected: expected) else { return nil }
        return [text]
    }

    /// The variable that sets `key` of `section` (`EARSHOT_TRANSCRIBE_FORMAT`), by swift-configuration's
    /// environment key encoding, and its value if set.
    func environmentValue(section: String, key: String) -> (name: String, value: String?) {
        let components = ["earshot"] + section.split(separator: ".").map(String.init) + [key]
        let result = try? environmentProvider.value(forKey: AbsoluteConfigKey(components), type: .string)
        let name = result?.encodedKey ?? components.joined(separator: "_").uppercased()
        if case .string(let text)? = result?.value?.content, !text.isEmpty { return (name, text) }
        return (name, nil)
    }

    /// The value `command`'s option takes from the environment or the files, if any: the command's
    /// section before the shared ones, the environment before the files.
    func value(of option: CommandTree.Option, for command: CommandTree.Command) throws -> Value? {
        let shared = Self.sharedSections.filter { $0.options.contains { $0.key == option.key } }.map(\.name)
        let sections = [command.section] + shared
        for section in sections {
            let (name, text) = environmentValue(section: section, key: option.key)
            guard let text else { continue }
            let values: [String]
            if option.isFlag {
                guard let flag = Self.boolean(text) else {
                    throw EarshotError(.invalidParameter, "$\(name): expected true or false, found '\(text)'")
                }
                values = [flag ? "true" : "false"]
            } else {
                values = option.isRepeating ? text.split(separator: ",").map(String.init) : [text]
            }
            return Value(section: section, key: option.key, values: values, origin: .environment(name))
        }
        for file in files {
            for section in sections {
                guard let values = try value(of: option, section: section, in: file) else { continue }
                return Value(section: section, key: option.key, values: values, origin: .file(file.path))
            }
        }
        return nil
    }

    /// The value `file` gives `option` in `section`, under any of its names (``CommandTree/Option/keys``).
    func value(of option: CommandTree.Option, section: String, in file: ConfigurationFile) throws -> [String]? {
        for name in option.keys {
            let key = section.split(separator: ".").map(String.init) + [name]
            guard file.keys.contains(key.joined(separator: ".")) else { continue }
            return try value(of: option, at: key, in: file)
        }
        return nil
    }

    /// The arguments the settings add for `command`, given the command's own `arguments`: one
    /// `--key=value` per option the command line leaves out (a flag: `--flag` or `--no-flag`).
    func injections(for command: CommandTree.Command, arguments: some Collection<String>) throws -> [(Value, [String])]
    {
        let own = arguments.prefix { $0 != "--" }
        var added: [(Value, [String])] = []
        for option in command.options where !option.isGiven(in: own) {
            guard let value = try value(of: option, for: command) else { continue }
            let arguments: [String]
            if option.isFlag {
                arguments = value.values == ["true"] ? ["--" + option.key] : option.negation.map { ["--" + $0] } ?? []
            } else {
                arguments = value.values.map { "--\(option.key)=\($0)" }
            }
            if !arguments.isEmpty { added.append((value, arguments)) }
        }
        return added
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    private static func suggestion(_ name: String, among names: [String]) -> String {
        nearestName(to: name, among: names).map { " (did you mean \($0)?)" } ?? ""
    }
}
