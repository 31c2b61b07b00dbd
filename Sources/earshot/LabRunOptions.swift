import ArgumentParser
import EarshotLab
import Foundation

/// `--on-time-tolerance` and `--jobs`, declared once for the lab commands that score corpora (eval, sweep).
struct LabRunOptions: ParsableArguments {
    @Option(
        name: .customLong("on-time-tolerance"),
        help: "An endpoint within this many seconds of the label oracle's is on time.")
    var onTimeTolerance = OracleTiming.defaultTolerance

    @Option(name: .customLong("jobs"), help: "Worker threads (default: the number of cores).")
    var jobOption: Int?

    /// `--jobs`, or the number of cores (optional to the parser, so help shows one default).
    var jobs: Int { jobOption ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws {
        guard onTimeTolerance.isFinite, onTimeTolerance >= 0 else {
            throw ValidationError("--on-time-tolerance: expected a duration ≥ 0 s, got \(onTimeTolerance)")
        }
        guard (jobOption ?? 1) >= 1 else { throw ValidationError("--jobs: expected at least 1, got \(jobOption!)") }
    }
}
