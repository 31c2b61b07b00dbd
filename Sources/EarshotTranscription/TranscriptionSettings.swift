import EarshotCore
public import EarshotDSP
public import EarshotVAD
import Foundation

/// How ``BatchTranscriber`` runs: how many recognizers work at once, and how recordings are cut.
public struct TranscriptionSettings: Sendable, Hashable {
    /// Segments recognized at once, each by its own recognizer. Default: the active processor count
    /// (recognition is CPU-bound, and one PocketSphinx decoder keeps one core busy).
    public let jobs: Int
    /// Where recordings are cut into segments.
    public let chunking: UtteranceChunkerConfiguration
    /// The resampling library for inputs not at 16 kHz. Default libsoxr.
    public let resampler: Resampler.Engine
    /// speexdsp's resampler quality, 0 (fastest) to 10 (best), with ``resampler`` speexdsp. Default 4.
    public let resamplerQuality: Int

    /// One job per active processor.
    public static var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Checks every value; throws `.invalidParameter` naming `jobs` or `resamplerQuality`.
    public init(
        jobs: Int = TranscriptionSettings.defaultJobs, chunking: UtteranceChunkerConfiguration? = nil,
        resampler: Resampler.Engine = .soxr, resamplerQuality: Int = 4
    ) throws {
        guard jobs >= 1 else {
            throw EarshotError(.invalidParameter, "jobs: expected at least 1, got \(jobs)")
        }
        guard (0...10).contains(resamplerQuality) else {
            throw EarshotError(.invalidParameter, "resamplerQuality: expected 0 to 10, got \(resamplerQuality)")
        }
        self.jobs = jobs
        self.chunking = try chunking ?? UtteranceChunkerConfiguration()
        self.resampler = resampler
        self.resamplerQuality = resamplerQuality
    }
}
