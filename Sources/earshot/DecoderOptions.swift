public import ArgumentParser
public import EarshotRecognizer

extension PocketSphinxConfiguration.Preset: ExpressibleByArgument {}

/// The embedded recognizer's search settings: `--decoder fast|balanced|accurate`.
struct DecoderOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Embedded recognizer's search: fast, balanced or accurate (BENCHMARKS.md). Default: balanced.",
            valueName: "preset"))
    var decoder: PocketSphinxConfiguration.Preset?

    /// The preset asked for, or the default one.
    var preset: PocketSphinxConfiguration.Preset { decoder ?? .default }

    /// Refuses `--decoder` where no embedded recognizer runs (`why` says what runs instead).
    func refuse(_ why: String) throws {
        if decoder != nil { throw ValidationError("--decoder sets the embedded recognizer; \(why)") }
    }
}
