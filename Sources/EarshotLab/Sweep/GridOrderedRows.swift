/// The finished rows of a grid sweep: one per setting, kept in grid order, with the Pareto front of
/// two costs re-marked on every insert. What ``SweepTable`` and ``DecoderSweepTable`` share.
struct GridOrderedRows<Row: Sendable, Setting: Hashable & Sendable>: Sendable {
    private(set) var rows: [Row] = []
    /// Each setting's place in the grid, computed once.
    private let order: [Setting: Int]
    private let setting: any KeyPath<Row, Setting> & Sendable
    private let isOnFront: any WritableKeyPath<Row, Bool> & Sendable
    /// The two costs the front minimises.
    private let costs: @Sendable (Row) -> (Double?, Double?)

    init(
        settings: [Setting], setting: any KeyPath<Row, Setting> & Sendable,
        isOnFront: any WritableKeyPath<Row, Bool> & Sendable, costs: @escaping @Sendable (Row) -> (Double?, Double?)
    ) {
        order = Dictionary(uniqueKeysWithValues: settings.enumerated().map { ($1, $0) })
        self.setting = setting
        self.isOnFront = isOnFront
        self.costs = costs
    }

    /// Adds or replaces the row of its setting, keeps grid order, and re-marks the front.
    mutating func insert(_ row: Row) {
        let index = place(of: row[keyPath: setting])
        if index < rows.count, rows[index][keyPath: setting] == row[keyPath: setting] {
            rows[index] = row
        } else {
            rows.insert(row, at: index)
        }
        let front = ParetoFront.membership(rows.map(costs))
        for index in rows.indices { rows[index][keyPath: isOnFront] = front[index] }
    }

    /// Whether `wanted` is a setting of the grid.
    func covers(_ wanted: Setting) -> Bool { order[wanted] != nil }

    func contains(_ wanted: Setting) -> Bool {
        guard order[wanted] != nil else { return false }
        let index = place(of: wanted)
        return index < rows.count && rows[index][keyPath: setting] == wanted
    }

    /// Where a row of `wanted` is, or would go.
    private func place(of wanted: Setting) -> Int {
        let place = order[wanted] ?? .max
        return rows.partitioningIndex { (order[$0[keyPath: setting]] ?? .max) >= place }
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for a predicate false then true along the
    /// array (binary search).
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
