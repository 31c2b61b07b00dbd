import EarshotIO
import Foundation
import UnixSignals

/// What the command line does on SIGINT and SIGTERM when a command has no handling of its own:
/// remove every temporary file the process made (``TemporaryFiles``), say so, and exit with the
/// shell's status for the signal (130, 143). Nothing half-written is left under any name.
///
/// Commands that stop gracefully by themselves say which signals they handle (``HandlesSignals``):
/// `transcribe` and `listen` turn SIGINT into a cancellation, `serve` drains on both.
enum InterruptCleanup {
    static func install(except handled: Set<UnixSignal>) async {
        await Interrupts.install([.sigint, .sigterm].filter { !handled.contains($0) }) { signal in
            TemporaryFiles.removeAll()
            FileHandle.standardError.write(Data("earshot: \(OutputLedger.interruptedMessage)\n".utf8))
            _exit(128 + signal.rawValue)
        }
    }
}

/// A command that handles some signals itself, gracefully.
protocol HandlesSignals {
    static var handledSignals: Set<UnixSignal> { get }
}

extension Transcribe: HandlesSignals {
    static var handledSignals: Set<UnixSignal> { [.sigint] }
}

extension Listen: HandlesSignals {
    static var handledSignals: Set<UnixSignal> { [.sigint] }
}

extension Serve: HandlesSignals {
    static var handledSignals: Set<UnixSignal> { [.sigint, .sigterm] }
}
