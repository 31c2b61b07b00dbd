import ArgumentParser
import EarshotCore
import Foundation
import Synchronization

/// How a long command reports progress on standard error.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// A bar with ETA when standard error is a terminal (and `EARSHOT_NO_PROGRESS` is unset); nothing
    /// otherwise, so logs and pipes stay clean.
    case auto
    /// Nothing.
    case none
    /// One JSON object per line, at most two a second and one at the end, for scripts: `{"event":
    /// "progress", …}` then `{"event":"done", …}`. Keys: `command`, `phase` (what is counted),
    /// `done`/`total` (items) or `done_s`/`total_s` (seconds of audio), `fraction`, `elapsed_s`,
    /// `eta_s`, `speed` (× real time).
    case ndjson

    /// What `auto` resolves to here: `bar` only on a terminal.
    var drawsBar: Bool {
        self == .auto && isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["EARSHOT_NO_PROGRESS"] == nil
    }
}

/// `--progress`, shared by every long command.
struct ProgressOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Progress on standard error: auto (a bar on a terminal), none, or ndjson (JSON lines for scripts).",
            valueName: "mode"))
    var progress: ProgressMode = .auto

    /// With ndjson, the command's messages become JSON lines too (``Messages``), errors included.
    func validate() throws {
        if progress == .ndjson { Messages.useJSON(command: CommandLine.arguments.dropFirst().first ?? "earshot") }
    }
}

/// One `--progress ndjson` line: keys in a fixed order, numbers rounded, no nulls.
struct ProgressLine: Encodable {
    let event: String
    let command: String
    /// The event's own fields, in order; a nil, or a number that is not finite, is left out.
    let fields: [(String, Any?)]

    static func write(_ event: String, command: String, fields: [(String, Any?)]) {
        let line = ProgressLine(event: event, command: command, fields: fields)
        guard let text = try? OrderedJSONEncoder().string(line) else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    func encode(to encoder: any Encoder) throws {
        var line = encoder.container(keyedBy: FieldKey.self)
        try line.encode(event, forKey: FieldKey("event"))
        try line.encode(command, forKey: FieldKey("command"))
        for (key, value) in fields {
            switch value {
            case let number as Double where number.isFinite:
                try line.encode((number * 1000).rounded() / 1000, forKey: FieldKey(key))
            case let number as Int: try line.encode(number, forKey: FieldKey(key))
            case let text as String: try line.encode(text, forKey: FieldKey(key))
            default: continue
            }
        }
    }

    private struct FieldKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A progress bar with real-time factor and ETA on standard error, drawn only when standard error is a
/// terminal (so logs and pipes stay clean), and redrawn at most ten times a second; or, with
/// `--progress ndjson`, JSON lines.
struct Progress {
    private var total: Double?
    private let mode: ProgressMode
    private let enabled: Bool
    private let command: String
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var done = 0.0
    private var finished = false

    /// `totalSeconds` is the input's duration in media time, if known.
    init(totalSeconds: Double?, mode: ProgressMode = .auto, command: String = "") {
        total = totalSeconds.flatMap { $0 > 0 ? $0 : nil }
        self.mode = mode
        self.command = command
        enabled = mode.drawsBar
    }

    /// Like ``update(mediaSeconds:)``, when the total becomes known or grows as inputs are opened.
    mutating func update(mediaSeconds done: Double, totalSeconds: Double?) {
        total = totalSeconds.flatMap { $0 > 0 ? $0 : nil }
        update(mediaSeconds: done)
    }

    mutating func update(mediaSeconds done: Double) {
        self.done = done
        if mode == .ndjson {
            guard Date().timeIntervalSince(lastDraw) >= 0.5 else { return }
            lastDraw = Date()
            writeLine("progress")
            return
        }
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

    /// Clears the bar so a message can be printed; it is drawn again by the next update.
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Clears the bar; with ndjson, writes the last line, once.
    mutating func finish() {
        if mode == .ndjson, !finished {
            finished = true
            writeLine("done")
        }
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func writeLine(_ event: String) {
        let elapsed = max(Date().timeIntervalSince(started), 1e-6)
        let speed = done / elapsed
        ProgressLine.write(
            event, command: command,
            fields: [
                ("phase", "audio"), ("done_s", done), ("total_s", total),
                ("fraction", total.map { min(done / $0, 1) }), ("elapsed_s", elapsed),
                ("eta_s", total.map { speed > 0 ? max($0 - done, 0) / speed : nil } ?? nil), ("speed", speed),
            ])
    }
}

/// A progress bar over a count of items (files, sweep rows) with ETA, on standard error, only when it is
/// a terminal; safe to update from several tasks.
final class CountProgress: Sendable {
    private let mode: ProgressMode
    private let enabled: Bool
    private let command: String
    private let began = Date()
    private struct State {
        var started = Date()
        var lastDraw = Date.distantPast
        var label = ""
        var last: (done: Int, total: Int) = (0, 0)
        /// Items that failed among those counted: not reported as done.
        var failed = 0
    }
    private let state = Mutex(State())

    init(mode: ProgressMode = .auto, command: String = "") {
        self.mode = mode
        self.command = command
        enabled = mode.drawsBar
    }

    /// Starts a new phase: the ETA counts from now.
    func begin(_ label: String) {
        state.withLock { state in
            state.label = label
            state.started = Date()
        }
    }

    func update(done: Int, of total: Int) {
        if mode == .ndjson {
            state.withLock { state in
                state.last = (done, total)
                guard done == total || Date().timeIntervalSince(state.lastDraw) >= 0.5 else { return }
                state.lastDraw = Date()
                writeLine("progress", state)
            }
            return
        }
        guard enabled else { return }
        state.withLock { state in
            guard done == total || Date().timeIntervalSince(state.lastDraw) >= 0.1 else { return }
            state.lastDraw = Date()
            let fraction = total > 0 ? Double(done) / Double(total) : 1
            let elapsed = Date().timeIntervalSince(state.started)
            let eta = done > 0 ? elapsed / Double(done) * Double(total - done) : 0
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
            let line = String(
                format: "%@ [%@] %d/%d  ETA %d:%02d", state.label, bar, done, total, Int(eta) / 60, Int(eta) % 60)
            FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
        }
    }

    /// Counts one of the items as failed: JSON lines report it under `failed`, not `done`.
    func recordFailure() { state.withLock { $0.failed += 1 } }

    func finish() {
        if mode == .ndjson {
            state.withLock { writeLine("done", $0) }
            return
        }
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Clears the bar so a message can be printed; it is drawn again by the next update.
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Called with the state locked.
    private func writeLine(_ event: String, _ state: State) {
        let elapsed = Date().timeIntervalSince(state.started)
        let (processed, total) = state.last
        ProgressLine.write(
            event, command: command,
            fields: [
                ("phase", state.label), ("done", processed - state.failed),
                ("failed", state.failed > 0 ? state.failed : nil),
                ("total", total), ("fraction", total > 0 ? Double(processed) / Double(total) : nil),
                ("elapsed_s", Date().timeIntervalSince(began)),
                ("eta_s", processed > 0 ? elapsed / Double(processed) * Double(total - processed) : nil),
            ])
    }
}
