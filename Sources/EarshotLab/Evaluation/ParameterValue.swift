/// A parameter's value in the `parameters` object of a JSON report, typed as JSON types it: a number
/// (`0.5`), a boolean (`true`) or a name (`"silero"`). An infinite interval — a disabled limit, written
/// `inf` on the command line — is the string `"inf"`, as JSON has no infinity.
public enum ParameterValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case number(Double)
    case flag(Bool)
    case name(String)

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value) where value.isFinite: try container.encode(value)
        case .number(let value): try container.encode(value > 0 ? "inf" : value < 0 ? "-inf" : "nan")
        case .flag(let value): try container.encode(value)
        case .name(let value): try container.encode(value)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .flag(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .name(try container.decode(String.self))
        }
    }

    /// As the command line writes it (`0.5`, `inf`, `true`, `silero`).
    public var description: String {
        switch self {
        case .number(let value): SweepValue.number(value).description
        case .flag(let value): String(value)
        case .name(let value): value
        }
    }
}

/// The `schema_version` of the reports with a `parameters` object (`vad`, `endpoint` and `eval` JSON; a
/// sweep's is `SweepTable.schemaVersion`): 2 since the parameters are typed (`0.5`, `true`) where 1 gave
/// strings.
public enum ReportSchema {
    public static let version = 2
}
