/// The models that learned detectors run, loaded once by the caller and shared by every detector it
/// makes (models are immutable and `Sendable`; each detector keeps its own state). Model-free
/// detectors ignore it. Passed explicitly — there is no process-wide model registry.
public struct DetectorModels: Sendable, Hashable {
    /// Silero VAD's weights, needed by ``DetectorKind/silero``.
    public var silero: SileroModel?

    public init(silero: SileroModel? = nil) {
        self.silero = silero
    }

    /// No models: only the classical detectors can be made.
    public static let none = DetectorModels()
}

extension SileroModel: Hashable {
    /// Two models are the same when they are the same loaded object.
    public static func == (lhs: SileroModel, rhs: SileroModel) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
