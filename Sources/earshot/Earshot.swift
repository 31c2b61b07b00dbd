import ArgumentParser
import EarshotBLAS
import EarshotCore
import EarshotSynthesis
import Foundation
import Synchronization

@main
struct Earshot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "earshot",
        abstract:
            "The audio front end of speech recognition: read, resample, meter, detect speech, endpoint, encode and transcribe audio, and measure it all on labelled corpora.",
        discussion: """
            Every FILE argument may be - for standard input. Formats are sniffed from the file header \
            (WAV, FLAC, Ogg Vorbis/Opus, MP3, AIFF, CAF, W64, AU, … through libsndfile; M4A/MP4, WebM and \
            AAC through FFmpeg); headerless PCM needs --rate, and \
            optionally --channels and --encoding. Data goes to standard output, messages to standard error.

            Exit codes: 0 success; 1 usage error; 2 unreadable or invalid input (or an output that \
            cannot be written, or an address the service cannot listen on); 3 recognizer or model error; \
            4 a batch in which some items failed.

            Any option can also be set in a config file (--config FILE, else ~/.config/earshot/config.yaml \
            over /etc/earshot/config.yaml) or an EARSHOT_<COMMAND>_<OPTION> variable; the command line \
            wins over both. earshot config --help explains; earshot config show lists them.
            """,
        version: "0.1.0",
        subcommands: [
            Transcribe.self, Listen.self, Info.self, Level.self, VAD.self, Endpoint.self, Eval.self, Sweep.self,
            DecoderSweep.self, CorpusCommand.self, LanguageModelCommand.self, Encode.self, Decode.self, Speak.self,
            Serve.self, Bench.self, Models.self, ConfigCommand.self,
        ]
    )

    /// Runs the command, turning every failure into one line on standard error and a documented exit code.
    static func main() async {
        OpenBLASKernels.useOneThread()
        var arguments = Array(CommandLine.arguments.dropFirst())
        let configFlag = takeConfigFlag(from: &arguments)
        Settings.invocation.withLock { $0 = (arguments, configFlag) }
        if let unknown = unknownSubcommand(arguments.first) {
            fail(unknown, status: .usage)
        }
        let injected: [Settings.Value]
        do {
            (arguments, injected) = try applySettings(to: arguments, configFlag: configFlag)
        } catch {
            exit(reporting: error)
        }
        do {
            var command = try parseAsRoot(arguments)
            if !(command is any RunsWithoutBLAS) { startAgainWithTheCPUsKernelsIfNeeded() }
            await InterruptCleanup.install(except: (type(of: command) as? any HandlesSignals.Type)?.handledSignals ?? [])
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            try flushStandardOutput()
        } catch {
            exit(reporting: error, settings: injected)
        }
    }

    /// Removes `--config FILE` (or `--config=FILE`) from `arguments`, anywhere before `--`; a `--config`
    /// with no file is a usage error.
    static func takeConfigFlag(from arguments: inout [String]) -> String? {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if let index = arguments[..<end].firstIndex(where: { $0.hasPrefix("--config=") }) {
            let value = String(arguments.remove(at: index).dropFirst("--config=".count))
            return value
        }
        guard let index = arguments[..<end].firstIndex(of: "--config") else { return nil }
        guard index + 1 < end else { fail("--config: expected a config file after it", status: .usage) }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    /// Adds to `arguments` the options the config files and `EARSHOT_…` variables set for the command
    /// they run and the command line leaves out (``Settings``), right after the command's name.
    static func applySettings(to arguments: [String], configFlag: String?) throws -> ([String], [Settings.Value]) {
        let environment = ProcessInfo.processInfo.environment
        let commands = configuration.subcommands.map { $0._commandName }
        guard
            Settings.anySource(
                configFlag: configFlag, environment: environment, commands: commands,
                fileExists: { FileManager.default.fileExists(atPath: $0) })
        else { return (arguments, []) }
        let tree = CommandTree(of: Earshot.self)
        let settings = try Settings.load(configFlag: configFlag, environment: environment, tree: tree)
        Settings.current.withLock { $0 = settings }
        let (command, consumed) = tree.command(running: arguments)
        let injections = try settings.injections(for: command, arguments: arguments.dropFirst(consumed))
        guard !injections.isEmpty else { return (arguments, []) }
        let values = injections.map(\.0)
        Settings.injected.withLock { $0 = values }
        return (Array(arguments.prefix(consumed)) + injections.flatMap(\.1) + arguments.dropFirst(consumed), values)
    }

    /// `exit(reporting:)`, naming the file or variable when the parser refused a value it set.
    static func exit(reporting error: any Error, settings: [Settings.Value]) -> Never {
        if exitCode(for: error) == .validationFailure, !(error is EarshotError) {
            let message = message(for: error)
            if let value = settings.first(where: { Self.names(message, option: $0.key) }) {
                fail(
                    "\(value.origin): \(value.section).\(value.key)=\(value.values.joined(separator: ",")): \(message)",
                    status: .usage)
            }
        }
        exit(reporting: error)
    }

    /// Whether `message` names `--option` itself, not a longer option it begins (`--model` in `--model-dir`).
    static func names(_ message: String, option: String) -> Bool {
        var rest = Substring(message)
        while let range = rest.range(of: "--" + option) {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    /// Starts this command again with `OPENBLAS_CORETYPE` set when OpenBLAS loaded kernels older than the
    /// CPU (see ``OpenBLASKernels``): Whisper and Silero then run about twice as fast. Called once the
    /// command is parsed, for commands that may multiply matrices (not ``RunsWithoutBLAS``), so the
    /// rest start once; nothing has been read or written yet. If `execv` fails, the command goes on
    /// with the kernels it has.
    static func startAgainWithTheCPUsKernelsIfNeeded() {
        guard let core = OpenBLASKernels.coreTypeToForce(environment: ProcessInfo.processInfo.environment) else {
            return
        }
        setenv("OPENBLAS_CORETYPE", core, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        unsetenv("OPENBLAS_CORETYPE")
    }

    /// Writes out what `print` buffered, so a full disk or a closed pipe on standard output is a failure
    /// (exit status 2), not a silent success.
    static func flushStandardOutput() throws {
        guard fflush(nil) != 0 else { return }  // every output stream; only stdout is written with stdio
        throw EarshotError(.writeFailed, "stdout: write failed (\(String(cString: strerror(errno))))")
    }

    /// Maps an error to its message and exit status: ours by their code; the parser's own (an unknown
    /// flag, a bad value, `--help` — which the parser delivers as an error with status 0) by the exit
    /// code the parser gives them; anything else is an input failure.
    static func exit(reporting error: any Error) -> Never {
        if let error = error as? EarshotError {
            fail(error.message, status: ExitStatus(error))
        }
        switch exitCode(for: error) {
        case .success:
            print(fullMessage(for: error))
            Foundation.exit(0)
        case .validationFailure:
            fail(fullMessage(for: error), status: .usage, prefixed: false)
        case let code where error is ExitCode:
            Foundation.exit(code.rawValue)
        default:
            fail(fullMessage(for: error), status: .invalidInput)
        }
    }

    /// A first argument that names no command (and is no option): the message, with the nearest
    /// command's name when one is a typo away ("transcibe" → "transcribe").
    static func unknownSubcommand(_ first: String?) -> String? {
        guard let first, !first.hasPrefix("-"), first != "help" else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.contains(first) else { return nil }
        var message = "unknown command '\(first)'"
        if let name = nearestName(to: first, among: names) { message += "; did you mean '\(name)'?" }
        return message + " (earshot --help lists the commands)"
    }

    static func fail(_ message: String, status: ExitStatus, prefixed: Bool = true) -> Never {
        if prefixed {
            Messages.write(message)
        } else {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
        Foundation.exit(status.rawValue)
    }
}

/// The documented exit codes, and the one map from an error's code to them.
enum ExitStatus: Int32 {
    case success = 0
    case usage = 1
    case invalidInput = 2
    case recognizer = 3
    case partialBatch = 4
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it) or by the user's cancel.
    case interrupted = 130

    init(_ error: EarshotError) { self.init(error.code) }

    /// Bad options → 1; input that is unreadable or has nothing to send → 2; the recognizer, its model,
    /// the synthesizer, the service and the network → 3; cancelled → 130.
    init(_ code: EarshotError.Code) {
        switch code {
        case .invalidParameter, .invalidURL, .attemptAtReentrancy: self = .usage
        case .modelUnavailable, .recognizerFailed, .synthesisFailed, .connectionFailure, .noResponseFromServer,
            .httpError:
            self = .recognizer
        case .canceled: self = .interrupted
        default: self = .invalidInput  // invalidInput, unsupportedFormat, writeFailed, noMicrophone, noAudio, audioTooShort
        }
    }
}

/// A command that never runs Whisper or Silero (OpenBLAS's matrix products), so it need not start
/// again with the CPU's kernels (``Earshot/startAgainWithTheCPUsKernelsIfNeeded()``), which costs a
/// second start-up. Commands are assumed to multiply matrices unless they say otherwise here.
protocol RunsWithoutBLAS {}

extension Info: RunsWithoutBLAS {}
extension Level: RunsWithoutBLAS {}
extension Encode: RunsWithoutBLAS {}
extension Decode: RunsWithoutBLAS {}
extension Speak: RunsWithoutBLAS {}
extension ConfigCommand.Show: RunsWithoutBLAS {}
extension Models.List: RunsWithoutBLAS {}
extension Models.Fetch: RunsWithoutBLAS {}
extension CorpusCommand.Validate: RunsWithoutBLAS {}
extension CorpusCommand.Import: RunsWithoutBLAS {}
extension CorpusCommand.Export: RunsWithoutBLAS {}
extension LanguageModelCommand.Pronounce: RunsWithoutBLAS {}
