import EarshotCore
public import EarshotVAD

/// Runs a sweep: every setting of a grid over a corpus, on several cores, one row per setting.
///
/// Each detector's tracks are computed once and replayed under every setting that uses it, so a
/// sweep costs one detector pass per detector plus a cheap smoother/endpointer replay per row. After
/// each finished row, `persist` gets the table so far (the CLI writes it atomically), so a sweep
/// killed half-way loses no finished row and `--resume` picks up from there. Rows come out in grid
/// order whatever order they finish in, so the result does not depend on `jobs`.
public struct SweepRunner: Sendable {
    public var corpus: Corpus
    public var grid: SweepGrid
    public var base: EvaluationSettings
    public var jobs: Int
    /// The grid points this run computes: with `--shard I/N`, the I-th, (I+N)-th … in grid order.
    public var shard: Shard

    public init(corpus: Corpus, grid: SweepGrid, base: EvaluationSettings, jobs: Int, shard: Shard = .whole) {
        self.corpus = corpus
        self.grid = grid
        self.base = base
        self.jobs = max(1, jobs)
        self.shard = shard
    }

    /// Progress: what is being done, how many of how many.
    public enum Step: Sendable {
        case detector(DetectorKind, filesDone: Int, of: Int)
        case rows(done: Int, of: Int)
    }

    /// Runs the settings `table` does not hold yet and returns the completed table.
    public func run(
        resuming table: SweepTable,
        persist: (SweepTable) throws -> Void,
        progress: (Step) -> Void = { _ in }
    ) async throws -> SweepTable {
        // Every setting is checked before any work, so a bad combination fails at once, naming the field.
        let pending = try grid.settings.enumerated()
            .filter { shard.contains(position: $0.offset) && !table.contains($0.element) }
            .map { ($0.element, try base.applying($0.element)) }
        var tracks: [DetectorKind: [DetectorTrack]] = [:]
        for detector in DetectorKind.allCases where pending.contains(where: { $0.1.detector == detector }) {
            let total = corpus.entries.count
            tracks[detector] = try await Evaluation.tracks(
                for: corpus, detector: detector, models: base.models, jobs: jobs
            ) {
                progress(.detector(detector, filesDone: $0, of: total))
            }.tracks
        }
        var table = table
        var done = 0
        let frozenTracks = tracks
        let corpus = self.corpus
        _ = try await ParallelWork.map(count: pending.count, jobs: jobs) { index in
            let (setting, settings) = pending[index]
            let results = try zip(frozenTracks[settings.detector]!, corpus.entries).map { track, entry in
                try UtteranceScorer.score(track, against: entry, settings: settings, scope: .endpointing).utterance
            }
            return SweepRow(
                setting: setting, metrics: EndpointMetrics(results, onTimeTolerance: settings.onTimeTolerance))
        } completed: { _, row in
            table.insert(row)
            done += 1
            try persist(table)
            progress(.rows(done: done, of: pending.count))
        }
        return table
    }
}
