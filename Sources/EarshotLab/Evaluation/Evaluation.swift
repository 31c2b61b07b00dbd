import EarshotCore
public import EarshotVAD
import Foundation

/// What `earshot eval` reports for one detector (or one set of prediction files) over a corpus.
public struct DetectorReport: Sendable {
    /// The detector's name, or `predictions` for scores read from files.
    public var name: String
    public var frames = FrameMetrics()
    public var probabilities = ProbabilityScores()
    public var boundaries = BoundaryErrors()
    public var results: [UtteranceResult] = []
    /// Seconds of audio scored, and the CPU seconds the detector took over them (0 for files).
    public var audioSeconds = 0.0
    public var detectorSeconds = 0.0
    /// How far from the label oracle's endpoint an endpoint is still on time, seconds.
    public var onTimeTolerance = OracleTiming.defaultTolerance

    public init(name: String) {
        self.name = name
    }

    public var endpointing: EndpointMetrics { EndpointMetrics(results, onTimeTolerance: onTimeTolerance) }

    /// The detector's speed: seconds of audio per second of one core, nil when not measured.
    public var realTimeFactor: Double? { detectorSeconds > 0 ? audioSeconds / detectorSeconds : nil }
}

/// Runs detectors over a labelled corpus and scores frames, boundaries and endpoints.
public enum Evaluation {
    /// Each file's detector track, computed on up to `jobs` cores; `progress` gets the count finished.
    /// Also returns the CPU seconds the work took on the calling process's threads.
    public static func tracks(
        for corpus: Corpus, detector: DetectorKind, models: DetectorModels = .none, jobs: Int,
        progress: (Int) -> Void = { _ in }
    ) async throws -> (tracks: [DetectorTrack], cpuSeconds: Double) {
        var finished = 0
        let started = processCPUSeconds()
        let tracks = try await ParallelWork.map(count: corpus.entries.count, jobs: jobs) { index in
            let path = corpus.audioPath(of: corpus.entries[index])
            return try DetectorTrack.compute(path: path, detector: detector, models: models)
        } completed: { _, _ in
            finished += 1
            progress(finished)
        }
        return (tracks, processCPUSeconds() - started)
    }

    /// CPU time (user + system) of this process so far, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
