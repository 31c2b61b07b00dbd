import EarshotCore
import Foundation
import Synchronization

/// One utterance's final decode begun early, on a thread of its own, while the caller goes on
/// feeding the recognizer (``WhisperRecognizer/speechPaused(at:)``): the endpointer's wait after the last
/// word is time the decode can use, so when the endpoint comes the words are ready, or nearly.
///
/// It decodes a copy of the samples heard when the speaker paused. ``cancel()`` makes the decode stop at
/// its next cancellation check (between tokens and windows) and its result be dropped; ``wait()`` blocks
/// until the thread has finished with the transcriber, which nothing else may use meanwhile.
final class WhisperSpeculation: @unchecked Sendable {
    /// How many samples of the utterance the decode covers.
    let sampleCount: Int

    private enum Outcome {
        case running
        case decoded([WhisperSegment])
        case failed(any Error)
    }

    private let cancelled = Atomic<Bool>(false)
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var outcome = Outcome.running

    /// Starts decoding `samples` with `transcriber` (which the caller must not use until ``wait()``
    /// returns) on a new thread, once one of `slots` is free: a result's decode.
    init(samples: [Float], transcriber: WhisperTranscriber, options: WhisperOptions, slots: ComputeSlots) {
        sampleCount = samples.count
        // The transcriber is handed over for the thread's lifetime; the caller waits for it back.
        nonisolated(unsafe) let transcriber = transcriber
        let thread = Thread { [self] in
            let result: Outcome
            do {
                result = .decoded(
                    try transcriber.transcribeAsResult(
                        samples, options: options, slots: slots, isCancelled: { self.isCancelled }))
            } catch {
                result = .failed(error)
            }
            condition.withLock {
                outcome = result
                condition.broadcast()
            }
        }
        thread.name = "earshot-whisper-speculation"
        // Whisper's search recurses little, but its kernels keep sizeable locals: the main thread's size.
        thread.stackSize = 8 << 20
        thread.start()
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Stops the decode at its next check; its result is dropped.
    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Whether the decode ended at a cancellation check, before its result (blocks until it has ended).
    var stoppedEarly: Bool {
        condition.withLock {
            while case .running = outcome { condition.wait() }
            if case .failed(let error as EarshotError) = outcome { return error.code == .canceled }
            return false
        }
    }

    /// Blocks until the decode has ended; its segments, or nil when it was cancelled or failed (the
    /// caller then decodes the utterance itself: a speculation never decides an error).
    ///
    /// `callerCancelled` is asked every ``cancelPoll`` while the decode runs: once it is true the decode
    /// is cancelled too and this returns as soon as it stops, at its next check, rather than when it
    /// would have finished — seconds, for a long utterance on a busy machine, that a caller whose
    /// client has left would hold the recognizer for nobody.
    func wait(unless callerCancelled: () -> Bool = { false }) -> [WhisperSegment]? {
        condition.withLock {
            while case .running = outcome {
                if !isCancelled, callerCancelled() { cancel() }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.cancelPoll))
            }
            guard !isCancelled, case .decoded(let segments) = outcome else { return nil }
            return segments
        }
    }

    /// How often ``wait(unless:)`` asks whether its caller was cancelled, in seconds.
    static let cancelPoll = 0.02
}
