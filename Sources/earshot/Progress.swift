import Foundation

/// A progress bar with real-time factor and ETA on standard error, drawn only when standard error is a
/// terminal (so logs and pipes stay clean), and redrawn at most ten times a second.
struct Progress {
    private var total: Double?
    private let enabled: Bool
    private let started = Date()
    private var lastDraw = Date.distantPast

    /// `totalSeconds` is the input's duration in media time, if known.
    init(totalSeconds: Double?) {
        total = totalSeconds.flatMap { $0 > 0 ? $0 : nil }
        enabled = isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["EARSHOT_NO_PROGRESS"] == nil
    }

    /// Like ``update(mediaSeconds:)``, when the total becomes known or grows as inputs are opened.
    mutating func update(mediaSeconds done: Double, totalSeconds: Double?) {
        total = totalSeconds.flatMap { $0 > 0 ? $0 : nil }
        update(mediaSeconds: done)
    }

    mutating func update(mediaSeconds done: Double) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        let elapsed = max(Date().timeIntervalSince(started), 1e-6)
        let speed = done / elapsed
        var line = String(format: "%.1f s of audio, %.1f× real time", done, speed)
        if let total {
            let fraction = min(done / total, 1)
            let filled = Int(fraction * 30)
            let eta = speed > 0 ? (total - done) / speed : 0
            line =
                "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled) + "] "
                + String(
                    format: "%3.0f%%  %.1f× real time  ETA %d:%02d", fraction * 100, speed, Int(eta) / 60, Int(eta) % 60
                )
        }
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// A progress bar over a count of items (files, sweep rows) with ETA, on standard error, only when it is
/// a terminal; safe to update from several threads.
final class CountProgress: @unchecked Sendable {
    private let enabled =
        isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["EARSHOT_NO_PROGRESS"] == nil
    private let lock = NSLock()
    private var started = Date()
    private var lastDraw = Date.distantPast
    private var label = ""

    /// Starts a new phase: the ETA counts from now.
    func begin(_ label: String) {
        lock.withLock {
            self.label = label
            started = Date()
        }
    }

    func update(done: Int, of total: Int) {
        guard enabled else { return }
        lock.withLock {
            guard done == total || Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = Date()
            let fraction = total > 0 ? Double(done) / Double(total) : 1
            let elapsed = Date().timeIntervalSince(started)
            let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
            let line = String(
                format: "%@ [%@] %d/%d  ETA %d:%02d", label, bar, done, total, Int(eta) / 60, Int(eta) % 60)
            FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
        }
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
