import Foundation

/// Runs async work from a synchronous command and waits for it.
enum BlockingTask {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    private final class ResultBox<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Result<T, any Error>?
        func set(_ result: Result<T, any Error>) { lock.withLock { stored = result } }
        var result: Result<T, any Error>? { lock.withLock { stored } }
    }
}
