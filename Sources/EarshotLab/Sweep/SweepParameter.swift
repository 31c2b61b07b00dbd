import EarshotCore
public import EarshotVAD

/// A setting a sweep can vary: the VAD detector, or a smoothing or endpointing property
/// (``TuningParameter``, which declares each one's name, range and default), named exactly as the Swift
/// property and the CLI flag.
public enum SweepParameter: Sendable, Hashable, CaseIterable, RawRepresentable, Codable {
    case detector
    case tuning(TuningParameter)

    public static var allCases: [SweepParameter] { [.detector] + TuningParameter.allCases.map(Self.tuning) }

    public init?(rawValue: String) {
        if rawValue == "detector" {
            self = .detector
        } else if let parameter = TuningParameter(rawValue: rawValue) {
            self = .tuning(parameter)
        } else {
            return nil
        }
    }

    public var rawValue: String {
        switch self {
        case .detector: "detector"
        case .tuning(let parameter): parameter.rawValue
        }
    }

    /// Endpointer properties, as opposed to the detector and its smoothing.
    public var isEndpointing: Bool {
        if case .tuning(let parameter) = self { return parameter.isEndpointing }
        return false
    }

    /// Parses one value written on the command line.
    func value(_ text: String) throws -> SweepValue {
        switch self {
        case .detector:
            guard !text.isEmpty else {
                throw EarshotError(.invalidParameter, "sweep grid detector: expected a detector name, got ''")
            }
            return .name(text)
        case .tuning(let parameter):
            return .number(try Self.inGrid { try parameter.parse(text) })
        }
    }

    /// Checks a number is in range for this parameter.
    func validated(_ number: Double) throws -> Double {
        if case .tuning(let parameter) = self { try Self.inGrid { try parameter.check(number) } }
        return number
    }

    /// Runs `body`, its error said to be the sweep grid's ("sweep grid endingSilence: expected …").
    private static func inGrid<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as EarshotError {
            throw EarshotError(error.code, "sweep grid " + error.message)
        }
    }
}
