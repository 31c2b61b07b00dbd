import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import EarshotVAD
import Foundation

/// `--shard I/N`: do one of N deterministic slices of the work (see ``Shard`` for the rule), as one
/// task of a Slurm job array (`--shard $SLURM_ARRAY_TASK_ID/N`) or any batch scheduler runs it.
struct ShardOptions: ParsableArguments {
    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            "Do only shard I of N (1 ≤ I ≤ N): sorted by path, the I-th, (I+N)-th … item.",
            valueName: "I/N"))
    var text: String?

    /// The shard asked for, once `validate()` has checked it.
    var shard: Shard? { text.flatMap { try? Shard(parsing: $0) } }

    func validate() throws {
        guard let text else { return }
        do {
            _ = try Shard(parsing: text)
        } catch let error as EarshotError {
            throw ValidationError(error.message)
        }
    }

    /// The files a command runs over: all of them, or this shard's (in the order given), saying on
    /// standard error when a shard has none (more shards than files), which is not an error.
    func select(_ files: [String], command: String) -> [String] {
        guard let shard else { return files }
        let selected = shard.select(paths: files)
        if selected.isEmpty {
            FileHandle.standardError.write(
                Data("earshot: \(command): shard \(shard) has no files (\(files.count) in all)\n".utf8))
        }
        return selected
    }

    /// Refuses standard input among sharded files: every shard would read, or skip, the same stream.
    func refuseStandardInput(_ files: [String]) throws {
        if text != nil, files.contains(InputPath.standardStream) {
            throw ValidationError("--shard splits files by path; standard input (-) has none to split by")
        }
    }
}

/// Reading the parts `eval --merge` and `sweep --merge` join: each file (or - for standard input) as a
/// partial result of `command`, checked to come from one run with every shard once.
enum PartialInput {
    static func read<Content>(_ paths: [String], command: String) throws -> [PartialResult<Content>] {
        if paths.filter({ $0 == InputPath.standardStream }).count > 1 {
            throw EarshotError(.invalidParameter, "--merge: standard input (-) can be given only once")
        }
        let parts = try paths.map { path -> (path: String, part: PartialResult<Content>) in
            let data: Data?
            if path == InputPath.standardStream {
                data = try? FileHandle.standardInput.readToEnd() ?? Data()
            } else {
                data = FileManager.default.contents(atPath: path)
            }
            guard let data else {
                throw EarshotError(.invalidInput, "\(path): cannot read this partial result (missing or unreadable)")
            }
            let name = path == InputPath.standardStream ? "stdin" : path
            return (name, try PartialResult<Content>.read(data, path: name, command: command))
        }
        return try PartialSet.check(parts)
    }

    /// Refuses, at `--merge`, options that would change a figure: the parts carry their own.
    static func refuse(_ given: [(option: String, isGiven: Bool)]) throws {
        if let option = given.first(where: \.isGiven)?.option {
            throw ValidationError(
                "--merge takes \(option) from the parts (they carry every option that changes a figure); drop it")
        }
    }

    /// The smoothing and endpointing flags given with different values from the defaults, as flags.
    static func changedParameters(_ smoothing: SmoothingOptions, _ endpointing: EndpointingOptions) throws -> [String] {
        let defaults = EvaluationSettings(
            smoothing: try SmoothingConfiguration(), endpointer: try EndpointerConfiguration()
        ).parameters
        let given = EvaluationSettings(
            smoothing: try smoothing.configuration(), endpointer: try endpointing.configuration())
        return given.parameters.filter { defaults[$0.key] != $0.value }.keys.sorted().map { "--" + $0 }
    }
}
