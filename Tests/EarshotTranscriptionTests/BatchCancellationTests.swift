import EarshotCore
import EarshotLab
import EarshotRecognizer
import EarshotTestTraits
import EarshotTesting
import EarshotVAD
import Synchronization
import Testing

@testable import EarshotTranscription

/// Cancelling the task that runs a batch reaches the workers, and a worker's fatal error stops the rest.
@Suite(.waiting) struct BatchCancellationTests {
    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .sequentiallyConsistent) }
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
    }

    /// A transcriber that never finishes a segment by itself, as a stuck recognizer would not.
    struct UntilCancelled: SegmentTranscriber {
        let started: Counter
        mutating func beginRecording() {}
        mutating func transcribe(_ segment: UtteranceChunk) async throws -> RecognitionResult {
            started.add()
            while true {
                try Task.checkCancellation()
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    static func opened() async throws -> BufferSource {
        let recording = try await LongRecordingFixture.built.value
        return BufferSource(buffer: recording.audio, name: recording.entry.path)
    }

    @Test func cancellingTheTaskStopsBusyWorkersAndEndsWithCancelled() async throws {
        let started = Counter()
        // An unstructured task does not inherit the suite's executor: name it, off the cooperative pool.
        let source = try await Self.opened()
        let run = Task(executorPreference: TestExecutors.waiting) {
            var delivered = 0
            try await BatchTranscriber.run(
                count: 1, settings: try TranscriptionSettings(jobs: 2), open: { _ in source },
                makeTranscriber: { UntilCancelled(started: started) }
            ) { event in
                if case .transcribed = event { delivered += 1 }
            }
            return delivered
        }
        while started.value < 2 { try await Task.sleep(for: .milliseconds(10)) }
        run.cancel()
        let outcome = await run.result
        #expect(throws: BatchTranscriber.cancelledError) { try outcome.get() }
    }

    @Test func aTranscriberThatCannotBeMadeEndsTheRunWithItsError() async throws {
        let missing = EarshotError(.modelUnavailable, "no model here")
        let source = try await Self.opened()
        await #expect(throws: missing) {
            try await BatchTranscriber.run(
                count: 1, settings: try TranscriptionSettings(jobs: 2), open: { _ in source },
                makeTranscriber: { throw missing }
            ) { _ in }
        }
    }
}
