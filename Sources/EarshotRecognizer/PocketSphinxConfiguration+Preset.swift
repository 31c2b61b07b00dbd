extension PocketSphinxConfiguration {
    /// Named search settings, chosen from the word error rate versus speed front measured with
    /// `earshot decoder-sweep` (BENCHMARKS.md, "The recognizer's front"): the same model, searched
    /// more or less widely. `--decoder` on `transcribe`, `serve` and `bench` picks one.
    public enum Preset: String, Sendable, Hashable, CaseIterable, Codable {
        /// The fastest setting on the front, for many live streams on few cores, at a stated loss of words.
        case fast
        /// The fastest setting within one word error point (0.01) of ``accurate`` on the words it was
        /// chosen on and on a set that took no part in the choice: the default.
        case balanced
        /// PocketSphinx's own search settings, which were Earshot's before the front was measured.
        case accurate

        /// The preset a configuration gets unless told otherwise.
        public static let `default` = Preset.balanced

        /// beam, wordBeam, maxActiveHMMs, frameDownsampling, topGaussians, lookaheadWindow, lookaheadBeam.
        var search: (Double, Double, Int, Int, Int, Int, Double) {
            switch self {
            // Measured on 1 226 words (BENCHMARKS.md): WER 0.260 at RTF 0.24 for accurate.
            // At most 1 000 active HMMs, acoustic scores every other frame, from the best 2 Gaussians:
            // WER 0.341 (+8.1 points), RTF 0.053.
            case .fast: (1e-48, 7e-29, 1_000, 2, 2, 5, 1e-10)
            // At most 5 000 active HMMs: WER 0.260 (accurate's) at RTF 0.184 on the 1 226 words; confirmed on
            // long-002 (1 074 words, not used in the choice): 0.226 vs 0.228 at 0.64× accurate's CPU. Scoring
            // the best 2 Gaussians instead (the preset until 2026-11-26) lost 0.9 points on the choice set
            // and 2.9 on long-002, 8.5 on the LibriVox clips decoded whole.
            case .balanced: (1e-48, 7e-29, 5_000, 1, 4, 5, 1e-10)
            case .accurate: (1e-48, 7e-29, 30_000, 1, 4, 5, 1e-10)
            }
        }
    }

    /// Replaces the search settings with those of `preset`; the model paths, ``removeSilence`` and
    /// ``flatPass`` stay.
    public mutating func apply(_ preset: Preset) {
        (beam, wordBeam, maxActiveHMMs, frameDownsampling, topGaussians, lookaheadWindow, lookaheadBeam) =
            preset.search
    }

    /// This configuration with the search settings of `preset`.
    public func applying(_ preset: Preset) -> PocketSphinxConfiguration {
        var configuration = self
        configuration.apply(preset)
        return configuration
    }
}
