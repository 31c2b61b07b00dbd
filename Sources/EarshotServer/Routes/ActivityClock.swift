import Synchronization

/// An upload's ``UploadPace`` on the real clock, shared between the task reading the body and the
/// watchdog that enforces its rules.
final class ActivityClock: Sendable {
    private let pace: Mutex<UploadPace>

    init(rules: UploadPace.Rules) { pace = Mutex(UploadPace(rules: rules)) }

    /// The reader is about to wait for the client.
    func startWaiting() { pace.withLock { $0.startWaiting(at: .now) } }

    /// The client delivered, or the body ended.
    func stopWaiting() { pace.withLock { $0.stopWaiting(at: .now) } }

    /// A recognizer has been lent to the upload.
    func leased() { pace.withLock { $0.leased() } }

    /// Seconds of audio decoded so far.
    func decoded(audioTime: Double) { pace.withLock { $0.decoded(audioTime: audioTime) } }

    /// The rule the upload breaks now, or nil.
    var stall: UploadPace.Stall? { pace.withLock { $0.stall(at: .now) } }
}
