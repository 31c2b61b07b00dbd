import EarshotCore
import Synchronization

/// The CPU time a recognition may take: `grace` plus `perAudioSecond` for each second of audio the
/// request has delivered. A backstop for whatever makes decoding dear that the other limits do not
/// catch (silence by ``InitialSilenceLimit``, grammars by ``GrammarLimits``): a request beyond it is
/// stopped while it runs rather than left to hold a recognizer and a core.
///
/// The default, 20 s + 2 × audio, was chosen on the noisy corpus (198 files, 2 097 s) and confirmed on
/// the real one (`Benchmarks/service/recognition_cpu.py`, RELIABILITY.md): PocketSphinx used at most
/// 0.49 s of CPU per second of audio; Whisper tiny.en 0.16 s on average (0.28 s with partial results)
/// but up to 2.1 s on noise, where openai/whisper's temperature fallback decodes a window up to six
/// times — at most 8.2 s more than the audio's length. So every request of the noisy set took less than
/// half of this budget.
public struct RecognitionCPUBudget: Sendable, Equatable {
    /// CPU seconds allowed per second of audio.
    public var perAudioSecond: Double
    /// CPU allowed whatever the audio: a short request's fixed costs (Whisper's 30-second window).
    public var grace: Duration

    public init(perAudioSecond: Double, grace: Duration) {
        self.perAudioSecond = perAudioSecond
        self.grace = grace
    }

    /// 20 s + 2 s per second of audio.
    public static let `default` = RecognitionCPUBudget(perAudioSecond: 2, grace: .seconds(20))

    /// The CPU allowed for `audioTime` seconds of audio.
    public func allowance(audioTime: Double) -> Duration {
        guard perAudioSecond.isFinite else { return .seconds(Int64.max / 2) }
        return grace + .milliseconds(Int64((perAudioSecond * audioTime * 1000).rounded(.up)))
    }
}

/// The CPU one request's recognition has used so far, readable from another task while the work runs:
/// the reader brackets each stretch of decoding with ``measure(_:)`` on whichever thread runs it, and
/// the watchdog reads ``spent`` against the ``RecognitionCPUBudget``, so work that runs long is seen
/// while it runs (and cancelled), not after.
final class RecognitionCPUMeter: Sendable {
    private struct State {
        var spent: Duration = .zero
        /// The thread decoding now, and its CPU clock when it began.
        var running: (clock: ThreadCPUClock, started: Duration)?
        var audioTime: Double = 0
    }

    private let state = Mutex(State())

    /// Runs `work` (synchronous decoding) on this thread, counting the thread's CPU time.
    func measure<T>(_ work: () throws -> T) rethrows -> T {
        guard let clock = ThreadCPUClock.current else { return try work() }
        let started = clock.elapsed
        state.withLock { $0.running = (clock, started) }
        defer {
            let ended = clock.elapsed
            state.withLock {
                $0.spent += ended - started
                $0.running = nil
            }
        }
        return try work()
    }

    /// Seconds of audio delivered so far.
    func delivered(audioTime: Double) { state.withLock { $0.audioTime = audioTime } }

    /// CPU used so far, the stretch under way included, and the audio it was for.
    var reading: (spent: Duration, audioTime: Double) {
        state.withLock { state in
            let running = state.running.map { $0.clock.elapsed - $0.started } ?? .zero
            return (state.spent + running, state.audioTime)
        }
    }
}
