public import EarshotCore
public import EarshotVAD

/// The endpointer driven by a corpus entry's labels instead of a detector: a perfect VAD, with speech
/// exactly where it is labelled and no delay, on the lab's 10 ms grid (``FrameGrid``).
///
/// Its endpoint is what the endpointer's configuration and rules would do with a detector that never
/// errs, so comparing a detector-driven endpoint with it separates what the detector costs (late or
/// early endpoints) from what the rules cost (a rule that ends inside a labelled pause does so for
/// the oracle too, and shows as truncation, not as a timing error). The oracle's decisions have
/// probability 1 in speech and 0 in silence, so rules that weigh the probability
/// (``EndpointerConfiguration/endingSilenceThreshold``) behave on it as on the labels.
public enum LabelOracle {
    /// The labels as a detector track: probability 1 in labelled speech, 0 elsewhere, one value per
    /// 10 ms cell of the file.
    public static func track(for entry: CorpusEntry) -> DetectorTrack {
        let labels = FrameGrid.labels(entry.speech, cellCount: FrameGrid.cellCount(duration: entry.duration))
        return DetectorTrack(gridProbabilities: labels.map { $0 ? 1 : 0 })
    }

    /// The oracle's endpoint for `entry` under `endpointer`, in seconds from the start of the file, and
    /// its reason (`endOfInput` when the rules never fire before the labelled audio ends).
    public static func endpoint(for entry: CorpusEntry, endpointer: EndpointerConfiguration) throws -> (
        time: Double, reason: EndpointReason
    )? {
        // Hysteresis alone adds no delay and leaves 0/1 probabilities as they are: the labels pass
        // through the smoother unchanged, decided at their own end.
        let replay = try track(for: entry).replay(smoothing: try .hysteresisOnly(), endpointer: endpointer)
        for event in replay.events {
            if case .endpoint(let reason) = event.kind { return (event.time.seconds, reason) }
        }
        return nil
    }
}
