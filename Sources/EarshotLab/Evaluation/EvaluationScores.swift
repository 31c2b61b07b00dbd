import EarshotCore
import EarshotVAD

/// What an evaluation measured on some files of a corpus, before anything is averaged: per file its
/// frame counts, boundary errors and endpoint, and per group the counts of each speech probability.
///
/// These are sufficient statistics: the reports `earshot eval` prints are computed from them alone
/// (``reports()``), and the scores of the shards of a corpus merge (``merged(_:)``) into exactly the
/// scores of one run over it, so the merged report equals one run's to the last digit. An unsharded
/// run takes the same path, as the merge of one part.
public struct EvaluationScores: Sendable, Equatable, Codable {
    /// One file of the corpus, as the reports need it.
    public struct Entry: Sendable, Equatable, Codable {
        /// Its line in the manifest, from 0: merged scores are put back in manifest order.
        public var index: Int
        public var path: String
        public var duration: Double
        public var speech: [LabeledSegment]
        /// The value of the `--group-by` tag (`none` when the file has no such tag); nil without grouping.
        public var group: String?

        enum CodingKeys: String, CodingKey {
            case index, path, speech, group
            case duration = "duration_s"
        }
    }

    /// One file's scores under one scorer.
    public struct FileScores: Sendable, Equatable, Codable {
        public var frames: FrameMetrics
        public var boundaries: BoundaryErrors
        public var utterance: UtteranceResult
    }

    /// One detector (or one set of prediction files) over the files.
    public struct Scorer: Sendable, Equatable, Codable {
        public var name: String
        public var onTimeTolerance: Double
        /// CPU seconds the detector took (0 for prediction files): speed is audio over CPU time.
        public var cpuSeconds: Double
        /// One per entry, in the same order.
        public var files: [FileScores]
        /// The probabilities' counts by group value (the key `""` without grouping).
        public var probabilities: [String: ProbabilityScores]

        enum CodingKeys: String, CodingKey {
            case name, files, probabilities
            case onTimeTolerance = "on_time_tolerance_s", cpuSeconds = "cpu_s"
        }
    }

    /// The corpus folder, as given.
    public var directory: String
    /// The tag the reports are also grouped by, if any.
    public var groupBy: String?
    /// In manifest order.
    public var entries: [Entry]
    public var scorers: [Scorer]

    enum CodingKeys: String, CodingKey {
        case directory, entries, scorers
        case groupBy = "group_by"
    }

    /// Scores `entries` (with their manifest indices) of `corpus` under each scorer: `tracks[s][i]` is
    /// scorer s's track of `entries[i]`.
    public static func score(
        _ entries: [(index: Int, entry: CorpusEntry)], of corpus: Corpus, groupBy: String?,
        scorers: [(name: String, settings: EvaluationSettings, tracks: [DetectorTrack], cpuSeconds: Double)],
        jobs: Int
    ) async throws -> EvaluationScores {
        let scoredEntries = entries.map { index, entry in
            Entry(
                index: index, path: entry.path, duration: entry.duration, speech: entry.speech,
                group: groupBy.map { entry.tags[$0] ?? "none" })
        }
        var scored: [Scorer] = []
        for scorer in scorers {
            precondition(scorer.tracks.count == entries.count, "one track per entry")
            let settings = scorer.settings
            let tracks = scorer.tracks
            let fileScores = try await ParallelWork.map(count: entries.count, jobs: jobs) { position in
                try UtteranceScorer.score(tracks[position], against: entries[position].entry, settings: settings)
            }
            var probabilities: [String: ProbabilityScores] = [:]
            for (score, entry) in zip(fileScores, scoredEntries) {
                probabilities[entry.group ?? "", default: ProbabilityScores()].add(score.probabilities)
            }
            scored.append(
                Scorer(
                    name: scorer.name, onTimeTolerance: settings.onTimeTolerance, cpuSeconds: scorer.cpuSeconds,
                    files: fileScores.map {
                        FileScores(frames: $0.frames, boundaries: $0.boundaries, utterance: $0.utterance)
                    }, probabilities: probabilities))
        }
        return EvaluationScores(directory: corpus.directory, groupBy: groupBy, entries: scoredEntries, scorers: scored)
    }

    /// The scores of disjoint parts of one corpus as one: entries back in manifest order, counts added.
    /// The parts must come from the same run (the caller checks their provenance); scorers are matched
    /// by position and must agree in name.
    public static func merged(_ parts: [EvaluationScores]) throws -> EvaluationScores {
        guard var merged = parts.first else { throw EarshotError(.invalidParameter, "no scores to merge") }
        for part in parts.dropFirst() {
            guard part.scorers.map(\.name) == merged.scorers.map(\.name), part.groupBy == merged.groupBy else {
                throw EarshotError(.invalidInput, "scores of different detectors or groupings cannot be merged")
            }
            merged.entries += part.entries
            for (index, scorer) in part.scorers.enumerated() {
                merged.scorers[index].files += scorer.files
                merged.scorers[index].cpuSeconds += scorer.cpuSeconds
                for (group, scores) in scorer.probabilities {
                    merged.scorers[index].probabilities[group, default: ProbabilityScores()].add(scores)
                }
            }
        }
        let order = merged.entries.indices.sorted { merged.entries[$0].index < merged.entries[$1].index }
        for (earlier, later) in zip(order, order.dropFirst())
        where merged.entries[earlier].index == merged.entries[later].index {
            throw EarshotError(
                .invalidInput,
                "\(merged.entries[later].path): scored twice (manifest line \(merged.entries[later].index + 1))")
        }
        merged.entries = order.map { merged.entries[$0] }
        for index in merged.scorers.indices {
            let files = merged.scorers[index].files
            merged.scorers[index].files = order.map { files[$0] }
        }
        return merged
    }

    /// One report per scorer for the whole corpus, then (with `groupBy`) for each value of the tag in
    /// ascending order, each with the corpus (or subset) it describes.
    public func reports() -> [(group: String?, corpus: Corpus, reports: [DetectorReport])] {
        let whole = corpus(of: Array(entries.indices))
        var groups: [(name: String?, value: String?, positions: [Int])] = [(nil, nil, Array(entries.indices))]
        if let groupBy {
            for value in Set(entries.compactMap(\.group)).sorted() {
                groups.append(("\(groupBy)=\(value)", value, entries.indices.filter { entries[$0].group == value }))
            }
        }
        return groups.map { group in
            let corpus = corpus(of: group.positions)
            let share = corpus.totalDuration / max(whole.totalDuration, 1e-9)
            let reports = scorers.map { scorer in
                var report = DetectorReport(name: scorer.name)
                report.onTimeTolerance = scorer.onTimeTolerance
                for position in group.positions {
                    let file = scorer.files[position]
                    report.frames.add(file.frames)
                    report.boundaries.add(file.boundaries)
                    report.results.append(file.utterance)
                    report.audioSeconds += entries[position].duration
                }
                if let value = group.value {
                    report.probabilities = scorer.probabilities[value] ?? ProbabilityScores()
                } else {
                    for scores in scorer.probabilities.values { report.probabilities.add(scores) }
                }
                report.detectorSeconds = scorer.cpuSeconds * share
                return report
            }
            return (group.name, corpus, reports)
        }
    }

    private func corpus(of positions: [Int]) -> Corpus {
        Corpus(
            directory: directory,
            entries: positions.map {
                CorpusEntry(path: entries[$0].path, duration: entries[$0].duration, speech: entries[$0].speech)
            })
    }
}
