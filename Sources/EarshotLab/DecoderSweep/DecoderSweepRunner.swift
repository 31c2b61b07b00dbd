public import EarshotRecognizer

/// Runs a decoder sweep: every setting of a grid over a ``DecoderTestSet``, one recognizer per
/// setting, `jobs` settings at a time, one row per setting in grid order.
///
/// After each finished row `persist` gets the table so far (the CLI writes it atomically), so a
/// sweep stopped half-way keeps its finished rows and `--resume` computes only the rest. Costs are
/// counted in each decoding thread's CPU time, so jobs running side by side do not charge each other.
public struct DecoderSweepRunner: Sendable {
    public var set: DecoderTestSet
    public var grid: DecoderGrid
    /// The settings the grid does not vary.
    public var base: PocketSphinxConfiguration
    public var jobs: Int

    public init(set: DecoderTestSet, grid: DecoderGrid, base: PocketSphinxConfiguration, jobs: Int) {
        self.set = set
        self.grid = grid
        self.base = base
        self.jobs = max(1, jobs)
    }

    /// Runs the settings `table` does not hold yet and returns the completed table.
    public func run(
        resuming table: DecoderSweepTable, persist: (DecoderSweepTable) throws -> Void,
        progress: (_ done: Int, _ of: Int) -> Void = { _, _ in }
    ) async throws -> DecoderSweepTable {
        let pending = grid.settings.filter { !table.contains($0) }
        // Every setting is checked before any work, so a bad combination fails at once.
        let configurations = try pending.map { setting in
            let configuration = setting.applied(to: base)
            try configuration.validate()
            return configuration
        }
        var table = table
        var done = 0
        let set = self.set
        _ = try await ParallelWork.map(count: pending.count, jobs: jobs) { index in
            DecoderSweepRow(
                setting: pending[index], scores: try DecoderScores.measure(set, configuration: configurations[index]))
        } completed: { _, row in
            table.insert(row)
            done += 1
            try persist(table)
            progress(done, pending.count)
        }
        return table
    }
}
