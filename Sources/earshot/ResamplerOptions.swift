public import ArgumentParser
import EarshotDSP

extension Resampler.Engine: ExpressibleByArgument {}

/// How inputs not at the working rate are resampled: `--resampler` and `--resampler-quality`.
struct ResamplerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Resampling library for inputs not at the working rate: soxr (libsoxr's high quality) or speexdsp.",
            valueName: "engine"))
    var resampler: Resampler.Engine = .soxr

    @Option(help: "speexdsp's quality with --resampler speexdsp, 0 (fastest) to 10 (best).")
    var resamplerQuality: Int = 4

    /// The resampler's configuration at `sampleRate`.
    func configuration(sampleRate: Int) -> Resampler.Configuration {
        Resampler.Configuration(sampleRate: sampleRate, engine: resampler, quality: resamplerQuality)
    }
}
