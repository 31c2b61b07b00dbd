public import EarshotCore
public import EarshotRecognizer

/// A PocketSphinx search setting a decoder sweep can vary, named as the property of
/// ``PocketSphinxConfiguration`` it sets (the PocketSphinx flag in brackets): `beam` (`-beam`),
/// `wordBeam` (`-wbeam`), `maxActiveHMMs` (`-maxhmmpf`), `frameDownsampling` (`-ds`), `topGaussians`
/// (`-topn`), `lookaheadWindow` (`-pl_window`), `lookaheadBeam` (`-pl_beam`).
public enum DecoderParameter: String, Sendable, CaseIterable, Hashable {
    case beam, wordBeam, maxActiveHMMs, frameDownsampling, topGaussians, lookaheadWindow, lookaheadBeam

    /// Beams are probabilities written as `1e-48`; the rest are whole numbers.
    var isProbability: Bool { [.beam, .wordBeam, .lookaheadBeam].contains(self) }

    /// The value `configuration` holds for this parameter.
    public func value(in configuration: PocketSphinxConfiguration) -> Double {
        switch self {
        case .beam: configuration.beam
        case .wordBeam: configuration.wordBeam
        case .maxActiveHMMs: Double(configuration.maxActiveHMMs)
        case .frameDownsampling: Double(configuration.frameDownsampling)
        case .topGaussians: Double(configuration.topGaussians)
        case .lookaheadWindow: Double(configuration.lookaheadWindow)
        case .lookaheadBeam: configuration.lookaheadBeam
        }
    }

    /// Sets this parameter of `configuration` to `value` (a whole number for the counts).
    public func set(_ value: Double, in configuration: inout PocketSphinxConfiguration) {
        switch self {
        case .beam: configuration.beam = value
        case .wordBeam: configuration.wordBeam = value
        case .maxActiveHMMs: configuration.maxActiveHMMs = Int(value)
        case .frameDownsampling: configuration.frameDownsampling = Int(value)
        case .topGaussians: configuration.topGaussians = Int(value)
        case .lookaheadWindow: configuration.lookaheadWindow = Int(value)
        case .lookaheadBeam: configuration.lookaheadBeam = value
        }
    }

    /// Parses one value as written on the command line and checks its range with the configuration's
    /// own check, so the sweep accepts exactly what the recognizer does.
    func parse(_ text: String) throws -> Double {
        let number = isProbability ? Double(text) : Int(text).map(Double.init)
        guard let number else {
            let expected = isProbability ? "a probability such as 1e-40" : "a whole number"
            throw EarshotError(.invalidParameter, "decoder grid \(rawValue): expected \(expected), got '\(text)'")
        }
        var configuration = PocketSphinxConfiguration()
        set(number, in: &configuration)
        do {
            try configuration.validateSearch()
        } catch let error as EarshotError {
            throw EarshotError(.invalidParameter, "decoder grid: \(error.message)")
        }
        return number
    }

    /// `1e-48` for a beam, `30000` for a count: the shortest text that reads back as the same value.
    func format(_ value: Double) -> String {
        isProbability ? "\(value)" : String(Int(value))
    }
}
