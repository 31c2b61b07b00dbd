import EarshotCore
public import EarshotRecognizer
import Foundation

/// What one decoder setting did with a ``DecoderTestSet``: its word errors, its cost, and the wait
/// for the final result once the audio has all been fed.
public struct DecoderScores: Sendable, Equatable {
    public var utterances: Int
    /// Word errors over the set: each recording's utterances joined and aligned with its transcript.
    public var words: WordErrorRate
    /// Audio decoded, in seconds.
    public var audioSeconds: Double
    /// CPU time of the decoding thread while it fed audio and ended utterances (model loading excluded).
    public var cpuSeconds: Double
    /// What `endUtterance()` cost, from the last sample fed to the final result (the last piece of
    /// audio, the lattice and the words' posteriors): median and 95th percentile over the utterances.
    /// Counted in the decoding thread's CPU seconds, which is the wait on an idle core: on a shared
    /// machine the wall-clock wait also counts whatever else ran, and swamps the differences sought.
    public var endOfUtteranceMedian: Double
    public var endOfUtteranceP95: Double

    public init(
        utterances: Int, words: WordErrorRate, audioSeconds: Double, cpuSeconds: Double,
        endOfUtteranceMedian: Double, endOfUtteranceP95: Double
    ) {
        self.utterances = utterances
        self.words = words
        self.audioSeconds = audioSeconds
        self.cpuSeconds = cpuSeconds
        self.endOfUtteranceMedian = endOfUtteranceMedian
        self.endOfUtteranceP95 = endOfUtteranceP95
    }

    /// CPU seconds per second of audio.
    public var realTimeFactor: Double { audioSeconds > 0 ? cpuSeconds / audioSeconds : 0 }

    /// Decodes `set` with a recognizer loaded with `configuration`, on the calling thread. The
    /// cepstral mean carries from one utterance to the next within a recording and is reset between
    /// recordings, as `earshot transcribe --jobs 1` decodes a file.
    public static func measure(_ set: DecoderTestSet, configuration: PocketSphinxConfiguration) throws -> DecoderScores
    {
        let recognizer = try PocketSphinxRecognizer(configuration: configuration)
        var words = WordErrorRate.zero
        var cpu = 0.0
        var waits: [Double] = []
        for recording in set.recordings {
            try recognizer.resetAdaptation()
            var texts: [String] = []
            for utterance in recording.utterances {
                let started = threadCPUSeconds()
                try recognizer.startUtterance()
                for buffer in utterance { try recognizer.accept(buffer) }
                let lastFed = threadCPUSeconds()
                let result = try recognizer.endUtterance()
                let ended = threadCPUSeconds()
                cpu += ended - started
                waits.append(ended - lastFed)
                texts.append(result.text)
            }
            words = words + WordErrorRate(reference: recording.transcript, hypothesis: texts.joined(separator: " "))
        }
        let sorted = waits.sorted()
        return DecoderScores(
            utterances: waits.count, words: words, audioSeconds: set.audioSeconds, cpuSeconds: cpu,
            endOfUtteranceMedian: sorted.isEmpty ? 0 : Summary.percentile(50, ofSorted: sorted),
            endOfUtteranceP95: sorted.isEmpty ? 0 : Summary.percentile(95, ofSorted: sorted))
    }

    /// CPU time the calling thread has used, in seconds.
    private static func threadCPUSeconds() -> Double {
        let elapsed = ThreadCPUClock.current?.elapsed ?? .zero
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
