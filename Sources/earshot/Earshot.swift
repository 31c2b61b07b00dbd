import ArgumentParser
import EarshotCore
import Foundation

@main
struct Earshot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "earshot",
        abstract:
            "The audio front end of speech recognition: read, resample, meter, detect speech, endpoint, encode and transcribe audio, and measure it all on labelled corpora.",
        discussion: """
            Every FILE argument may be - for standard input. Formats are sniffed from the file header \
            (WAV, FLAC, Ogg Vorbis/Opus, AIFF, CAF, W64, AU, …); headerless PCM needs --rate, and \
            optionally --channels and --encoding. Data goes to standard output, messages to standard error.

            Exit codes: 0 success; 1 usage error; 2 unreadable or invalid input (or an output that \
            cannot be written); 3 recognizer or model error; 4 a batch in which some items failed.
            """,
        version: "0.1.0",
        subcommands: [
            Transcribe.self, Listen.self, Info.self, Level.self, VAD.self, Endpoint.self, Eval.self, Sweep.self,
            DecoderSweep.self, CorpusCommand.self, Encode.self, Decode.self, Serve.self, Bench.self,
        ]
    )

    /// Runs the command, turning every failure into one line on standard error and a documented exit code.
    static func main() async {
        do {
            var command = try parseAsRoot()
            InterruptCleanup.install(except: (type(of: command) as? any HandlesSignals.Type)?.handledSignals ?? [])
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            try flushStandardOutput()
        } catch {
            exit(reporting: error)
        }
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
    static func exit(reporting error: Error) -> Never {
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

    static func fail(_ message: String, status: ExitStatus, prefixed: Bool = true) -> Never {
        FileHandle.standardError.write(Data(((prefixed ? "earshot: " : "") + message + "\n").utf8))
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
    /// the service and the network → 3; cancelled → 130.
    init(_ code: EarshotError.Code) {
        switch code {
        case .invalidParameter, .invalidURL, .attemptAtReentrancy: self = .usage
        case .modelUnavailable, .recognizerFailed, .connectionFailure, .noResponseFromServer, .httpError:
            self = .recognizer
        case .canceled: self = .interrupted
        default: self = .invalidInput  // invalidInput, unsupportedFormat, writeFailed, noMicrophone, noAudio, audioTooShort
        }
    }
}
