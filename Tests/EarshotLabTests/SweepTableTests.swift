import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct SweepTableTests {
    let grid = try! SweepGrid(parsing: ["detector=energy,spectral", "endingSilence=0.3,0.85"])

    func row(_ index: Int, latency: Double, truncated: Bool) -> SweepRow {
        let labelled = [LabeledSegment(start: 0.5, end: 2.0)]
        let endpoint = truncated ? 1.0 : 2.0 + latency
        let result = UtteranceResult(
            path: "u.wav", labelled: labelled, firstSpeechStart: 0.5, endpoint: endpoint, reason: .endingSilence,
            outcome: .audioCaptured)
        let ok = UtteranceResult(
            path: "v.wav", labelled: labelled, firstSpeechStart: 0.5, endpoint: 2.0 + latency, reason: .endingSilence,
            outcome: .audioCaptured)
        return SweepRow(setting: grid.settings[index], metrics: EndpointMetrics([result, ok]))
    }

    @Test func rowsStayInGridOrderWhateverOrderTheyFinish() {
        var table = SweepTable(grid: grid)
        for index in [3, 0, 2] { table.insert(row(index, latency: 0.5, truncated: false)) }
        #expect(table.rows.map(\.setting) == [grid.settings[0], grid.settings[2], grid.settings[3]])
    }

    @Test func csvMarksTheParetoFront() {
        var table = SweepTable(grid: grid)
        table.insert(row(0, latency: 0.3, truncated: true))  // fast, truncates: on the front
        table.insert(row(1, latency: 0.85, truncated: false))  // slow, no truncation: on the front
        table.insert(row(2, latency: 0.9, truncated: false))  // dominated by row 1
        table.insert(row(3, latency: 0.95, truncated: false))  // dominated by row 1
        let lines = table.csv().split(separator: "\n")
        #expect(lines[0] == "detector,endingSilence," + SweepTable.metricColumns.joined(separator: ","))
        // No oracle in these results: its columns are empty.
        #expect(lines[1] == "energy,0.3,2,0.300,0.300,0.5000,0.0000,0.0000,0.0000,1,,,,,,,")
        let pareto = 2 + SweepTable.metricColumns.firstIndex(of: "pareto")!
        #expect(lines[2].split(separator: ",", omittingEmptySubsequences: false)[pareto] == "1")
        #expect(lines[3].split(separator: ",", omittingEmptySubsequences: false)[pareto] == "0")
    }

    /// An interrupted sweep's table has no Pareto column yet: a front over some settings is not the front.
    @Test func anIncompleteTableMarksNoFront() throws {
        var table = SweepTable(grid: grid)
        table.insert(row(0, latency: 0.3, truncated: true))
        table.insert(row(1, latency: 0.85, truncated: false))
        #expect(!table.isComplete)
        let pareto = 2 + SweepTable.metricColumns.firstIndex(of: "pareto")!
        for line in table.csv().split(separator: "\n").dropFirst() {
            #expect(line.split(separator: ",", omittingEmptySubsequences: false)[pareto] == "")
        }
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(try table.json(parameters: [:]).utf8)) as? [String: Any])
        #expect(document["complete"] as? Bool == false)
        #expect((document["rows"] as? [[String: Any]])?.allSatisfy { $0["pareto"] == nil || $0["pareto"] is NSNull } == true)
    }

    @Test(arguments: SweepTable.Format.allCases)
    func resumeReadsBackFinishedRows(format: SweepTable.Format) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var table = SweepTable(grid: grid)
        table.insert(row(1, latency: 0.85, truncated: false))
        table.insert(row(2, latency: 0.4, truncated: true))
        let text = format == .csv ? table.csv() : try table.json(parameters: [:])
        let path = directory.file("sweep.\(format.rawValue)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let resumed = try SweepTable.resume(grid: grid, from: path, format: format)
        #expect(resumed.rows.map(\.setting) == [grid.settings[1], grid.settings[2]])
        #expect(resumed.rows[0].metrics.latency.median == 0.85)
        #expect(resumed.rows[1].metrics.truncationRate == 0.5)
        #expect(resumed.contains(grid.settings[1]) && !resumed.contains(grid.settings[0]))
    }

    @Test(arguments: SweepTable.Format.allCases)
    func theOracleColumnsAreWrittenAndReadBack(format: SweepTable.Format) throws {
        // Oracle endpoints at 2.85 s; the detector's at 2.9 s (on time) and 3.1 s (late).
        let labelled = [LabeledSegment(start: 0.5, end: 2.0)]
        let results = [2.9, 3.1].map { endpoint in
            UtteranceResult(
                path: "u.wav", labelled: labelled, firstSpeechStart: 0.5, endpoint: endpoint, reason: .endingSilence,
                outcome: .audioCaptured, oracleEndpoint: 2.85, oracleReason: .endingSilence)
        }
        var table = SweepTable(grid: grid)
        table.insert(SweepRow(setting: grid.settings[0], metrics: EndpointMetrics(results)))
        if format == .csv {
            // One row of the grid's three: the table is incomplete, so its pareto column is empty.
            #expect(table.csv().split(separator: "\n")[1].hasSuffix(",,0.5000,0.0000,0.5000,0.0000,0.150,0.230,0.150"))
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("sweep.\(format.rawValue)")
        let text = format == .csv ? table.csv() : try table.json(parameters: [:])
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let oracle = try SweepTable.resume(grid: grid, from: path, format: format).rows[0].metrics.oracle
        #expect(oracle.onTimeRate == 0.5 && oracle.lateRate == 0.5 && oracle.earlyRate == 0 && oracle.missedRate == 0)
        #expect(abs(oracle.delay.median! - 0.15) < 1e-9 && abs(oracle.absoluteDelay.median! - 0.15) < 1e-9)
    }

    @Test func resumingAnotherGridIsRefusedNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("other.csv")
        try Data("endingSilence,utterances\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = try thrownEarshotError { _ = try SweepTable.resume(grid: grid, from: path, format: .csv) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("other.csv: line 1") == true)
    }
}
