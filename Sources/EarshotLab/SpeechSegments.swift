public import EarshotCore
import Foundation

/// Turns word times and clean signals into speech segments, the way every recipe labels speech.
public enum SpeechSegments {
    /// Pauses shorter than this are part of the speech around them: 200 ms is shorter than any
    /// endpointer's ending silence, so such a pause can never end an utterance, and labelling it
    /// would only count stop consonants and breaths as "cut-offs".
    public static let defaultMergeGap = 0.2

    /// Sorts `segments` and joins those that overlap or are separated by less than `gap` seconds.
    public static func merged(_ segments: [LabeledSegment], gap: Double = defaultMergeGap) -> [LabeledSegment] {
        var out: [LabeledSegment] = []
        for segment in segments.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = out.last, segment.start - last.end < gap {
                out[out.count - 1].end = max(last.end, segment.end)
            } else {
                out.append(segment)
            }
        }
        return out
    }

    /// Speech segments covering `words`, with pauses under `gap` merged.
    public static func segments(from words: [TimedWord], gap: Double = defaultMergeGap) -> [LabeledSegment] {
        merged(words.map { LabeledSegment(start: $0.start, end: $0.end) }, gap: gap)
    }

    /// Where a clean (noise-free) signal is active: the first and last 10 ms frame whose RMS is within
    /// `floorDB` of the signal's loudest frame. Synthesized speech is digital silence around the
    /// phrase, so this finds its true extent to one frame; the relative threshold (−45 dB by default)
    /// keeps quiet fricatives at the edges while ignoring the synthesizer's low-level tails.
    /// Returns nil for a silent signal. Times are in samples.
    public static func activeRange(of samples: [Float], sampleRate: Int, floorDB: Double = -45) -> Range<Int>? {
        let frame = max(1, sampleRate / 100)
        let frameCount = samples.count / frame + (samples.count % frame == 0 ? 0 : 1)
        guard frameCount > 0 else { return nil }
        var energies = [Double](repeating: 0, count: frameCount)
        samples.withUnsafeBufferPointer { pointer in
            for index in 0..<frameCount {
                let range = index * frame..<min(samples.count, (index + 1) * frame)
                var sum = 0.0
                for sample in pointer[range] { sum += Double(sample) * Double(sample) }
                energies[index] = sum / Double(range.count)
            }
        }
        guard let loudest = energies.max(), loudest > 0 else { return nil }
        let threshold = loudest * pow(10, floorDB / 10)
        guard let first = energies.firstIndex(where: { $0 >= threshold }),
            let last = energies.lastIndex(where: { $0 >= threshold })
        else { return nil }
        return first * frame..<min(samples.count, (last + 1) * frame)
    }

    /// The active stretches of a clean signal, in seconds: runs of 10 ms frames within `floorDB` of
    /// the loudest frame, with pauses under `gap` merged. Its hull is ``activeRange(of:sampleRate:floorDB:)``.
    public static func activeSegments(
        of samples: [Float], sampleRate: Int, floorDB: Double = -45, gap: Double = defaultMergeGap
    ) -> [LabeledSegment] {
        let frame = max(1, sampleRate / 100)
        var loudest = 0.0
        var energies: [Double] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + frame)
            var sum = 0.0
            for index in start..<end { sum += Double(samples[index]) * Double(samples[index]) }
            energies.append(sum / Double(end - start))
            loudest = max(loudest, energies[energies.count - 1])
            start = end
        }
        guard loudest > 0 else { return [] }
        let threshold = loudest * pow(10, floorDB / 10)
        var segments: [LabeledSegment] = []
        for (index, energy) in energies.enumerated() where energy >= threshold {
            let begin = Double(index * frame) / Double(sampleRate)
            let end = Double(min(samples.count, (index + 1) * frame)) / Double(sampleRate)
            if let last = segments.last, last.end >= begin {
                segments[segments.count - 1].end = end
            } else {
                segments.append(LabeledSegment(start: begin, end: end))
            }
        }
        return merged(segments, gap: gap)
    }
}
