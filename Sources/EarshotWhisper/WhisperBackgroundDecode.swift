import EarshotCore
import Foundation
import Synchronization

/// One decode of an utterance's audio on a thread of its own, while the caller goes on feeding the
/// recognizer: the final decode begun when the speaker pauses (``WhisperRecognizer/speechPaused(at:)``),
/// so the endpointer's wait after the last word is time the decode can use; and a partial decode, so a
/// live stream's reading never waits for provisional text (a pause in the audio behind it would be
/// seen only once the partial decode ended, and the pause's decode begin that late).
///
/// It decodes a copy of the samples. ``cancel()`` makes the decode stop at its next cancellation check
/// (between tokens and windows) and its result be dropped; ``wait(unless:)`` blocks until the thread
/// has finished with the transcriber, which nothing else may use meanwhile.
final class WhisperBackgroundDecode<Output: Sendable>: @unchecked Sendable {
    /// How many samples of the utterance the decode covers.
    let sampleCount: Int

    private enum Outcome {
        case running
        /// The decode, or nil for work that chose not to run (a partial decode with no core to spare).
        case decoded(Output?)
        case failed(any Error)
    }

    private let cancelled = Atomic<Bool>(false)
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var outcome = Outcome.running
    /// When the work began and ended (the end once it has), on the continuous clock.
    private let began = ContinuousClock.now
    private var ended: ContinuousClock.Instant?

    /// Starts `work` on `samples` on a new thread named `name`. `work` is handed ``isCancelled`` to ask at
    /// its checks; it may use a transcriber the caller then must not use until ``wait(unless:)`` returns.
    init(
        samples: [Float], name: String,
        work: @escaping @Sendable (_ samples: [Float], _ isCancelled: @escaping () -> Bool) throws -> Output?
    ) {
        sampleCount = samples.count
        let thread = Thread { [self] in
            let result: Outcome
            do {
                result = .decoded(try work(samples, { self.isCancelled }))
            } catch {
                result = .failed(error)
            }
            condition.withLock {
                outcome = result
                ended = .now
                condition.broadcast()
            }
        }
        thread.name = name
        // Whisper's search recurses little, but its kernels keep sizeable locals: the main thread's size.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// A result's decode of `samples` by `transcriber` (handed over until ``wait(unless:)`` returns), once
    /// one of `slots` is free: after the windows `settled` holds, to the end of the audio or, with
    /// `settlingOnly`, through the last window with audio after it.
    static func result(
        samples: [Float], after settled: WhisperWindowsSettled, settlingOnly: Bool = false,
        transcriber: WhisperTranscriber, options: WhisperOptions, slots: ComputeSlots
    ) -> WhisperBackgroundDecode where Output == WhisperWindowsSettled {
        nonisolated(unsafe) let transcriber = transcriber
        let name = settlingOnly ? "earshot-whisper-settling" : "earshot-whisper-speculation"
        return WhisperBackgroundDecode(samples: samples, name: name) { samples, isCancelled in
            try transcriber.transcribeAsResult(
                samples, after: settled, settlingOnly: settlingOnly, options: options, slots: slots,
                isCancelled: isCancelled)
        }
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Stops the decode at its next check; its result is dropped.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Whether the work has ended (without blocking).
    var isDone: Bool {
        condition.withLock {
            if case .running = outcome { return false }
            return true
        }
    }

    /// When the work ended and how long it took, once it has ended.
    var timing: (ended: ContinuousClock.Instant, took: Duration)? {
        condition.withLock { ended.map { ($0, $0 - began) } }
    }

    /// Whether the decode ended at a cancellation check, before its result (blocks until it has ended).
    var stoppedEarly: Bool {
        condition.withLock {
            while case .running = outcome { condition.wait() }
            if case .failed(let error as EarshotError) = outcome { return error.code == .canceled }
            return false
        }
    }

    /// Blocks until the decode has ended; its output, or nil when it was cancelled, stopped, did not
    /// run or failed for want of a core. Any other failure is thrown: a partial decode's error is its
    /// caller's (a speculation's caller ignores it and decodes the utterance itself).
    ///
    /// `callerCancelled` is asked every ``cancelPoll`` while the decode runs: once it is true the decode
    /// is cancelled too and this returns as soon as it stops, at its next check, rather than when it
    /// would have finished — seconds, for a long utterance on a busy machine, that a caller whose
    /// client has left would hold the recognizer for nobody.
    func wait(unless callerCancelled: () -> Bool = { false }) throws -> Output? {
        try condition.withLock {
            while case .running = outcome {
                if !isCancelled, callerCancelled() { cancel() }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.cancelPoll))
            }
            if isCancelled { return nil }
            switch outcome {
            case .running: return nil
            case .decoded(let output): return output
            case .failed(let error as EarshotError) where error.code == .canceled: return nil
            case .failed(let error): throw error
            }
        }
    }

    /// How often ``wait(unless:)`` asks whether its caller was cancelled, in seconds.
    static var cancelPoll: Double { 0.02 }
}
