import ArgumentParser
import EarshotCore
import EarshotModels
import Foundation

/// `earshot models`: where the default models were found (or not), each pinned file's SHA-256 verdict,
/// and `earshot models fetch` to install them for an installed binary as `make models` does in a checkout.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the models Earshot finds, where, and whether each file matches its pinned SHA-256.",
        discussion: """
            A model is taken from its flag (--vad-model, --whisper-model, which the config file can set), \
            else its environment variable ($EARSHOT_VAD_MODEL, $EARSHOT_WHISPER_MODEL), else the first \
            model folder holding it: $XDG_DATA_HOME/earshot/models (~/.local/share/earshot/models), then \
            share/earshot/models beside the binary's bin/ (where make install puts them), then the \
            repository's .earshot/models (where make models puts them).

            Exit status 0 when every model is found and each pinned file matches; 3 when one is missing or \
            a file found by the search does not match (a model named by flag or variable may be another \
            model: it is reported as "other", not an error).

            Examples:
              earshot models
              earshot models --format json
              earshot models fetch
            """,
        subcommands: [List.self, Fetch.self], defaultSubcommand: List.self)
}

extension Models {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the models found and verify their files (the default).")

        enum Format: String, ExpressibleByArgument, CaseIterable { case txt, json }

        @Option(
            name: .customLong("vad-model"),
            help: ArgumentHelp("Silero VAD's file, as other commands take it.", valueName: "path"))
        var vadModel: String?

        @Option(
            name: .customLong("whisper-model"),
            help: ArgumentHelp("A Whisper model folder, as other commands take it.", valueName: "dir"))
        var whisperModel: String?

        @Option(name: .shortAndLong, help: "Output format: txt or json.")
        var format: Format = .txt

        func run() throws {
            let places = ModelSearch.places()
            let reports = ModelReport.all(
                vadModel: vadModel, whisperModel: whisperModel, environment: ProcessInfo.processInfo.environment,
                places: places)
            switch format {
            case .txt: print(ModelReport.text(reports, places: places), terminator: "")
            case .json:
                print(
                    try JSONOutput.encode(
                        ModelsDocument(schemaVersion: JSONOutput.schemaVersion, models: reports, searched: places)),
                    terminator: "")
            }
            if reports.contains(where: \.failed) { throw ExitCode(ExitStatus.recognizer.rawValue) }
        }
    }
}
