import Dispatch
import EarshotRecognizer

/// Runs one request's recognition work off Swift's cooperative thread pool, on its own serial
/// dispatch queue.
///
/// Decoding is CPU-bound — milliseconds per chunk, most of a second at the end of an utterance —
/// and the cooperative pool has one thread per core: on a 2-core machine two requests decoding there
/// would stall every other request's reads and writes, timers and read-timeout watchdog until they
/// finished. On a queue, decoding competes for the cores but never holds the pool.
final class RecognitionWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "earshot.recognition")
    /// Touched only on `queue`.
    private var audio: (any RequestAudio)?

    /// Makes the request's audio consumer on the queue.
    func start(_ make: @escaping @Sendable () throws -> any RequestAudio) async throws {
        try await run { worker in worker.audio = try make() }
    }

    /// Runs `body` with the consumer on the queue and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable (any RequestAudio) throws -> T) async throws -> T {
        try await run { worker in
            guard let audio = worker.audio else { throw CancellationError() }
            return try body(audio)
        }
    }

    /// Abandons the utterance after an error, if the consumer was made.
    func abandon() async {
        _ = try? await run { worker in worker.audio?.abandon() }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (RecognitionWorker) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self) }) }
        }
    }
}
