public import Foundation

/// What a load test measured, per number of concurrent streams.
public struct LoadReport: Sendable {
    public var levels: [Level]
    public var url: String
    public var corpus: String
    public var date: Date

    public init(levels: [Level], url: String, corpus: String, date: Date = Date()) {
        self.levels = levels
        self.url = url
        self.corpus = corpus
        self.date = date
    }

    public struct Level: Sendable {
        public var streams: Int
        public var samples: [LoadTest.Sample]
        /// Server CPU seconds per wall-clock second during the level, when its process was named.
        public var serverCPU: Double?

        public init(streams: Int, samples: [LoadTest.Sample], serverCPU: Double? = nil) {
            self.streams = streams
            self.samples = samples
            self.serverCPU = serverCPU
        }

        public var latencies: [Double] { samples.compactMap(\.latency).sorted() }
        public var completed: Int { latencies.count }
        public var failed: Int { samples.count - completed }
        /// Failures by code (e.g. "HTTP 503": 3).
        public var failures: [String: Int] {
            samples.compactMap(\.failure).reduce(into: [:]) { $0[$1, default: 0] += 1 }
        }
        public var partialLags: [Double] { samples.flatMap(\.partialLags).sorted() }
        public var afterEndpoint: [Double] { samples.compactMap(\.afterEndpoint).sorted() }

        /// The `p`-quantile of sorted `values` (nearest rank), or nil when empty.
        public static func quantile(_ values: [Double], _ p: Double) -> Double? {
            guard !values.isEmpty else { return nil }
            let rank = Int((p * Double(values.count)).rounded(.up)) - 1
            return values[min(max(rank, 0), values.count - 1)]
        }
    }

    /// A fixed-width table for a terminal.
    public var table: String {
        var lines = [
            "                       end of speech → result          endpoint → result",
            "streams  done  failed   p50 s   p90 s   p99 s   max s   p50 s   p95 s   partial lag p50 s   server CPU",
        ]
        for level in levels {
            let l = level.latencies
            func cell(_ value: Double?) -> String { value.map { String(format: "%7.3f", $0) } ?? "      -" }
            let cpu = level.serverCPU.map { String(format: "%5.2f cores", $0) } ?? "-"
            lines.append(
                String(format: "%7d  %4d  %6d ", level.streams, level.completed, level.failed)
                    + " \(cell(Level.quantile(l, 0.5))) \(cell(Level.quantile(l, 0.9))) \(cell(Level.quantile(l, 0.99)))"
                    + " \(cell(l.last)) \(cell(Level.quantile(level.afterEndpoint, 0.5)))"
                    + " \(cell(Level.quantile(level.afterEndpoint, 0.95)))   \(cell(Level.quantile(level.partialLags, 0.5)))"
                    + "             \(cpu)")
            if !level.failures.isEmpty {
                lines.append(
                    "         failures: "
                        + level.failures.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                            separator: ", "))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON (`schema_version` 1; times in seconds, the unit in the field names).
    public func json() throws -> Data {
        let formatter = ISO8601DateFormatter()
        let document: [String: Any] = [
            "schema_version": 1, "url": url, "corpus": corpus, "date": formatter.string(from: date),
            "levels": levels.map { level -> [String: Any] in
                let l = level.latencies
                var entry: [String: Any] = [
                    "streams": level.streams, "completed": level.completed, "failed": level.failed,
                    "failures": level.failures, "latencies_s": l,
                ]
                for (name, p) in [("p50_s", 0.5), ("p90_s", 0.9), ("p95_s", 0.95), ("p99_s", 0.99)] {
                    entry[name] = Level.quantile(l, p) ?? NSNull()
                }
                entry["max_s"] = l.last ?? NSNull()
                let endpoint = level.afterEndpoint
                entry["endpoint_to_result_s"] = endpoint
                entry["endpoint_p50_s"] = Level.quantile(endpoint, 0.5) ?? NSNull()
                entry["endpoint_p95_s"] = Level.quantile(endpoint, 0.95) ?? NSNull()
                entry["partial_lag_p50_s"] = Level.quantile(level.partialLags, 0.5) ?? NSNull()
                entry["partial_lag_p90_s"] = Level.quantile(level.partialLags, 0.9) ?? NSNull()
                entry["server_cpu_cores"] = level.serverCPU ?? NSNull()
                return entry
            },
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }
}
