public import EarshotCore
public import EarshotRecognizer

/// The decoder settings a sweep runs: the Cartesian product of a few ``DecoderParameter``s, written
/// `NAME=V1,V2,…` (one per parameter), enumerated with the last parameter varying fastest.
///
/// Values are lists rather than `START:STOP:STEP` ranges: beams matter by orders of magnitude
/// (`beam=1e-48,1e-40,1e-32`), which an even step cannot walk.
public struct DecoderGrid: Sendable, Equatable {
    public struct Axis: Sendable, Equatable {
        public var parameter: DecoderParameter
        public var values: [Double]
    }

    public private(set) var axes: [Axis]

    /// Parses `NAME=V1,V2,…` specifications; errors name the specification and what was expected.
    public init(parsing specifications: [String]) throws {
        var axes: [Axis] = []
        for specification in specifications {
            let parts = specification.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                throw EarshotError(.invalidParameter, "decoder grid '\(specification)': expected NAME=V1,V2,…")
            }
            guard let parameter = DecoderParameter(rawValue: parts[0]) else {
                let names = DecoderParameter.allCases.map(\.rawValue).joined(separator: ", ")
                throw EarshotError(
                    .invalidParameter, "decoder grid: unknown parameter '\(parts[0])'; expected one of \(names)")
            }
            guard !axes.contains(where: { $0.parameter == parameter }) else {
                throw EarshotError(.invalidParameter, "decoder grid: \(parameter.rawValue) is given twice")
            }
            let values = try parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
                try parameter.parse(String($0))
            }
            axes.append(Axis(parameter: parameter, values: values))
        }
        self.axes = axes
    }

    /// Every setting, in grid order.
    public var settings: [DecoderSetting] {
        axes.reduce([DecoderSetting(values: [])]) { settings, axis in
            settings.flatMap { setting in
                axis.values.map { DecoderSetting(values: setting.values + [(axis.parameter, $0)]) }
            }
        }
    }

    /// The specifications this grid was parsed from, normalised (`beam=1e-48,1e-40`).
    public var specification: [String] {
        axes.map { axis in axis.parameter.rawValue + "=" + axis.values.map(axis.parameter.format).joined(separator: ",")
        }
    }
}

/// One row of a decoder sweep: a value for each parameter of the grid, in the grid's order.
public struct DecoderSetting: Sendable, Hashable, CustomStringConvertible {
    public var values: [(parameter: DecoderParameter, value: Double)]

    public init(values: [(parameter: DecoderParameter, value: Double)]) {
        self.values = values
    }

    /// `base` with this setting's values.
    public func applied(to base: PocketSphinxConfiguration) -> PocketSphinxConfiguration {
        var configuration = base
        for (parameter, value) in values { parameter.set(value, in: &configuration) }
        return configuration
    }

    /// `beam=1e-40 topGaussians=2`: also the key `--resume` matches rows by.
    public var description: String {
        values.map { "\($0.parameter.rawValue)=\($0.parameter.format($0.value))" }.joined(separator: " ")
    }

    public static func == (lhs: DecoderSetting, rhs: DecoderSetting) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
