import Dispatch
import EarshotIO
import Foundation

/// What the command line does on SIGINT and SIGTERM when a command has no handling of its own:
/// remove every temporary file the process made (``TemporaryFiles``), say so, and exit with the
/// shell's status for the signal (130, 143). Nothing half-written is left under any name.
///
/// Commands that stop gracefully by themselves say which signals they handle (``HandlesSignals``):
/// `transcribe` and `listen` turn SIGINT into a cancellation, `serve` drains on both.
enum InterruptCleanup {
    /// Kept alive for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    static func install(except handled: Set<Int32>) {
        for signalNumber in [SIGINT, SIGTERM] where !handled.contains(signalNumber) {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                TemporaryFiles.removeAll()
                FileHandle.standardError.write(Data("earshot: \(OutputLedger.interruptedMessage)\n".utf8))
                _exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }
}

/// A command that handles some signals itself, gracefully.
protocol HandlesSignals {
    static var handledSignals: Set<Int32> { get }
}

extension Transcribe: HandlesSignals {
    static var handledSignals: Set<Int32> { [SIGINT] }
}

extension Listen: HandlesSignals {
    static var handledSignals: Set<Int32> { [SIGINT] }
}

extension Serve: HandlesSignals {
    static var handledSignals: Set<Int32> { [SIGINT, SIGTERM] }
}
