import ArgumentParser
import EarshotCapture
import EarshotVAD

/// How a live client captures: its detector (Silero when installed, by ``VADModelOptions``' rule) and
/// the SDK's endpointing. `listen` is that client; `bench` replays corpora through the same one, so a
/// load test measures what a user of `listen` gets.
struct CaptureOptions: ParsableArguments {
    @OptionGroup var endpointing: EndpointingOptions

    @Option(help: VADModelOptions.detectorHelp)
    var detector: DetectorKind?

    @OptionGroup var vadModel: VADModelOptions

    /// The capture configuration these options describe.
    func configuration() throws -> CaptureConfiguration {
        var capture = CaptureConfiguration()
        capture.endpointing = try endpointing.configuration()
        (capture.detector, capture.detectorModels) = try vadModel.resolve(detector)
        return capture
    }
}
