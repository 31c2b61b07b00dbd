import EarshotCore

/// One of N deterministic slices of a job's work (`--shard I/N`, I from 1), for batch schedulers:
/// a Slurm job array runs `--shard $SLURM_ARRAY_TASK_ID/N` in every task.
///
/// The rule is the same on every machine, whatever its cores or locale: the items are put in a
/// canonical order (corpus files by their path in the manifest, files named on the command line by
/// path, grid points in grid order), and shard I takes the I-th, (I+N)-th, (I+2N)-th … of them.
/// Dealing round-robin rather than cutting blocks spreads a corpus built group by group (one voice,
/// one noise type after another) evenly over the shards, so no shard gets all of the slow files.
public struct Shard: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based.
    public var index: Int
    public var count: Int

    /// At most this many shards: a bound that keeps a typo (`1/1000000000`) from planning nonsense.
    public static let maximumCount = 100_000

    public init(index: Int, count: Int) throws {
        guard count >= 1, count <= Self.maximumCount else {
            throw EarshotError(
                .invalidParameter, "--shard \(index)/\(count): expected N between 1 and \(Self.maximumCount)")
        }
        guard index >= 1, index <= count else {
            throw EarshotError(.invalidParameter, "--shard \(index)/\(count): expected I between 1 and N (\(count))")
        }
        self.index = index
        self.count = count
    }

    /// Parses `I/N`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw EarshotError(
                .invalidParameter, "--shard '\(text)': expected I/N, two whole numbers with 1 ≤ I ≤ N, e.g. 2/4")
        }
        try self.init(index: index, count: count)
    }

    /// The whole job as one shard.
    public static let whole = try! Shard(index: 1, count: 1)

    public var description: String { "\(index)/\(count)" }

    /// Whether the item at `position` of the canonical order (0-based) belongs to this shard.
    public func contains(position: Int) -> Bool { position % count == index - 1 }

    /// The positions (into `items`) of this shard's items: `items` sorted by `key` (ties by position),
    /// then every N-th from the I-th. Returned in ascending position order.
    public func positions<Item>(of items: [Item], orderedBy key: (Item) -> String) -> [Int] {
        let canonical = items.indices.sorted { a, b in
            // Compared as UTF-8 bytes: the same order on every machine (no locale, no normalization).
            let (keyA, keyB) = (Array(key(items[a]).utf8), Array(key(items[b]).utf8))
            return keyA == keyB ? a < b : keyA.lexicographicallyPrecedes(keyB)
        }
        return canonical.enumerated().filter { contains(position: $0.offset) }.map(\.element).sorted()
    }

    /// This shard's paths, in the order given: the paths sorted by their bytes, every N-th from the I-th.
    public func select(paths: [String]) -> [String] {
        positions(of: paths) { $0 }.map { paths[$0] }
    }

    /// This shard of a corpus: its entries sorted by path, every N-th from the I-th; kept in manifest
    /// order, each with its place in the whole manifest.
    public func select(_ corpus: Corpus) -> [(index: Int, entry: CorpusEntry)] {
        positions(of: corpus.entries) { $0.path }.map { ($0, corpus.entries[$0]) }
    }
}
