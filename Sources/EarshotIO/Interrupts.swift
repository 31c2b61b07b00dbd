public import UnixSignals

/// SIGINT and SIGTERM for a command-line process, through swift-service-lifecycle's
/// `UnixSignalsSequence`: the mechanism the service's graceful shutdown uses, so one rule serves every
/// command. A handler is scoped to the work it guards (``cancelling(on:_:)``, ``handling(_:with:during:)``)
/// or, for what a process does when nothing else handles a signal, lives as long as the process
/// (``install(_:_:)``).
public enum Interrupts {
    /// Runs `body` as a child task that the first of `signals` cancels; returns its value, or throws what
    /// it throws once cancelled (it decides how to stop: a ``EarshotCore/EarshotError/Code/canceled``, or
    /// what it had). The signals are handled only while `body` runs.
    public static func cancelling<Value: Sendable>(
        on signals: [UnixSignal] = [.sigint], _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let arrivals = await UnixSignalsSequence(trapping: signals)
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                for await _ in arrivals { return nil }
                return nil
            }
            while let next = try await group.next() {
                group.cancelAll()  // a value: stop watching; a signal (nil): cancel the body, wait for it
                if let value = next { return value }
            }
            // The body is always a child: a signal cancels it, and it still ends with a value or an error.
            preconditionFailure("Interrupts.cancelling: the body ended without a value or an error")
        }
    }

    /// Runs `body`, calling `onSignal` for each of `signals` that arrives while it runs (to end it its own
    /// way: a manual stop, a cancel of what it waits for). The signals are handled only while `body` runs.
    public static func handling<Value>(
        _ signals: [UnixSignal] = [.sigint], with onSignal: @escaping @Sendable (UnixSignal) -> Void,
        during body: () async throws -> Value
    ) async throws -> Value {
        let arrivals = await UnixSignalsSequence(trapping: signals)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await signal in arrivals { onSignal(signal) }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    /// Calls `action` for each of `signals` from now on, for the life of the process (the handling a
    /// command has when it has none of its own: clean up, say so, exit). Returns once the signals are
    /// trapped, so none that follows is missed.
    public static func install(_ signals: [UnixSignal], _ action: @escaping @Sendable (UnixSignal) -> Void) async {
        guard !signals.isEmpty else { return }
        let arrivals = await UnixSignalsSequence(trapping: signals)
        // Unstructured on purpose: it outlives every command's work and ends with the process.
        Task {
            for await signal in arrivals { action(signal) }
        }
    }
}
