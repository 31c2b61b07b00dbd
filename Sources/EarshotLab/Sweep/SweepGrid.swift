import EarshotCore
import Foundation

/// The settings a sweep runs: the Cartesian product of a few named parameters, in a fixed order.
///
/// Written on the command line as `NAME=V1,V2,…` or `NAME=START:STOP:STEP` (STOP included), one per
/// parameter, e.g. `endingSilence=0.3:1.2:0.05 onsetThreshold=0.4,0.5,0.6 detector=energy,spectral`.
/// Names are those of ``SweepParameter`` — the same names as the Swift properties and the CLI flags
/// of `earshot vad`/`endpoint`. Settings are enumerated with the last parameter varying fastest, so
/// the order of rows (and so the output) does not depend on how many cores ran the sweep.
public struct SweepGrid: Sendable, Equatable {
    public private(set) var axes: [(parameter: SweepParameter, values: [SweepValue])]

    public init(axes: [(parameter: SweepParameter, values: [SweepValue])]) throws {
        var seen = Set<SweepParameter>()
        for axis in axes {
            guard seen.insert(axis.parameter).inserted else {
                throw EarshotError(.invalidParameter, "sweep grid: \(axis.parameter.rawValue) is given twice")
            }
            guard !axis.values.isEmpty else {
                throw EarshotError(.invalidParameter, "sweep grid: \(axis.parameter.rawValue) has no values")
            }
        }
        self.axes = axes
    }

    /// Parses `NAME=V1,V2,…` or `NAME=START:STOP:STEP` specifications.
    public init(parsing specifications: [String]) throws {
        try self.init(axes: specifications.map(Self.parseAxis))
    }

    /// Every setting, in grid order.
    public var settings: [SweepSetting] {
        var settings = [SweepSetting(values: [])]
        for axis in axes {
            settings = settings.flatMap { setting in
                axis.values.map { SweepSetting(values: setting.values + [(axis.parameter, $0)]) }
            }
        }
        return settings
    }

    public static func == (lhs: SweepGrid, rhs: SweepGrid) -> Bool {
        lhs.axes.map(\.parameter) == rhs.axes.map(\.parameter) && lhs.axes.map(\.values) == rhs.axes.map(\.values)
    }

    /// At most this many settings in one sweep: a typo like `0:100:0.001` should fail, not run for days.
    public static let maximumSettings = 100_000

    static func parseAxis(_ specification: String) throws -> (parameter: SweepParameter, values: [SweepValue]) {
        let parts = specification.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else {
            throw EarshotError(
                .invalidParameter, "sweep grid '\(specification)': expected NAME=V1,V2,… or NAME=START:STOP:STEP")
        }
        guard let parameter = SweepParameter(rawValue: parts[0]) else {
            let names = SweepParameter.allCases.map(\.rawValue).joined(separator: ", ")
            throw EarshotError(
                .invalidParameter, "sweep grid: unknown parameter '\(parts[0])'; expected one of \(names)")
        }
        let text = parts[1]
        if parameter != .detector, text.contains(":") {
            return (parameter, try range(text, for: parameter).map(SweepValue.number))
        }
        return (
            parameter,
            try text.split(separator: ",", omittingEmptySubsequences: false).map {
                try parameter.value(String($0))
            }
        )
    }

    private static func range(_ text: String, for parameter: SweepParameter) throws -> [Double] {
        let bounds = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard bounds.count == 3, let start = bounds[0], let stop = bounds[1], let step = bounds[2],
            step > 0, stop >= start, start.isFinite, stop.isFinite
        else {
            throw EarshotError(
                .invalidParameter,
                "sweep grid \(parameter.rawValue)=\(text): expected START:STOP:STEP with STOP ≥ START and STEP > 0")
        }
        let count = Int(((stop - start) / step + 1e-9).rounded(.down)) + 1
        guard count <= maximumSettings else {
            throw EarshotError(
                .invalidParameter, "sweep grid \(parameter.rawValue)=\(text): \(count) values is too many")
        }
        // Computed from the index, not accumulated, and rounded to 1 µs, so 0.1 steps print as 0.3, not 0.30000000000000004.
        return try (0..<count).map { index in
            let value = ((start + Double(index) * step) * 1e6).rounded() / 1e6
            return try parameter.validated(value)
        }
    }
}

/// A value of one sweep parameter: a number, or a detector's name.
public enum SweepValue: Sendable, Equatable, Hashable, CustomStringConvertible {
    case number(Double)
    case name(String)

    public var description: String {
        switch self {
        case .number(let value): return SweepValue.format(value)
        case .name(let name): return name
        }
    }

    /// Numbers print without float noise: 0.85, 1.5, 25, inf.
    static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

/// One row of a sweep: a value for each parameter of the grid, in the grid's order.
public struct SweepSetting: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var values: [(parameter: SweepParameter, value: SweepValue)]

    public init(values: [(parameter: SweepParameter, value: SweepValue)]) {
        self.values = values
    }

    public subscript(parameter: SweepParameter) -> SweepValue? {
        values.first { $0.parameter == parameter }?.value
    }

    /// `endingSilence=0.5 detector=spectral`: also the key `--resume` matches rows by.
    public var description: String {
        values.map { "\($0.parameter.rawValue)=\($0.value)" }.joined(separator: " ")
    }

    public static func == (lhs: SweepSetting, rhs: SweepSetting) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
