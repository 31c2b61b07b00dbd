import EarshotIO
import Foundation
import Synchronization

/// What the command has written so far — files made final, bytes on standard output — so an interrupt
/// says what is left behind instead of "no output written" when there is some.
enum OutputLedger {
    private struct State {
        var files: [String] = []
        var resumable: Set<String> = []
        var standardOutputBytes = 0
    }
    private static let state = Mutex(State())

    static func committed(_ path: String, resumable: Bool = false) {
        state.withLock { state in
            if !state.files.contains(path) { state.files.append(path) }
            if resumable { state.resumable.insert(path) } else { state.resumable.remove(path) }
        }
    }

    static func wroteToStandardOutput(_ bytes: Int) { state.withLock { $0.standardOutputBytes += bytes } }

    /// The line an interrupt prints (without the `earshot: ` prefix).
    static var interruptedMessage: String {
        state.withLock { state in
            var written: [String] = []
            if state.standardOutputBytes > 0 {
                written.append(ByteCountFormatter.string(fromByteCount: Int64(state.standardOutputBytes), countStyle: .file)
                    + " on standard output")
            }
            let finished = state.files.filter { !state.resumable.contains($0) }
            if !finished.isEmpty {
                let names = finished.prefix(3).joined(separator: ", ") + (finished.count > 3 ? ", …" : "")
                written.append("\(finished.count) file\(finished.count == 1 ? "" : "s") (\(names))")
            }
            for path in state.resumable.sorted() {
                written.append("\(path), unfinished (no Pareto column yet; run the command again with --resume to finish it)")
            }
            guard !written.isEmpty else { return "interrupted; no output written" }
            return "interrupted; written before the interrupt: " + written.joined(separator: "; ")
                + "; nothing else was written"
        }
    }
}
