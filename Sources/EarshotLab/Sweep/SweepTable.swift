import EarshotCore
import Foundation

/// One finished row of a sweep: a setting and what the endpointer did with it over the corpus.
public struct SweepRow: Sendable, Equatable {
    public var setting: SweepSetting
    public var metrics: EndpointMetrics
    /// On the latency-vs-truncation Pareto front of the rows in the same table.
    public var isParetoOptimal = false

    public init(setting: SweepSetting, metrics: EndpointMetrics) {
        self.setting = setting
        self.metrics = metrics
    }
}

/// The rows of a sweep in grid order, and their CSV and JSON renderings.
///
/// The table is what `--resume` reads back: a CSV or JSON written for the same grid gives back its
/// rows, so a sweep interrupted half-way recomputes only what it had not finished.
public struct SweepTable: Sendable {
    public enum Format: String, Sendable, CaseIterable { case csv, json }

    public let grid: SweepGrid
    /// Rows in grid order (only finished settings).
    public var rows: [SweepRow] { finished.rows }
    private var finished: GridOrderedRows<SweepRow, SweepSetting>

    public init(grid: SweepGrid) {
        self.grid = grid
        finished = GridOrderedRows(
            settings: grid.settings, setting: \.setting, isOnFront: \.isParetoOptimal,
            costs: { ($0.metrics.latency.median, $0.metrics.truncationRate) })
    }

    /// Adds or replaces the row for its setting, keeps grid order, and re-marks the Pareto front.
    public mutating func insert(_ row: SweepRow) { finished.insert(row) }

    public func contains(_ setting: SweepSetting) -> Bool { finished.contains(setting) }

    // MARK: CSV

    /// The existing columns first, so they keep their place; then the endpoints against the label
    /// oracle (rates of the utterances it scores; delay = endpoint − oracle endpoint).
    static let metricColumns = [
        "utterances", "median_latency_s", "p90_latency_s", "truncation_rate", "false_start_rate",
        "wrong_no_audio_rate", "missed_endpoint_rate", "pareto", "on_time_rate", "early_rate", "late_rate",
        "oracle_missed_rate", "median_delay_s", "p90_delay_s", "median_abs_delay_s",
    ]

    var csvHeader: String { (grid.axes.map(\.parameter.rawValue) + Self.metricColumns).joined(separator: ",") }

    /// Whether every setting of the grid has its row. Until then the Pareto column is left empty (CSV)
    /// or null with `"complete": false` (JSON): a front over some of the settings is not the front, and a
    /// table an interrupted sweep left must not look final. `--resume` completes it.
    public var isComplete: Bool { rows.count == grid.settings.count }

    public func csv() -> String {
        var lines = [csvHeader]
        let complete = isComplete
        for row in rows {
            let metrics = row.metrics
            let fields =
                row.setting.values.map(\.value.description) + [
                    String(metrics.utterances), Self.number(metrics.latency.median, digits: 3),
                    Self.number(metrics.latency.p90, digits: 3), Self.number(metrics.truncationRate, digits: 4),
                    Self.number(metrics.falseStartRate, digits: 4), Self.number(metrics.wrongNoAudioRate, digits: 4),
                    Self.number(metrics.missedEndpointRate, digits: 4), complete ? (row.isParetoOptimal ? "1" : "0") : "",
                    Self.number(metrics.oracle.onTimeRate, digits: 4), Self.number(metrics.oracle.earlyRate, digits: 4),
                    Self.number(metrics.oracle.lateRate, digits: 4), Self.number(metrics.oracle.missedRate, digits: 4),
                    Self.number(metrics.oracle.delay.median, digits: 3),
                    Self.number(metrics.oracle.delay.p90, digits: 3),
                    Self.number(metrics.oracle.absoluteDelay.median, digits: 3),
                ]
            lines.append(fields.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double?, digits: Int) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? ""
    }

    // MARK: JSON

    /// The JSON document's `schema_version`: 2 since `parameters` holds typed values (numbers, booleans)
    /// where 1 held strings. `--resume` reads both: only the rows are read back.
    public static let schemaVersion = 2

    struct Document: Codable {
        var schemaVersion: Int
        var grid: [String: [String]]
        var gridOrder: [String]
        var parameters: [String: ParameterValue]
        var rows: [Row]
        /// False while rows are missing (an interrupted sweep's table, to `--resume`).
        var complete: Bool?

        struct Row: Codable {
            var setting: [String: String]
            var metrics: EndpointMetrics
            /// On the front of the whole grid; null until every row is in.
            var pareto: Bool?
        }

        enum CodingKeys: String, CodingKey {
            case grid, parameters, rows, complete
            case schemaVersion = "schema_version"
            case gridOrder = "grid_order"
        }
    }

    /// The JSON document; `parameters` records the fixed settings the grid did not vary.
    public func json(parameters: [String: ParameterValue]) throws -> String {
        let document = Document(
            schemaVersion: Self.schemaVersion,
            grid: Dictionary(
                uniqueKeysWithValues: grid.axes.map { ($0.parameter.rawValue, $0.values.map(\.description)) }),
            gridOrder: grid.axes.map(\.parameter.rawValue), parameters: parameters,
            rows: rows.map { row in
                Document.Row(
                    setting: Dictionary(
                        uniqueKeysWithValues: row.setting.values.map { ($0.parameter.rawValue, $0.value.description) }),
                    metrics: row.metrics, pareto: isComplete ? row.isParetoOptimal : nil)
            }, complete: isComplete)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    // MARK: Resume

    /// Reads back the rows of a table written for `grid`, from `path` in `format`. Rows of settings the
    /// grid does not hold are ignored; a file written for another grid is an error naming it.
    public static func resume(grid: SweepGrid, from path: String, format: Format) throws -> SweepTable {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the sweep to resume")
        }
        var table = SweepTable(grid: grid)
        let wanted = Set(grid.settings)
        switch format {
        case .csv:
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            guard lines.first == table.csvHeader else {
                throw EarshotError(
                    .invalidInput, "\(path): line 1: not a sweep over this grid (expected header '\(table.csvHeader)')")
            }
            for (offset, line) in lines.dropFirst().enumerated() {
                let row = try parseCSVRow(line, grid: grid, where: "\(path): line \(offset + 2)")
                if wanted.contains(row.setting) { table.insert(row) }
            }
        case .json:
            let document: Document
            do {
                document = try JSONDecoder().decode(Document.self, from: data)
            } catch {
                throw EarshotError(.invalidInput, "\(path): not a sweep JSON document (\(error))")
            }
            guard document.gridOrder == grid.axes.map(\.parameter.rawValue) else {
                throw EarshotError(
                    .invalidInput, "\(path): written for a sweep over \(document.gridOrder), not this grid")
            }
            for (index, row) in document.rows.enumerated() {
                let values = try grid.axes.map { axis in
                    guard let text = row.setting[axis.parameter.rawValue] else {
                        throw EarshotError(.invalidInput, "\(path): rows[\(index)]: missing \(axis.parameter.rawValue)")
                    }
                    return (axis.parameter, try axis.parameter.value(text))
                }
                let setting = SweepSetting(values: values)
                if wanted.contains(setting) { table.insert(SweepRow(setting: setting, metrics: row.metrics)) }
            }
        }
        return table
    }

    private static func parseCSVRow(_ line: String, grid: SweepGrid, where location: String) throws -> SweepRow {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == grid.axes.count + metricColumns.count else {
            throw EarshotError(.invalidInput, "\(location): expected \(grid.axes.count + metricColumns.count) fields")
        }
        let values = try zip(grid.axes, fields).map { axis, text in (axis.parameter, try axis.parameter.value(text)) }
        let numbers = fields[grid.axes.count...].map { Double($0) }
        guard let utterances = numbers[numbers.startIndex].map({ Int($0) }) else {
            throw EarshotError(.invalidInput, "\(location): utterances: expected a count")
        }
        var metrics = EndpointMetrics([])
        metrics.utterances = utterances
        metrics.latency.median = numbers[numbers.startIndex + 1]
        metrics.latency.p90 = numbers[numbers.startIndex + 2]
        metrics.truncationRate = numbers[numbers.startIndex + 3]
        metrics.falseStartRate = numbers[numbers.startIndex + 4]
        metrics.wrongNoAudioRate = numbers[numbers.startIndex + 5]
        metrics.missedEndpointRate = numbers[numbers.startIndex + 6]
        metrics.oracle.onTimeRate = numbers[numbers.startIndex + 8]
        metrics.oracle.earlyRate = numbers[numbers.startIndex + 9]
        metrics.oracle.lateRate = numbers[numbers.startIndex + 10]
        metrics.oracle.missedRate = numbers[numbers.startIndex + 11]
        metrics.oracle.delay.median = numbers[numbers.startIndex + 12]
        metrics.oracle.delay.p90 = numbers[numbers.startIndex + 13]
        metrics.oracle.absoluteDelay.median = numbers[numbers.startIndex + 14]
        return SweepRow(setting: SweepSetting(values: values), metrics: metrics)
    }
}
