import Foundation

/// An upload's ``UploadPace`` on the real clock, shared between the task reading the body and the
/// watchdog that enforces its rules.
final class ActivityClock: @unchecked Sendable {
    // Guarded by `lock`; the only state, so the class is safe to share.
    private let lock = NSLock()
    private var pace: UploadPace

    init(rules: UploadPace.Rules) { pace = UploadPace(rules: rules) }

    /// The reader is about to wait for the client.
    func startWaiting() { lock.withLock { pace.startWaiting(at: .now) } }

    /// The client delivered, or the body ended.
    func stopWaiting() { lock.withLock { pace.stopWaiting(at: .now) } }

    /// A recognizer has been lent to the upload.
    func leased() { lock.withLock { pace.leased() } }

    /// Seconds of audio decoded so far.
    func decoded(audioTime: Double) { lock.withLock { pace.decoded(audioTime: audioTime) } }

    /// The rule the upload breaks now, or nil.
    var stall: UploadPace.Stall? { lock.withLock { pace.stall(at: .now) } }
}
