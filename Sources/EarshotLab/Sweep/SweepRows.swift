import EarshotCore

/// The rows one shard of a sweep computed (`sweep --shard I/N`), by their place in the grid: what a
/// sweep's partial result carries.
///
/// Each row's metrics are over the whole corpus already (a sweep shards its grid points, not its
/// files), so merging is putting rows back in grid order; the Pareto column is computed afresh over all
/// rows by ``SweepTable``, since a row's place on the front depends on every other row.
public struct SweepRows: Sendable, Equatable, Codable {
    public struct Row: Sendable, Equatable, Codable {
        /// The setting's place in the grid's order, from 0.
        public var index: Int
        public var metrics: EndpointMetrics
    }

    public var rows: [Row]

    /// The rows of `table`, each with its place in `grid`.
    public init(_ table: SweepTable) {
        let places = Dictionary(uniqueKeysWithValues: table.grid.settings.enumerated().map { ($1, $0) })
        rows = table.rows.map { Row(index: places[$0.setting]!, metrics: $0.metrics) }
    }

    /// The table the rows of every shard make over `grid`; every grid point must have exactly one row.
    public static func table(merging parts: [SweepRows], grid: SweepGrid) throws -> SweepTable {
        let settings = grid.settings
        var table = SweepTable(grid: grid)
        var seen = Set<Int>()
        for row in parts.flatMap(\.rows) {
            guard settings.indices.contains(row.index) else {
                throw EarshotError(.invalidInput, "rows[].index \(row.index): not a point of this grid")
            }
            guard seen.insert(row.index).inserted else {
                throw EarshotError(.invalidInput, "grid point \(settings[row.index]) is computed by two parts")
            }
            table.insert(SweepRow(setting: settings[row.index], metrics: row.metrics))
        }
        if let missing = settings.indices.first(where: { !seen.contains($0) }) {
            throw EarshotError(
                .invalidInput, "grid point \(settings[missing]) is in no part (\(settings.count - seen.count) missing)")
        }
        return table
    }
}

extension SweepGrid {
    /// The grid as `--grid` arguments that parse back to exactly these values (numbers to every digit).
    public var specification: [String] {
        axes.map { axis in
            axis.parameter.rawValue + "="
                + axis.values.map { value in
                    switch value {
                    case .number(let number): number.isInfinite ? "inf" : "\(number)"
                    case .name(let name): name
                    }
                }.joined(separator: ",")
        }
    }
}
