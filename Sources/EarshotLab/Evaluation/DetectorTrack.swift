public import EarshotCore
import EarshotIO
public import EarshotVAD
import Foundation

/// A detector's output over one file of a corpus: its frames, in order, with their probabilities.
///
/// Computing a track is the costly part of an evaluation (decoding, resampling, the detector);
/// smoothing and endpointing are cheap, so a sweep computes each detector's tracks once and replays
/// them under every setting. Tracks also come from files another tool wrote (`NAME.prob`, `NAME.csv`),
/// so outside detectors are scored on the same corpus by the same code.
public struct DetectorTrack: Sendable {
    /// The sample rate the frames' media times count in.
    public var sampleRate: Int
    /// The detector's hop, in samples.
    public var hopLength: Int
    public var frames: [VADFrame]
    /// Whether the frames are decisions another tool made with its own smoothing (speech segments from a
    /// `NAME.csv`), rather than probabilities: replayed as given, without Earshot's smoothing (which
    /// would pad and hold them a second time).
    public var isDecided = false

    public init(sampleRate: Int, hopLength: Int, frames: [VADFrame]) {
        self.sampleRate = sampleRate
        self.hopLength = hopLength
        self.frames = frames
    }

    /// The rate detectors run at in the lab: the working rate of the recognizer.
    public static let workingRate = SpeechDetection.workingRate

    /// Runs `detector` over the audio at `path`, resampled to 16 kHz mono.
    public static func compute(path: String, detector kind: DetectorKind, models: DetectorModels = .none) throws
        -> DetectorTrack
    {
        var source: any AudioSource = try AudioInput.open(path: path, raw: nil, codec: nil, blockFrames: 4096)
        return try compute(source: &source, detector: kind, models: models)
    }

    /// Runs `detector` over what `source` gives, resampled to 16 kHz mono (``SpeechDetection``).
    public static func compute(
        source: inout any AudioSource, detector kind: DetectorKind, models: DetectorModels = .none
    ) throws -> DetectorTrack {
        let detection = try SpeechDetection.run(source: &source, detector: kind, models: models)
        return DetectorTrack(sampleRate: workingRate, hopLength: detection.hopLength, frames: detection.frames)
    }

    /// A track on the 10 ms grid from one probability per cell (the `NAME.prob` layout).
    public init(gridProbabilities: [Float]) {
        let hop = DetectorTrack.workingRate / 100
        self.init(
            sampleRate: DetectorTrack.workingRate, hopLength: hop,
            frames: gridProbabilities.enumerated().map { cell, probability in
                VADFrame(
                    start: MediaTime(frame: Int64(cell * hop), sampleRate: DetectorTrack.workingRate),
                    frameCount: hop, probability: probability)
            })
    }

    /// One probability per 10 ms cell of a file of `duration` seconds, whatever the detector's hop: the
    /// layout of `NAME.prob` files and of `earshot vad --format probs` (the inverse of
    /// ``init(gridProbabilities:)``).
    public func gridProbabilities(duration: Double) -> [Float] {
        FrameGrid.values(
            frames.map { ($0.start.seconds, $0.end.seconds, $0.probability) },
            cellCount: FrameGrid.cellCount(duration: duration))
    }
}
