/// The time rules an upload must keep, as a pure state machine driven by the reader's events and
/// the instants it passes in, so every rule is tested without a socket or a clock.
///
/// A recognizer is the service's scarce resource, and a client that holds one while sending nothing
/// useful shuts everyone else out. Three rules keep uploads honest, counting only the time the
/// service spends *waiting for the client* (time spent recognizing is the service's own):
/// 1. **Idle**: no bytes for `readTimeout` ends the request.
/// 2. **Before a recognizer is lent** (the reader is still gathering the first `leaseThreshold`
///    bytes), the client may keep the service waiting at most `grace` in all. A client dribbling its
///    body never gets a recognizer.
/// 3. **Once a recognizer is lent**, the audio must keep up: the total wait may not exceed
///    `grace + audioTime / minimumAudioRate`. A live client sends audio at about real time and builds
///    credit as it talks; one that falls below `minimumAudioRate` times real time for long is cut off.
///    With the service's longest audio, this also bounds an upload's total duration.
struct UploadPace: Sendable {
    struct Rules: Sendable, Hashable {
        var readTimeout: Duration
        var grace: Duration
        /// Seconds of audio per second of waiting a client must sustain once it holds a recognizer.
        var minimumAudioRate: Double
    }

    /// Why an upload was cut off.
    enum Stall: Sendable, Equatable {
        /// Nothing arrived for this long.
        case idle(Duration)
        /// Too little arrived: `waited` in all, for `audioTime` seconds of audio.
        case tooSlow(waited: Duration, audioTime: Double, leased: Bool)
    }

    let rules: Rules
    /// When the current wait for the client began, or nil while the service is working.
    private(set) var waitingSince: ContinuousClock.Instant?
    /// Finished waits, summed.
    private var waited: Duration = .zero
    private(set) var audioTime: Double = 0
    private(set) var isLeased = false

    init(rules: Rules) { self.rules = rules }

    /// The reader is about to wait for the client.
    mutating func startWaiting(at now: ContinuousClock.Instant) {
        if waitingSince == nil { waitingSince = now }
    }

    /// The client delivered, or the body ended.
    mutating func stopWaiting(at now: ContinuousClock.Instant) {
        if let since = waitingSince { waited += now - since }
        waitingSince = nil
    }

    /// A recognizer has been lent to the upload.
    mutating func leased() { isLeased = true }

    /// Seconds of audio decoded so far.
    mutating func decoded(audioTime: Double) { self.audioTime = max(self.audioTime, audioTime) }

    /// The total time spent waiting for the client, the current wait included.
    func totalWait(at now: ContinuousClock.Instant) -> Duration {
        waited + (waitingSince.map { now - $0 } ?? .zero)
    }

    /// The rule the upload breaks at `now`, or nil while it keeps them all.
    func stall(at now: ContinuousClock.Instant) -> Stall? {
        if let since = waitingSince, now - since >= rules.readTimeout { return .idle(now - since) }
        let total = totalWait(at: now)
        let allowance = isLeased ? rules.grace + .seconds(audioTime / rules.minimumAudioRate) : rules.grace
        return total > allowance ? .tooSlow(waited: total, audioTime: audioTime, leased: isLeased) : nil
    }
}
