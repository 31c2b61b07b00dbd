public import EarshotCore
import Foundation

/// One finished row of a decoder sweep.
public struct DecoderSweepRow: Sendable, Equatable {
    public var setting: DecoderSetting
    public var scores: DecoderScores
    /// On the front of word error rate versus real-time factor among the rows of its table.
    public var isParetoOptimal = false

    public init(setting: DecoderSetting, scores: DecoderScores) {
        self.setting = setting
        self.scores = scores
    }
}

/// The rows of a decoder sweep in grid order, their CSV and JSON renderings, and reading them back
/// for `--resume`.
public struct DecoderSweepTable: Sendable {
    public enum Format: String, Sendable, CaseIterable { case csv, json }

    public let grid: DecoderGrid
    /// Rows in grid order (only finished settings).
    public var rows: [DecoderSweepRow] { finished.rows }
    private var finished: GridOrderedRows<DecoderSweepRow, DecoderSetting>

    public init(grid: DecoderGrid) {
        self.grid = grid
        finished = GridOrderedRows(
            settings: grid.settings, setting: \.setting, isOnFront: \.isParetoOptimal,
            costs: { ($0.scores.realTimeFactor, $0.scores.words.rate) })
    }

    /// Adds or replaces the row of its setting, in grid order, and re-marks the front.
    public mutating func insert(_ row: DecoderSweepRow) { finished.insert(row) }

    public func contains(_ setting: DecoderSetting) -> Bool { finished.contains(setting) }

    // MARK: CSV

    static let scoreColumns = [
        "utterances", "reference_words", "substitutions", "deletions", "insertions", "wer", "audio_s", "cpu_s",
        "rtf", "eou_median_s", "eou_p95_s", "pareto",
    ]

    var csvHeader: String { (grid.axes.map(\.parameter.rawValue) + Self.scoreColumns).joined(separator: ",") }

    public func csv() -> String {
        let lines = rows.map { row in
            let s = row.scores
            return
                (row.setting.values.map { $0.parameter.format($0.value) } + [
                    String(s.utterances), String(s.words.referenceWordCount), String(s.words.substitutions),
                    String(s.words.deletions), String(s.words.insertions), Self.fixed(s.words.rate, 4),
                    Self.fixed(s.audioSeconds, 3), Self.fixed(s.cpuSeconds, 3), Self.fixed(s.realTimeFactor, 4),
                    Self.fixed(s.endOfUtteranceMedian, 4), Self.fixed(s.endOfUtteranceP95, 4),
                    row.isParetoOptimal ? "1" : "0",
                ]).joined(separator: ",")
        }
        return ([csvHeader] + lines).joined(separator: "\n") + "\n"
    }

    private static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    // MARK: JSON

    public static let schemaVersion = 1

    struct Document: Codable {
        var schemaVersion: Int
        var gridOrder: [String]
        var grid: [String]
        var parameters: [String: ParameterValue]
        var rows: [Row]

        enum CodingKeys: String, CodingKey {
            case grid, parameters, rows
            case schemaVersion = "schema_version", gridOrder = "grid_order"
        }
    }

    struct Row: Codable {
        var setting: [String: String]
        var utterances, referenceWords, substitutions, deletions, insertions: Int
        var wer, audioSeconds, cpuSeconds, realTimeFactor, endOfUtteranceMedian, endOfUtteranceP95: Double
        var pareto: Bool

        enum CodingKeys: String, CodingKey {
            case setting, utterances, substitutions, deletions, insertions, wer, pareto
            case referenceWords = "reference_words", audioSeconds = "audio_s", cpuSeconds = "cpu_s"
            case realTimeFactor = "rtf", endOfUtteranceMedian = "eou_median_s", endOfUtteranceP95 = "eou_p95_s"
        }

        var scores: DecoderScores {
            DecoderScores(
                utterances: utterances,
                words: WordErrorRate(
                    substitutions: substitutions, deletions: deletions, insertions: insertions,
                    referenceWordCount: referenceWords),
                audioSeconds: audioSeconds, cpuSeconds: cpuSeconds, endOfUtteranceMedian: endOfUtteranceMedian,
                endOfUtteranceP95: endOfUtteranceP95)
        }
    }

    /// The JSON document; `parameters` records what the grid did not vary (the other search settings,
    /// the corpora, the set's size).
    public func json(parameters: [String: ParameterValue]) throws -> String {
        let document = Document(
            schemaVersion: Self.schemaVersion, gridOrder: grid.axes.map(\.parameter.rawValue),
            grid: grid.specification, parameters: parameters,
            rows: rows.map { row in
                let s = row.scores
                return Row(
                    setting: Dictionary(
                        uniqueKeysWithValues: row.setting.values.map {
                            ($0.parameter.rawValue, $0.parameter.format($0.value))
                        }),
                    utterances: s.utterances, referenceWords: s.words.referenceWordCount,
                    substitutions: s.words.substitutions, deletions: s.words.deletions,
                    insertions: s.words.insertions, wer: s.words.rate, audioSeconds: s.audioSeconds,
                    cpuSeconds: s.cpuSeconds, realTimeFactor: s.realTimeFactor,
                    endOfUtteranceMedian: s.endOfUtteranceMedian, endOfUtteranceP95: s.endOfUtteranceP95,
                    pareto: row.isParetoOptimal)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    // MARK: Resume

    /// The rows of a table written for `grid` at `path`; rows of settings outside the grid are
    /// dropped, and a table of another grid is an error naming the file and line or field.
    public static func resume(grid: DecoderGrid, from path: String, format: Format) throws -> DecoderSweepTable {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the decoder sweep to resume")
        }
        var table = DecoderSweepTable(grid: grid)
        switch format {
        case .csv:
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            guard lines.first == table.csvHeader else {
                throw EarshotError(
                    .invalidInput,
                    "\(path): line 1: not a decoder sweep over this grid (expected header '\(table.csvHeader)')")
            }
            for (offset, line) in lines.dropFirst().enumerated() {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                let setting = fields.prefix(grid.axes.count)
                let row = try table.row(
                    values: Dictionary(uniqueKeysWithValues: zip(grid.axes.map(\.parameter.rawValue), setting)),
                    scores: Array(fields.dropFirst(grid.axes.count)), where: "\(path): line \(offset + 2)")
                table.keep(row)
            }
        case .json:
            let document: Document
            do {
                document = try JSONDecoder().decode(Document.self, from: data)
            } catch {
                throw EarshotError(.invalidInput, "\(path): not a decoder sweep JSON document (\(error))")
            }
            guard document.gridOrder == grid.axes.map(\.parameter.rawValue) else {
                throw EarshotError(
                    .invalidInput, "\(path): field 'grid_order': written for \(document.gridOrder), not this grid")
            }
            for (index, row) in document.rows.enumerated() {
                let setting = try table.setting(row.setting, where: "\(path): rows[\(index)]")
                table.keep(DecoderSweepRow(setting: setting, scores: row.scores))
            }
        }
        return table
    }

    private mutating func keep(_ row: DecoderSweepRow) {
        if finished.covers(row.setting) { insert(row) }
    }

    private func setting(_ values: [String: String], where location: String) throws -> DecoderSetting {
        DecoderSetting(
            values: try grid.axes.map { axis in
                guard let text = values[axis.parameter.rawValue] else {
                    throw EarshotError(.invalidInput, "\(location): field '\(axis.parameter.rawValue)' is missing")
                }
                return (axis.parameter, try axis.parameter.parse(text))
            })
    }

    private func row(values: [String: String], scores fields: [String], where location: String) throws
        -> DecoderSweepRow
    {
        guard fields.count == Self.scoreColumns.count else {
            throw EarshotError(
                .invalidInput, "\(location): expected \(grid.axes.count + Self.scoreColumns.count) fields")
        }
        let numbers = fields.map(Double.init)
        for (name, number) in zip(Self.scoreColumns, numbers) where number == nil {
            throw EarshotError(.invalidInput, "\(location): field '\(name)': expected a number")
        }
        let n = numbers.map { $0! }
        let scores = DecoderScores(
            utterances: Int(n[0]),
            words: WordErrorRate(
                substitutions: Int(n[2]), deletions: Int(n[3]), insertions: Int(n[4]), referenceWordCount: Int(n[1])),
            audioSeconds: n[6], cpuSeconds: n[7], endOfUtteranceMedian: n[9], endOfUtteranceP95: n[10])
        return DecoderSweepRow(setting: try setting(values, where: location), scores: scores)
    }
}
