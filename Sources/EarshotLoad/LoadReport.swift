public import EarshotLab
public import Foundation

/// What a load test measured, per number of concurrent streams.
public struct LoadReport: Sendable {
    public var levels: [Level]
    public var url: String
    public var corpus: String
    /// The language each stream asked for (`auto`: detected) and the task (`transcribe` or `translate`), so
    /// a report's words are read against the right reference.
    public var language: String
    public var task: String
    public var date: Date

    public init(
        levels: [Level], url: String, corpus: String, language: String = "auto", task: String = "transcribe",
        date: Date = Date()
    ) {
        self.levels = levels
        self.url = url
        self.corpus = corpus
        self.language = language
        self.task = task
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
        /// The words the last partial results showed and the final results changed, summed over the
        /// completed requests that had partial results (nil when none had).
        public var partialRevision: PartialRevision? {
            let tallies = samples.compactMap(\.partialRevision)
            return tallies.isEmpty ? nil : tallies.reduce(.zero, +)
        }
        /// The completed requests' words against their references, summed (nil when no request had both).
        public var wordErrors: WordErrorRate? {
            let scored = samples.compactMap(\.wordErrors)
            return scored.isEmpty ? nil : scored.reduce(.zero, +)
        }

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
            "streams  done  failed   p50 s   p90 s   p99 s   max s   p50 s   p95 s   partial lag p50 s   server CPU     WER",
        ]
        for level in levels {
            let l = level.latencies
            func cell(_ value: Double?) -> String { value.map { String(format: "%7.3f", $0) } ?? "      -" }
            let cpu = level.serverCPU.map { String(format: "%5.2f cores", $0) } ?? "          -"
            let wer = level.wordErrors.map { String(format: "%7.3f", $0.rate) } ?? "      -"
            lines.append(
                String(format: "%7d  %4d  %6d ", level.streams, level.completed, level.failed)
                    + " \(cell(Level.quantile(l, 0.5))) \(cell(Level.quantile(l, 0.9))) \(cell(Level.quantile(l, 0.99)))"
                    + " \(cell(l.last)) \(cell(Level.quantile(level.afterEndpoint, 0.5)))"
                    + " \(cell(Level.quantile(level.afterEndpoint, 0.95)))   \(cell(Level.quantile(level.partialLags, 0.5)))"
                    + "             \(cpu) \(wer)")
            if !level.failures.isEmpty {
                lines.append(
                    "         failures: "
                        + level.failures.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(
                            separator: ", "))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON (`schema_version` 1; times in seconds, the unit in the field names; a
    /// quantile of no values is null).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(self))
    }

    /// The JSON layout of a report.
    struct Document: Encodable {
        var schemaVersion = 1
        var url: String
        var corpus: String
        var language: String
        var task: String
        var date: String
        var levels: [LevelDocument]

        init(_ report: LoadReport) {
            url = report.url
            corpus = report.corpus
            language = report.language
            task = report.task
            date = ISO8601DateFormatter().string(from: report.date)
            levels = report.levels.map(LevelDocument.init)
        }

        enum CodingKeys: String, CodingKey {
            case url, corpus, language, task, date, levels
            case schemaVersion = "schema_version"
        }
    }

    struct LevelDocument: Encodable {
        var streams: Int
        var completed: Int
        var failed: Int
        var failures: [String: Int]
        var latencies: [Double]
        var p50, p90, p95, p99, max: Double?
        var endpointToResult: [Double]
        var endpointP50, endpointP95: Double?
        var partialLagP50, partialLagP90: Double?
        var partialWordsShown, partialWordsRevised: Int?
        var serverCPUCores: Double?
        var wer: Double?
        var wordErrors: WordErrorsDocument?
        var utterances: [UtteranceDocument]

        init(_ level: Level) {
            streams = level.streams
            completed = level.completed
            failed = level.failed
            failures = level.failures
            latencies = level.latencies
            (p50, p90, p95, p99) = (
                Level.quantile(latencies, 0.5), Level.quantile(latencies, 0.9), Level.quantile(latencies, 0.95),
                Level.quantile(latencies, 0.99)
            )
            max = latencies.last
            endpointToResult = level.afterEndpoint
            endpointP50 = Level.quantile(endpointToResult, 0.5)
            endpointP95 = Level.quantile(endpointToResult, 0.95)
            partialLagP50 = Level.quantile(level.partialLags, 0.5)
            partialLagP90 = Level.quantile(level.partialLags, 0.9)
            let revision = level.partialRevision
            (partialWordsShown, partialWordsRevised) = (revision?.shownWords, revision?.revisedWords)
            serverCPUCores = level.serverCPU
            let errors = level.wordErrors
            wer = errors.map(\.rate)
            wordErrors = errors.map(WordErrorsDocument.init)
            utterances = level.samples.map(UtteranceDocument.init)
        }

        enum CodingKeys: String, CodingKey {
            case streams, completed, failed, failures
            case latencies = "latencies_s", p50 = "p50_s", p90 = "p90_s", p95 = "p95_s", p99 = "p99_s", max = "max_s"
            case endpointToResult = "endpoint_to_result_s", endpointP50 = "endpoint_p50_s"
            case endpointP95 = "endpoint_p95_s", partialLagP50 = "partial_lag_p50_s"
            case partialLagP90 = "partial_lag_p90_s", serverCPUCores = "server_cpu_cores"
            case partialWordsShown = "partial_words_shown", partialWordsRevised = "partial_words_revised"
            case wer, wordErrors = "word_errors", utterances
        }

        /// Every field is written, absent values as null, so readers see one layout.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(streams, forKey: .streams)
            try container.encode(completed, forKey: .completed)
            try container.encode(failed, forKey: .failed)
            try container.encode(failures, forKey: .failures)
            try container.encode(latencies, forKey: .latencies)
            try container.encode(endpointToResult, forKey: .endpointToResult)
            try container.encode(utterances, forKey: .utterances)
            try container.encode(wordErrors, forKey: .wordErrors)
            try container.encode(wer, forKey: .wer)
            try container.encode(partialWordsShown, forKey: .partialWordsShown)
            try container.encode(partialWordsRevised, forKey: .partialWordsRevised)
            for (value, key) in [
                (p50, CodingKeys.p50), (p90, .p90), (p95, .p95), (p99, .p99), (max, .max),
                (endpointP50, .endpointP50), (endpointP95, .endpointP95), (partialLagP50, .partialLagP50),
                (partialLagP90, .partialLagP90), (serverCPUCores, .serverCPUCores),
            ] {
                try container.encode(value, forKey: key)
            }
        }
    }

    /// A level's word errors summed over its utterances.
    struct WordErrorsDocument: Encodable {
        var substitutions, deletions, insertions, referenceWords: Int

        init(_ errors: WordErrorRate) {
            (substitutions, deletions, insertions, referenceWords) = (
                errors.substitutions, errors.deletions, errors.insertions, errors.referenceWordCount
            )
        }

        enum CodingKeys: String, CodingKey {
            case substitutions, deletions, insertions, referenceWords = "reference_words"
        }
    }

    /// One request of a level: the recording, what was said and what came back.
    struct UtteranceDocument: Encodable {
        var path: String
        var reference: String?
        var transcript: String?
        var lastPartial: String?
        var latency: Double?
        var afterEndpoint: Double?
        var speechEnd: Double?
        var endpointAt: Double?
        var failure: String?
        var wer: Double?

        init(_ sample: LoadTest.Sample) {
            path = sample.path
            reference = sample.reference
            transcript = sample.transcript
            lastPartial = sample.lastPartial
            latency = sample.latency
            afterEndpoint = sample.afterEndpoint
            speechEnd = sample.speechEnd
            endpointAt = sample.endpointAt
            failure = sample.failure
            wer = sample.wordErrors.map(\.rate)
        }

        enum CodingKeys: String, CodingKey {
            case path, reference, transcript, failure, wer
            case lastPartial = "last_partial"
            case latency = "latency_s", afterEndpoint = "endpoint_to_result_s"
            case speechEnd = "speech_end_s", endpointAt = "endpoint_at_s"
        }

        /// Every field is written, absent values as null.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(reference, forKey: .reference)
            try container.encode(transcript, forKey: .transcript)
            try container.encode(lastPartial, forKey: .lastPartial)
            try container.encode(latency, forKey: .latency)
            try container.encode(afterEndpoint, forKey: .afterEndpoint)
            try container.encode(speechEnd, forKey: .speechEnd)
            try container.encode(endpointAt, forKey: .endpointAt)
            try container.encode(failure, forKey: .failure)
            try container.encode(wer, forKey: .wer)
        }
    }
}
