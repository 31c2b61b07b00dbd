public import EarshotCore
import EarshotVAD
import EarshotWhisper
import Foundation

/// `earshot models --format json`: every catalogue model's report and the folders searched.
public struct ModelsDocument: Encodable, Sendable {
    public let schemaVersion: Int
    public let models: [ModelReport]
    public let searched: [ModelSearch.Place]

    public init(schemaVersion: Int, models: [ModelReport], searched: [ModelSearch.Place]) {
        self.schemaVersion = schemaVersion
        self.models = models
        self.searched = searched
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", models, searched
    }
}

/// One catalogue model: where it was found and each file's verdict.
public struct ModelReport: Encodable, Sendable {
    public enum Verdict: String, Encodable, Sendable {
        /// The file's SHA-256 is the pinned one.
        case ok
        /// Not the pinned file, in a folder named by flag or variable (another model, on purpose).
        case other
        /// Not the pinned file, in a folder the search found: corrupted or stale.
        case mismatch
        case missing
        /// Kept with the model (licence, metadata) but not pinned.
        case unpinned
    }

    public struct FileReport: Encodable, Sendable {
        public let name: String
        public let verdict: Verdict
        public let sha256: String?
    }

    public let name: String
    public let role: String
    public let package: String
    /// The model's folder, or nil when not found.
    public let folder: String?
    /// How it was found: the flag, the variable, or a search origin ("user data", "installation", "repository").
    public let origin: String?
    public let files: [FileReport]
    /// Turned off on purpose (`--vad-model none`): not looked for, and no failure.
    public let turnedOff: Bool
    /// Installed by default (its absence fails the listing) rather than only when named.
    public let isDefault: Bool
    /// A Whisper model's languages, `en only` or `N languages` (nil for other models or when unreadable).
    public let languages: String?
    /// The bytes of its files found.
    public let sizeBytes: Int?

    enum CodingKeys: String, CodingKey {
        case name, role, package, folder, origin, files, languages
        case turnedOff = "turned_off", isDefault = "default", sizeBytes = "size_bytes"
    }

    /// A default model not found, or a file missing or mismatched: the listing fails.
    public var failed: Bool {
        guard !turnedOff else { return false }
        if folder == nil { return isDefault }
        return files.contains { $0.verdict == .mismatch || $0.verdict == .missing }
    }

    /// Every catalogue model's report: Silero VAD's (given by `vadModel` or its variable), then each
    /// Whisper model's. A folder given by flag or variable is reported as the default Whisper model's;
    /// a name (`whisperModel: "whisper-base"`) is found by the search, as every model not given.
    public static func all(
        vadModel: String?, whisperModel: String?, environment: [String: String], places: [ModelSearch.Place]
    ) -> [ModelReport] {
        let givenWhisper = whisperModel ?? environment[WhisperModel.environmentVariable]
        let givenFolder = givenWhisper.flatMap { WhisperModel.catalogueModel(named: $0) == nil ? $0 : nil }
        let silero = find(
            ModelCatalogue.sileroVAD, given: vadModel, flag: "--vad-model", variable: SileroModel.environmentVariable,
            environment: environment, places: places, folderOf: { ($0 as NSString).deletingLastPathComponent })
        return [silero]
            + ModelCatalogue.whisperModels.map { model in
                let isDefault = model.name == WhisperModel.folderName
                return find(
                    model, given: isDefault && givenFolder != nil ? whisperModel : nil, flag: "--whisper-model",
                    variable: isDefault && givenFolder != nil ? WhisperModel.environmentVariable : "",
                    environment: environment, places: places, folderOf: { $0 })
            }
    }

    static func find(
        _ model: ModelPackage, given: String?, flag: String, variable: String, environment: [String: String],
        places: [ModelSearch.Place], folderOf: (String) -> String
    ) -> ModelReport {
        let located = ModelSearch.locate(
            given: given, variable: variable, environment: environment, relativePath: model.markerPath, in: places)
        var folder: String?
        var origin: String?
        var searched = false
        switch located?.source {
        case .flag?: (folder, origin) = (located.map { folderOf($0.value) }, flag)
        case .variable(let name)?: (folder, origin) = (located.map { folderOf($0.value) }, "$" + name)
        case .place(let place)?:
            (folder, origin, searched) = (place.folder + "/" + model.name, place.origin.rawValue, true)
        case nil: break
        }
        let files = folder.map { folder in
            model.files.map { file -> FileReport in
                let path = folder + "/" + file.name
                guard let digest = try? FileDigest.sha256(of: path) else {
                    // Unpinned files are optional (a folder named by flag need not carry the licence).
                    return FileReport(name: file.name, verdict: file.sha256 == nil ? .unpinned : .missing, sha256: nil)
                }
                guard let pinned = file.sha256 else {
                    return FileReport(name: file.name, verdict: .unpinned, sha256: digest)
                }
                let verdict: Verdict = digest == pinned ? .ok : (searched ? .mismatch : .other)
                return FileReport(name: file.name, verdict: verdict, sha256: digest)
            }
        }
        let disabled =
            model.name == ModelCatalogue.sileroVAD.name && !searched && located?.value == SileroModel.disabled
        let isWhisper = ModelCatalogue.whisperModels.contains { $0.name == model.name }
        let languages = isWhisper ? folder.flatMap { try? WhisperModel.languages(inFolder: $0) } : nil
        let size = folder.map { folder in
            model.files.reduce(0) { total, file in
                let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + file.name)
                return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
            }
        }
        return ModelReport(
            name: model.name, role: model.role, package: model.packages, folder: disabled ? nil : folder,
            origin: origin, files: disabled ? [] : files ?? [], turnedOff: disabled, isDefault: model.isDefault,
            languages: languages.map { $0.count == 1 && $0 == ["en"] ? "en only" : "\($0.count) languages" },
            sizeBytes: disabled ? nil : size)
    }

    /// The listing as `earshot models` prints it.
    public static func text(_ reports: [ModelReport], places: [ModelSearch.Place]) -> String {
        var text = ""
        for report in reports {
            text += "\(report.name) (\(report.role); PyPI \(report.package)): "
            guard let folder = report.folder, let origin = report.origin else {
                text +=
                    report.turnedOff
                    ? "turned off [\(report.origin ?? "")]\n"
                    : report.isDefault ? "not found\n" : "not installed (earshot models fetch \(report.name))\n"
                continue
            }
            text += "\(folder) [\(origin)]\n"
            var facts: [String] = []
            if let languages = report.languages { facts.append(languages) }
            if let size = report.sizeBytes { facts.append(String(format: "%.1f MB", Double(size) / 1e6)) }
            if !facts.isEmpty { text += "  " + facts.joined(separator: ", ") + "\n" }
            for file in report.files {
                let digest = file.sha256.map { " " + $0 } ?? ""
                text +=
                    "  " + file.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + file.verdict.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + digest + "\n"
            }
        }
        text += "searched, in order, after the flags and variables:\n"
        for place in places {
            let exists = FileManager.default.fileExists(atPath: place.folder)
            text += "  \(place.folder) [\(place.origin.rawValue)]\(exists ? "" : " (absent)")\n"
        }
        if reports.contains(where: \.failed) {
            text += "missing or mismatched models: `earshot models fetch` installs them\n"
        }
        return text
    }
}
