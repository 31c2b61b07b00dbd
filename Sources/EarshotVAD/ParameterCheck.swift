import EarshotCore

/// The checks both VAD configurations make at init, so their errors read alike:
/// "`field`: expected `what`, got `value`" with the ``EarshotError/Code/invalidParameter`` code.
enum ParameterCheck {
    /// A duration in seconds: finite and ≥ 0, or also +∞ when `allowsInfinity` (the "infinite interval").
    static func duration(_ value: Double, _ field: String, allowsInfinity: Bool) throws {
        let valid = value >= 0 && (value.isFinite || allowsInfinity)
        if !valid {
            let expected = allowsInfinity ? "a duration ≥ 0 s or infinity" : "a finite duration ≥ 0 s"
            throw invalid(field, expected: expected, got: value)
        }
    }

    /// A probability in [0, 1].
    static func probability(_ value: Float, _ field: String) throws {
        if !(value >= 0 && value <= 1) {
            throw invalid(field, expected: "a probability in [0, 1]", got: "\(value)")
        }
    }

    static func invalid(_ field: String, expected: String, got value: Double) -> EarshotError {
        invalid(field, expected: expected, got: describe(value))
    }

    static func invalid(_ field: String, expected: String, got value: String) -> EarshotError {
        EarshotError(.invalidParameter, "\(field): expected \(expected), got \(value)")
    }

    /// Whole numbers without a trailing ".0", so a message says "got -1" for -1.
    static func describe(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), Swift.abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
