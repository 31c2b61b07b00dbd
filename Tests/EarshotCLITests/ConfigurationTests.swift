import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// The config file and `EARSHOT_…` variables (issue 34): they change commands' defaults, lose to the
/// command line (and the file to the environment), are refused naming file and key when wrong, and
/// `earshot serve` reloads its limits from them on SIGHUP.
@Suite(.serialized, .waiting) struct ConfigurationTests {
    static let cards = "/usr/share/pocketsphinx/test/data/cards/004.wav"

    /// Runs earshot with `arguments`, no config file but `file` (HOME points at an empty folder, so the
    /// user's own config is never read) and `environment`.
    static func earshot(
        _ arguments: [String], config file: String? = nil, environment: [String: String] = [:], home: TemporaryDirectory
    ) throws -> ExternalTool.Result {
        var variables = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/.config"]
        variables.merge(environment) { $1 }
        return try ExternalTool.run(
            [ExternalTool.earshotPath] + (file.map { ["--config", $0] } ?? []) + arguments, environment: variables)
    }

    @Test func aConfigFileSetsDefaultsThatTheEnvironmentAndTheCommandLineOverride() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = try home.write(
            Array("transcribe:\n  format: json\nvad:\n  detector: energy\nserve:\n  port: 0\n".utf8), to: "earshot.yaml"
        )
        let transcribe = ["transcribe", "--recognizer", "pocketsphinx", Self.cards]

        // transcribe: the file's json; the variable's srt over it; the flag's txt over both.
        let fromFile = try Self.earshot(transcribe, config: config, home: home)
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect((try? JSONSerialization.jsonObject(with: fromFile.standardOutput)) != nil, "\(fromFile.output)")
        let fromEnvironment = try Self.earshot(
            transcribe, config: config, environment: ["EARSHOT_TRANSCRIBE_FORMAT": "srt"], home: home)
        #expect(fromEnvironment.output.hasPrefix("1\n00:00:"), "\(fromEnvironment.output)")
        // A variable alone, with no config file anywhere, sets it too (the settings are not skipped).
        let variableAlone = try Self.earshot(transcribe, environment: ["EARSHOT_TRANSCRIBE_FORMAT": "srt"], home: home)
        #expect(variableAlone.output.hasPrefix("1\n00:00:"), "\(variableAlone.output)")
        let sharedAlone = try Self.earshot(
            ["vad", Self.cards], environment: ["EARSHOT_VAD_DETECTOR": "energy"], home: home)
        let fromFlag = try Self.earshot(
            transcribe + ["-f", "txt"], config: config, environment: ["EARSHOT_TRANSCRIBE_FORMAT": "srt"], home: home)
        let plain = try Self.earshot(transcribe, home: home)
        #expect(fromFlag.status == 0 && fromFlag.output == plain.output, "\(fromFlag.output) vs \(plain.output)")
        // An output's extension, on the command line, beats the file's format.
        let srt = home.file("cards.srt")
        let named = try Self.earshot(transcribe + ["-o", srt], config: config, home: home)
        #expect(named.status == 0, "\(named.standardError)")
        #expect(try String(contentsOfFile: srt, encoding: .utf8).hasPrefix("1\n00:00:"))

        // vad: the file's energy detector gives exactly what --detector energy gives, not the default's.
        let vad = ["vad", Self.cards]
        let energy = try Self.earshot(vad + ["--detector", "energy"], home: home)
        let configured = try Self.earshot(vad, config: config, home: home)
        let spectral = try Self.earshot(vad + ["--detector", "spectral"], home: home)
        #expect(configured.status == 0 && configured.output == energy.output, "\(configured.standardError)")
        #expect(energy.output != spectral.output)
        let overridden = try Self.earshot(vad + ["--detector", "spectral"], config: config, home: home)
        #expect(overridden.output == spectral.output)
        #expect(sharedAlone.status == 0 && sharedAlone.output == energy.output, "\(sharedAlone.standardError)")

        // The default file is read without --config; config show names each origin.
        try FileManager.default.createDirectory(
            atPath: home.path + "/.config/earshot", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: config, toPath: home.path + "/.config/earshot/config.yaml")
        let shown = try Self.earshot(
            ["config", "show", "transcribe"], environment: ["EARSHOT_TRANSCRIBE_RECOGNIZER": "pocketsphinx"], home: home
        )
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.output.contains("# read \(home.path)/.config/earshot/config.yaml"), "\(shown.output)")
        #expect(shown.output.contains("file:\(home.path)/.config/earshot/config.yaml\ttranscribe.format=json"))
        #expect(shown.output.contains("env:EARSHOT_TRANSCRIBE_RECOGNIZER\ttranscribe.recognizer=pocketsphinx"))
        #expect(shown.output.contains("default\ttranscribe.max-segment-duration=25.0"), "\(shown.output)")
        // Options the parser leaves unset show the default their help states, or say they are unset
        // (issue 51, item 4), never a blank.
        #expect(shown.output.contains("default\ttranscribe.beam-size=5\n"), "\(shown.output)")
        #expect(shown.output.contains("default\ttranscribe.whisper-model=(unset)"), "\(shown.output)")
        #expect(!shown.output.split(separator: "\n").contains { $0.hasSuffix("=") }, "\(shown.output)")
        let everything = try Self.earshot(["config", "show"], home: home)
        #expect(everything.output.contains("vad.detector=energy") && everything.output.contains("serve.port=0"))
    }

    @Test func aKebabCaseKeySetsTheSDKsCamelCaseOption() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let vad = ["vad", "--detector", "energy", Self.cards]
        let flag = try Self.earshot(vad + ["--speechPadAfter", "0.2"], home: home)
        let plain = try Self.earshot(vad, home: home)
        #expect(flag.status == 0 && flag.output != plain.output, "\(flag.output)")
        for key in ["speechPadAfter", "speech-pad-after"] {
            let config = try home.write(Array("vad:\n  \(key): 0.2\n".utf8), to: "earshot.yaml")
            let fromFile = try Self.earshot(vad, config: config, home: home)
            #expect(fromFile.status == 0 && fromFile.output == flag.output, "\(key): \(fromFile.standardError)")
        }
        let fromVariable = try Self.earshot(vad, environment: ["EARSHOT_VAD_SPEECH_PAD_AFTER": "0.2"], home: home)
        #expect(fromVariable.output == flag.output, "\(fromVariable.standardError)")
    }

    @Test func badConfigFilesAreRefusedNamingTheFileAndTheKey() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let cases: [(yaml: String, arguments: [String], message: String)] = [
            (
                "trnscribe:\n  format: json\n", ["vad", Self.cards],
                "'trnscribe' is not a section (did you mean transcribe?)"
            ),
            (
                "transcribe:\n  formt: json\n", ["vad", Self.cards],
                "transcribe.formt: transcribe has no option --formt (did you mean format?)"
            ),
            (
                "transcribe:\n  format: [srt, json]\n", ["vad", Self.cards],
                "transcribe.format: expected a single value"
            ),
            ("transcribe: [\n", ["vad", Self.cards], "not valid YAML or JSON"),
            ("- transcribe\n", ["vad", Self.cards], "expected a mapping of sections"),
            ("serve:\n  port: abc\n", ["serve"], "serve.port=abc: The value 'abc' is invalid for '--port <port>'"),
            ("serve:\n  port: 70000\n", ["serve"], "serve.port=70000: --port must be 0–65535"),
            ("transcribe:\n  beam-size: 0\n", ["transcribe", Self.cards], "transcribe.beam-size=0: --beam-size 0"),
            (
                "service:\n  secret: s3cr3t\n", ["vad", Self.cards],
                "service.secret: a secret in a file others can read"
            ),
        ]
        for (index, (yaml, arguments, message)) in cases.enumerated() {
            let file = try home.write(Array(yaml.utf8), to: "bad\(index).yaml")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            let result = try Self.earshot(arguments, config: file, home: home)
            #expect(result.status == 1, "\(yaml): \(result.standardError)")
            #expect(result.standardError.contains(file), "\(yaml): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(yaml): \(result.standardError)")
            #expect(result.output.isEmpty && !result.standardError.contains("listening"))
        }
        // A variable of the wrong type is refused naming the variable.
        let variable = try Self.earshot(["serve"], environment: ["EARSHOT_SERVE_PORT": "eighty"], home: home)
        #expect(variable.status == 1 && variable.standardError.contains("$EARSHOT_SERVE_PORT: serve.port=eighty"))
        let missing = try Self.earshot(["vad", Self.cards], config: home.file("absent.yaml"), home: home)
        #expect(missing.status == 1 && missing.standardError.contains(home.file("absent.yaml")))
        // The same secret in a file of mode 600 is accepted.
        let secret = try home.writeSecret(Array("service:\n  secret: s3cr3t\n".utf8), to: "private.yaml")
        let shown = try Self.earshot(["config", "show"], config: secret, home: home)
        #expect(shown.status == 0 && shown.output.contains("service.secret=(secret)"), "\(shown.standardError)")
        #expect(!shown.output.contains("s3cr3t"))
    }

    /// The shared `service` section names a credentials file by path; commands that do not use a service
    /// are not refused for it, and a file others can read is.
    @Test func theServiceSectionNamesACredentialsFile() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let server = try ServeCommandTests.Server(arguments: ["--recognizers", "1", "--log-level", "warning"])
        defer { if server.process.isRunning { _ = server.stop() } }
        let credentials = try home.writeSecret(
            Array("# the local service\n\(server.appKey):\(server.secret)\n".utf8), to: "app")
        let config = try home.write(Array("service:\n  credentials: \(credentials)\n".utf8), to: "earshot.yaml")
        let url = "http://127.0.0.1:\(server.port)/speech/v3/speechToText"

        let remote = try Self.earshot(["transcribe", "--service", url, Self.cards], config: config, home: home)
        #expect(remote.status == 0, "\(remote.standardError)")
        #expect(!remote.output.isEmpty)
        let local = try Self.earshot(
            ["transcribe", "--recognizer", "pocketsphinx", Self.cards], config: config, home: home)
        #expect(
            local.status == 0,
            "a service option from the config does not make a local run an error: \(local.standardError)")
        let given = try Self.earshot(["transcribe", "--credentials", credentials, Self.cards], home: home)
        #expect(given.status == 1 && given.standardError.contains("--credentials"), "\(given.standardError)")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: credentials)
        let open = try Self.earshot(["transcribe", "--service", url, Self.cards], config: config, home: home)
        #expect(open.status == 2)
        #expect(
            open.standardError.contains(
                "\(credentials): the credentials file may be read or written by other users (mode 644)"))
        #expect(!open.standardError.contains(server.secret))
        _ = server.stop()
    }

    /// SIGHUP makes `earshot serve` read its config file again: a lower --max-audio-duration applies to
    /// the next request, on a connection opened before the signal too; a file that no longer parses
    /// changes nothing and the service keeps serving.
    @Test func serveReloadsItsLimitsOnHangUpKeepingItsConnections() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("serve.yaml")
        try Data("serve:\n  max-audio-duration: 60\n".utf8).write(to: URL(fileURLWithPath: config))
        let server = try ServeCommandTests.Server(arguments: [
            "--config", config, "--recognizers", "1", "--idle-timeout", "60", "--log-level", "warning",
        ])
        defer { if server.process.isRunning { _ = server.stop() } }
        let token = try ServeHardeningTests.token(server)
        #expect(try ServeHardeningTests.recognize(server, token: token).0 == 200)

        let opened = try LoopbackConnection(port: server.port)
        try Data("serve:\n  max-audio-duration: 0.5\n  drain-timeout: 5\n".utf8).write(to: URL(fileURLWithPath: config))
        kill(server.process.processIdentifier, SIGHUP)
        var status = 0
        for _ in 0..<40 where status != 413 {
            status = try ServeHardeningTests.recognize(server, token: token).0
            if status != 413 { Thread.sleep(forTimeInterval: 0.25) }
        }
        #expect(status == 413, "the reloaded limit did not apply")
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.cards)))
        opened.send(ServeHardeningTests.speechHead(token: token, contentType: "audio/wav", length: audio.count))
        opened.send(audio)
        opened.read(for: 30)
        #expect(opened.statuses == [413], "\(opened.text)")

        try Data("serve:\n  max-audio-duration: [\n".utf8).write(to: URL(fileURLWithPath: config))
        kill(server.process.processIdentifier, SIGHUP)
        Thread.sleep(forTimeInterval: 1)
        #expect(server.process.isRunning)
        #expect(try ServeHardeningTests.recognize(server, token: token).0 == 413)
        let (exit, errors) = server.stop()
        #expect(exit == 0, "\(errors)")
        #expect(errors.contains("reload on SIGHUP failed"), "\(errors)")
        #expect(
            errors.contains("settings changed that take a restart") && errors.contains("drain-timeout"), "\(errors)")
    }

    /// The Realtime limits reload on SIGHUP too (issue 48, item 3): with `realtime-max-sessions` raised
    /// from 1 to 2, a session refused before the signal is admitted after it, beside one held throughout.
    @Test func serveReloadsItsRealtimeLimitsOnHangUp() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("serve.yaml")
        try Data("serve:\n  realtime-max-sessions: 1\n".utf8).write(to: URL(fileURLWithPath: config))
        let (keys, key) = try RealtimeServiceTests.keys(in: home)
        let server = try ServeCommandTests.Server(arguments: [
            "--config", config, "--api-keys", keys, "--recognizers", "2", "--max-recognitions-per-app", "2",
            "--log-level", "warning",
        ])
        defer { if server.process.isRunning { _ = server.stop() } }
        let report = try RealtimeServiceTests.python(
            "realtime_reload.py",
            [
                "ws://127.0.0.1:\(server.port)/v1/realtime?intent=transcription", key, config,
                "\(server.process.processIdentifier)",
            ])
        #expect(report["held"] as? String == "session.created", "\(report)")
        #expect(report["before_reload"] as? String == "session_limit_reached", "\(report)")
        let after = report["after_reload"] as? [String] ?? []
        #expect(after.last == "session.created", "\(report)")
        #expect(after.dropLast().allSatisfy { $0 == "session_limit_reached" }, "\(report)")
        #expect(report["held_after_reload"] as? String == "session.updated", "\(report)")
        let (exit, errors) = server.stop()
        #expect(exit == 0, "\(errors)")
    }

    /// A flood of SIGHUPs costs a reload or two, not one each (issue 51, item 19): signals that arrive
    /// while a reload runs leave one reload pending, which reads the file as it is when it runs.
    @Test func hangUpsAreCoalescedIntoOnePendingReload() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let config = home.file("serve.yaml")
        try Data("serve:\n  max-audio-duration: 60\n".utf8).write(to: URL(fileURLWithPath: config))
        let server = try ServeCommandTests.Server(arguments: [
            "--config", config, "--recognizers", "1", "--log-level", "notice",
        ])
        defer { if server.process.isRunning { _ = server.stop() } }
        let token = try ServeHardeningTests.token(server)
        for _ in 0..<1_100 { kill(server.process.processIdentifier, SIGHUP) }
        try Data("serve:\n  max-audio-duration: 0.5\n".utf8).write(to: URL(fileURLWithPath: config))
        kill(server.process.processIdentifier, SIGHUP)
        // The last signal came after the file changed, so some reload reads the new limit.
        var status = 0
        for _ in 0..<120 where status != 413 {
            status = try ServeHardeningTests.recognize(server, token: token).0
            if status != 413 { Thread.sleep(forTimeInterval: 0.25) }
        }
        #expect(status == 413, "the reloaded limit did not apply")
        let (exit, errors) = server.stop()
        #expect(exit == 0, "\(errors)")
        let reloads = errors.components(separatedBy: "reloaded on SIGHUP").count - 1
        #expect(reloads >= 1 && reloads <= 50, "\(reloads) reloads for 1 101 signals")
    }
}
