import EarshotCore

/// Whether a stream's audio is arriving at the speaker's pace. A live source — a microphone, a paced
/// replay — cannot run ahead of the clock by more than its client buffers; a recording sent as fast as
/// the network carries it can, by as much as it holds.
///
/// The service begins a final decode at the speaker's pause only while the stream is live
/// (``EarshotRecognizer/Recognizer/speechPaused(at:)``): that decode is worth its CPU because the client's
/// endpointer will wait out its ending silence in real time, and it may decode with the live encoder
/// window. A recording sent at once is answered when its upload ends, with a file's decode and words.
struct LivePace {
    /// How far the audio may run ahead of the clock, counted from the first audio that arrived, and the
    /// stream still be live, in seconds: more than a client's send buffer or a network's burst after a
    /// stall, less than any recording worth an early decode. The first arrival is the body gathered
    /// before a recognizer was lent (``ServiceConfiguration/leaseThreshold``: 1 KiB, about a second of
    /// Speex), given at once, so the time it took to gather does not count as a lead.
    static let allowedLead = 1.0

    /// When the first audio arrived, and where the stream's media clock stood then.
    private var origin: (instant: ContinuousClock.Instant, media: Double)?
    private(set) var isLive = true

    /// Notes that the stream's audio up to `media` seconds has arrived at `now`. A stall does not make a
    /// live stream look otherwise: the audio then falls behind the clock, and the burst after it only
    /// catches up.
    mutating func arrived(through media: Double, at now: ContinuousClock.Instant = .now) {
        guard let origin else {
            origin = (now, media)
            return
        }
        isLive = media - origin.media - (now - origin.instant).inSeconds <= Self.allowedLead
    }
}
