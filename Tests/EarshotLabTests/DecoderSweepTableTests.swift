import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

/// The decoder sweep's table: grid order, the front of word errors versus speed, and reading back.
@Suite(.computing)
struct DecoderSweepTableTests {
    static let grid = try! DecoderGrid(parsing: ["beam=1e-48,1e-40,1e-32"])

    static func row(_ index: Int, errors: Int, cpu: Double) -> DecoderSweepRow {
        DecoderSweepRow(
            setting: grid.settings[index],
            scores: DecoderScores(
                utterances: 4,
                words: WordErrorRate(substitutions: errors, deletions: 1, insertions: 0, referenceWordCount: 100),
                audioSeconds: 50, cpuSeconds: cpu, endOfUtteranceMedian: 0.05, endOfUtteranceP95: 0.25))
    }

    /// Wide beam: accurate and slow; narrow: fast and poor; the middle one is beaten on both by the first.
    static var table: DecoderSweepTable {
        var table = DecoderSweepTable(grid: grid)
        table.insert(row(2, errors: 40, cpu: 5))
        table.insert(row(0, errors: 20, cpu: 20))
        table.insert(row(1, errors: 25, cpu: 25))
        return table
    }

    @Test func rowsAreInGridOrderWithTheFrontMarked() {
        let table = Self.table
        #expect(table.rows.map(\.setting.description) == ["beam=1e-48", "beam=1e-40", "beam=1e-32"])
        #expect(table.rows.map(\.isParetoOptimal) == [true, false, true])
        let lines = table.csv().split(separator: "\n")
        #expect(lines[0].hasPrefix("beam,utterances,reference_words,substitutions,deletions,insertions,wer,"))
        #expect(lines[1] == "1e-48,4,100,20,1,0,0.2100,50.000,20.000,0.4000,0.0500,0.2500,1")
    }

    @Test(arguments: DecoderSweepTable.Format.allCases)
    func resumeReadsBackEveryRow(format: DecoderSweepTable.Format) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = format == .csv ? Self.table.csv() : try Self.table.json(parameters: ["decoder": .name("accurate")])
        let path = try directory.write(Array(text.utf8), to: "front." + format.rawValue)
        let resumed = try DecoderSweepTable.resume(grid: Self.grid, from: path, format: format)
        #expect(resumed.rows == Self.table.rows)
    }

    @Test func aTableOfAnotherGridIsRefusedByLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Array(Self.table.csv().utf8), to: "front.csv")
        let other = try DecoderGrid(parsing: ["topGaussians=2,4"])
        let error = #expect(throws: EarshotError.self) {
            try DecoderSweepTable.resume(grid: other, from: path, format: .csv)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.message.hasPrefix("\(path): line 1: not a decoder sweep over this grid") == true)
    }
}
