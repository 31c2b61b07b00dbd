import ArgumentParser
import EarshotCore
import EarshotVAD
import Foundation

/// `--vad-model PATH`, and the rule every command uses to pick its detector: `silero` when its model
/// is installed, else `spectral` with one line on stderr saying so; an explicit `--detector silero`
/// without a model fails (exit 3) saying how to install it.
struct VADModelOptions: ParsableArguments {
    @Option(
        name: .customLong("vad-model"),
        help: ArgumentHelp(
            "Silero VAD's silero_vad.onnx (default: $\(SileroModel.environmentVariable), then "
                + "\(SileroModel.relativePath) in the model folders `earshot models` lists; none turns it off).",
            valueName: "path"))
    var vadModel: String?

    /// The detector to run and the models it needs: `requested`, or the default when nil.
    func resolve(_ requested: DetectorKind?) throws -> (kind: DetectorKind, models: DetectorModels) {
        switch requested {
        case .some(let kind) where !kind.needsModel: return (kind, .none)
        case .some: return (.silero, try load(required: true))
        case .none:
            let models = try load(required: false)
            return (models.silero == nil ? .spectral : .silero, models)
        }
    }

    /// The models for a set of detectors (`eval`, `sweep`): loaded when one of `kinds` needs them, or
    /// when `kinds` is nil (the default set, which includes `silero` only if its model is installed).
    func models(for kinds: [DetectorKind]?) throws -> DetectorModels {
        guard let kinds else { return try load(required: false) }
        return try load(required: kinds.contains(where: \.needsModel))
    }

    /// Loads the Silero model if one is found. Not found: throws when `required`, else notes the
    /// fallback on stderr. A model that is found but unreadable always throws (exit 3).
    private func load(required: Bool) throws -> DetectorModels {
        let path = SileroModel.locate(
            explicitPath: vadModel, environment: ProcessInfo.processInfo.environment, places: ModelSearch.places())
        guard let path else {
            let environment = ProcessInfo.processInfo.environment[SileroModel.environmentVariable]
            let turnedOff = (vadModel ?? environment) == SileroModel.disabled
            if required {
                throw EarshotError(
                    .modelUnavailable,
                    turnedOff
                        ? "--detector silero: the learned detector is turned off (--vad-model none or "
                            + "\(SileroModel.environmentVariable)=none)"
                        : "--detector silero: model not found; \(SileroModel.installHint)")
            }
            // Turned off on purpose: the fallback is what was asked for, not news.
            if !turnedOff {
                Messages.write(
                    "no Silero VAD model found, using the spectral detector (\(SileroModel.installHint))", level: "note"
                )
            }
            return .none
        }
        return DetectorModels(silero: try SileroModel(path: path))
    }

    /// `--detector`'s help: every detector with its summary, and the default rule.
    static let detectorHelp = ArgumentHelp(
        "Detector: \(DetectorKind.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ")). "
            + "Default: silero when its model is installed, else spectral.")
}
