import EarshotCore
import Synchronization

/// A flag a caller sets (from a signal handler, say) to stop a transcription: the scheduler stops
/// reading, workers stop between pieces of a segment, and the run ends with ``cancelledError``.
public final class TranscriptionCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    private let parent: TranscriptionCancellation?

    public init() { parent = nil }

    /// A token that is cancelled when `parent` is, or when cancelled itself; cancelling it leaves
    /// `parent` alone. The scheduler stops its threads with one of these on a fatal error.
    init(linkedTo parent: TranscriptionCancellation) { self.parent = parent }

    /// Asks the run to stop. Safe from any thread, any number of times.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { flag.load(ordering: .relaxed) || parent?.isCancelled == true }

    /// The error a cancelled run ends with.
    public static let cancelledError = EarshotError(.canceled, "transcription cancelled")

    /// Throws ``cancelledError`` if the run has been cancelled.
    public func check() throws {
        if isCancelled { throw Self.cancelledError }
    }
}
