import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct ShardTests {
    @Test func parsesIOfN() throws {
        let shard = try Shard(parsing: "2/4")
        #expect(shard.index == 2 && shard.count == 4 && shard.description == "2/4")
        #expect(try Shard(parsing: "1/1") == .whole)
    }

    @Test(arguments: ["0/3", "4/3", "1/0", "x", "", "1/", "2", "1/3/3", " 1/3", "1.5/3", "-1/3", "1/100001"])
    func refusesWhatIsNotIOfN(text: String) {
        #expect(throws: EarshotError.self) { try Shard(parsing: text) }
    }

    /// Sorted by path (bytes, not the order given), then dealt round-robin: the shards are disjoint and
    /// together hold every item once, and each keeps the order it was given.
    @Test func dealsSortedPathsRoundRobin() throws {
        let paths = ["b.wav", "a.wav", "c/x.wav", "B.wav", "a b.wav", "é.wav", "d.wav"]
        // Byte order: "B.wav" < "a b.wav" < "a.wav" < "b.wav" < "c/x.wav" < "d.wav" < "é.wav".
        let shards = try (1...3).map { try Shard(index: $0, count: 3).select(paths: paths) }
        #expect(shards[0] == ["b.wav", "B.wav", "é.wav"])
        #expect(shards[1] == ["c/x.wav", "a b.wav"])
        #expect(shards[2] == ["a.wav", "d.wav"])
        #expect(shards.flatMap { $0 }.sorted() == paths.sorted())
        #expect(try Shard(index: 3, count: 9).select(paths: ["one.wav"]).isEmpty)
    }

    @Test func selectsCorpusEntriesWithTheirManifestIndex() throws {
        let corpus = Corpus(
            directory: "c",
            entries: ["z.wav", "y.wav", "x.wav"].map { CorpusEntry(path: $0, duration: 1, speech: []) })
        let first = try Shard(index: 1, count: 2).select(corpus)
        #expect(first.map(\.index) == [0, 2])  // x.wav and z.wav, in manifest order
        #expect(try Shard(index: 2, count: 2).select(corpus).map(\.entry.path) == ["y.wav"])
    }
}
