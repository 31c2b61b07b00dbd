import EarshotClient
import EarshotCore
import Foundation

/// What `earshot listen` shows on standard error: on a terminal, one live line (state, a level bar,
/// the latest partial result) under the SDK's prompt; otherwise one plain line per event, with its
/// media time, for logs and tests.
final class ListenDisplay: @unchecked Sendable {
    let interactive: Bool
    private var state = SpeechClientState.idle
    private var level: Float = -.infinity
    private var partial = ""
    private let started = ContinuousClock.now

    init(interactive: Bool) {
        self.interactive = interactive
        if interactive { write("Listening — press Enter to stop, Ctrl-C to cancel\n") }
    }

    func show(_ event: SpeechEvent) {
        if interactive {
            switch event {
            case .stateChanged(_, let to): state = to
            case .audioLevel(let value, _): level = value.rmsDBFS
            case .partialResult(let text, _): partial = text
            case .audioSent, .speechStarted, .speechEnded, .shouldEndRecording, .willStartListening, .isListening:
                return
            default: break
            }
            redraw()
            return
        }
        switch event {
        case .stateChanged(let from, let to): write("state \(from.rawValue) → \(to.rawValue)\n")
        case .willStartListening: write("will start listening\n")
        case .isListening: write("listening\n")
        case .speechStarted(let at): write(String(format: "%.2f s speech started\n", at.seconds))
        case .speechEnded(let at): write(String(format: "%.2f s speech ended\n", at.seconds))
        case .shouldEndRecording(let at, let vetoed):
            write(String(format: "%.2f s should end recording%@\n", at.seconds, vetoed ? " (vetoed)" : ""))
        case .stoppedListening(let at, let reason):
            write(String(format: "%.2f s stopped listening (%@)\n", at.seconds, reason.rawValue))
        case .partialResult(let text, let audioTime): write(String(format: "partial (%.2f s): %@\n", audioTime, text))
        case .succeeded(let response): write("succeeded: HTTP \(response.statusCode)\n")
        case .recognized(let reply):
            write("recognized: \(reply.words.count) timed words, \(reply.segments.count) segments\n")
        case .failed(let error): write("failed: \(error)\n")
        case .audioLevel, .audioSent: break
        }
    }

    func finish() {
        if interactive { write("\r\u{1B}[K") }
    }

    private func redraw() {
        // −60 dBFS (empty) to 0 dBFS (full), 20 cells.
        let cells = level.isFinite ? max(0, min(20, Int((level + 60) / 3))) : 0
        let bar = String(repeating: "█", count: cells) + String(repeating: "·", count: 20 - cells)
        let db = level.isFinite ? String(format: "%4.0f dB", level) : "  -∞ dB"
        let text = partial.count > 50 ? "…" + partial.suffix(49) : partial
        write("\r\(state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) [\(bar)] \(db)  \(text)\u{1B}[K")
    }

    private func write(_ text: String) {
        guard !interactive else { return FileHandle.standardError.write(Data(text.utf8)) }
        // Plain lines carry the wall-clock time since start, so latencies can be read off a log.
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        FileHandle.standardError.write(Data((String(format: "[%7.3f] ", seconds) + text).utf8))
    }
}
