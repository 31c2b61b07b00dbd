import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `make install-files`, `make uninstall` and `make deb-package` (issue 34) with the binary under test:
/// the layout they install, and the installed or packaged earshot run from a folder that has nothing to
/// do with the repository, with nothing in its environment to lean on, finding its models beside itself.
/// Serialized: the installs share the repository's `.build-manual` (generate-manual, which the first one
/// builds if it is not there yet). No network: `make models` has fetched the models (`make test` does).
@Suite(.serialized, .waiting) struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sample = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"
    static let prefix = "/usr/local"
    /// Words of `sample`'s transcript ("Had he married a more amiable woman, he might have been made still
    /// more respectable than he was.").
    static let heard = ["amiable woman", "respectable"]

    /// `make --no-print-directory ARGUMENTS` in the repository, without the MAKEFLAGS of a make this test
    /// may run under (`make test`'s jobserver and command-line variables).
    static func make(_ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run(
            [
                "env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "make", "--no-print-directory", "-C",
                repository.path,
            ]
                + arguments)
    }

    /// Installs the binary under test into `destination` (DESTDIR) under `prefix`; the installed prefix.
    static func install(into destination: TemporaryDirectory) throws -> String {
        let result = try make([
            "install-files", "EARSHOT_BIN=" + ExternalTool.earshotPath, "DESTDIR=" + destination.path,
            "PREFIX=" + prefix,
        ])
        try #require(result.status == 0, "make install-files: \(result.standardError)")
        return destination.path + prefix
    }

    /// Runs `executable` from a fresh folder with PATH and an empty HOME only: no XDG_* or EARSHOT_*
    /// variables, no repository above the working folder.
    static func runElsewhere(_ executable: String, _ arguments: [String]) throws -> ExternalTool.Result {
        let folder = try TemporaryDirectory("earshot-elsewhere")
        defer { folder.remove() }
        let home = try TemporaryDirectory("earshot-home")
        defer { home.remove() }
        return try ExternalTool.run(
            ["env", "-i", "--chdir=" + folder.path, "PATH=/usr/bin:/bin", "HOME=" + home.path, executable] + arguments)
    }

    /// The SHA-256 the model catalogue pins for each file of the defaults' models, which `make install`
    /// installs (the Makefile's pins are held to it by ModelsCommandTests; Whisper base is fetched by
    /// name, `earshot models fetch whisper-base`), by its path under `share/earshot/models/`.
    static func pinnedHashes() -> [String: String] {
        var hashes: [String: String] = [:]
        for model in ModelCatalogue.all where model.isDefault {
            for file in model.files { if let pinned = file.sha256 { hashes[model.name + "/" + file.name] = pinned } }
        }
        return hashes
    }

    static func sha256(_ path: String) throws -> String {
        let result = try ExternalTool.run(["sha256sum", path])
        try #require(result.status == 0, "sha256sum \(path): \(result.standardError)")
        return String(result.output.prefix(64))
    }

    /// The permission bits of `path` in octal, as `stat` prints them ("644").
    static func permissions(_ path: String) throws -> String {
        let result = try ExternalTool.run(["stat", "--format=%a", path])
        try #require(result.status == 0, "stat \(path): \(result.standardError)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Everything under `folder` that is not a folder (regular files and links), relative to it.
    static func files(under folder: String) -> [String] {
        let entries = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        return entries.filter { entry in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: folder + "/" + entry, isDirectory: &isFolder)
            return !(exists && isFolder.boolValue)
        }.sorted()
    }

    @Test func installFilesLaysOutTheBinaryModelsManualPagesAndCompletions() throws {
        let destination = try TemporaryDirectory("earshot-install")
        defer { destination.remove() }
        let root = try Self.install(into: destination)

        #expect(FileManager.default.isExecutableFile(atPath: root + "/bin/earshot"))
        #expect(try Self.permissions(root + "/bin/earshot") == "755")
        let hashes = Self.pinnedHashes()
        #expect(hashes.count == 5, "\(hashes.keys.sorted())")
        for (file, hash) in hashes {
            let path = root + "/share/earshot/models/" + file
            #expect(try Self.sha256(path) == hash, "\(path)")
            #expect(try Self.permissions(path) == "644", "\(path)")
        }
        for file in ["silero-vad/LICENSE", "whisper-tiny.en/METADATA"] {
            #expect(FileManager.default.fileExists(atPath: root + "/share/earshot/models/" + file), "\(file)")
        }

        // mdoc pages from the binary's own help, one per command, named as git's are.
        for page in ["earshot", "earshot-transcribe"] {
            let text = try String(contentsOfFile: root + "/share/man/man1/\(page).1", encoding: .utf8)
            #expect(text.hasPrefix(".\\\" \"Generated by swift-argument-parser\"\n"), "\(page).1: \(text.prefix(80))")
            #expect(text.contains("\n.Dt \(page.uppercased()) 1\n"), "\(page).1: \(text.prefix(200))")
            #expect(text.contains("\n.Sh SYNOPSIS\n"), "\(page).1")
        }
        let pages = (try FileManager.default.contentsOfDirectory(atPath: root + "/share/man/man1")).sorted()
        #expect(pages.count > 10 && pages.allSatisfy { $0 == "earshot.1" || $0.hasPrefix("earshot-") }, "\(pages)")

        for completion in [
            "bash-completion/completions/earshot", "zsh/site-functions/_earshot",
            "fish/vendor_completions.d/earshot.fish",
        ] {
            let text = try String(contentsOfFile: root + "/share/" + completion, encoding: .utf8)
            #expect(text.contains("earshot") && text.contains("transcribe"), "\(completion): \(text.prefix(200))")
        }
    }

    @Test func theInstalledBinaryRunsFromAnywhereWithTheModelsInstalledBesideIt() throws {
        let destination = try TemporaryDirectory("earshot-install")
        defer { destination.remove() }
        let earshot = try Self.install(into: destination) + "/bin/earshot"

        let transcript = try Self.runElsewhere(earshot, ["transcribe", "--recognizer", "whisper", Self.sample])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        for words in Self.heard {
            #expect(transcript.output.contains(words), "\(transcript.output)")
        }

        let speech = try Self.runElsewhere(earshot, ["vad", "--detector", "silero", Self.sample])
        #expect(speech.status == 0, "\(speech.standardError)")
        #expect(!speech.output.isEmpty)
    }

    @Test func uninstallRemovesWhatInstallFilesInstalledAndNothingElse() throws {
        let destination = try TemporaryDirectory("earshot-install")
        defer { destination.remove() }
        let root = try Self.install(into: destination)
        // Files of others beside ours, in the folders uninstall removes from.
        let others = ["bin/other", "share/man/man1/other.1", "share/bash-completion/completions/other"]
        for other in others {
            #expect(
                FileManager.default.createFile(atPath: root + "/" + other, contents: Data("other\n".utf8)), "\(other)")
        }

        let result = try Self.make(["uninstall", "DESTDIR=" + destination.path, "PREFIX=" + Self.prefix])
        #expect(result.status == 0, "make uninstall: \(result.standardError)")
        #expect(
            Self.files(under: destination.path) == others.map { String(Self.prefix.dropFirst()) + "/" + $0 }.sorted())
    }

    @Test func debPackageHoldsAnEarshotThatRunsWhereItIsExtracted() throws {
        let work = try TemporaryDirectory("earshot-deb")
        defer { work.remove() }
        let made = try Self.make([
            "deb-package", "EARSHOT_BIN=" + ExternalTool.earshotPath, "DEB_DIR=" + work.file("out"),
            "DEB_COMPRESSION=gzip",  // xz takes four times as long; what is packaged is the same
        ])
        try #require(made.status == 0, "make deb-package: \(made.standardError)")

        let version = try ExternalTool.run([ExternalTool.earshotPath, "--version"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let architecture = try ExternalTool.run(["dpkg", "--print-architecture"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let package = work.file("out/earshot_\(version)_\(architecture).deb")
        let info = try ExternalTool.run(["dpkg-deb", "--info", package])
        try #require(info.status == 0, "dpkg-deb --info \(package): \(info.standardError)")
        let fields = info.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(fields.contains("Package: earshot"), "\(info.output)")
        #expect(fields.contains("Version: \(version)"), "\(info.output)")
        let depends = fields.first { $0.hasPrefix("Depends: ") } ?? ""
        #expect(depends.contains("libc6") && depends.contains("libsndfile1"), "\(info.output)")
        // FFmpeg's libraries are loaded when a file needs them, not linked: they must be named all the same.
        for library in ["libavformat", "libavcodec", "libavutil"] {
            #expect(depends.contains(library), "\(info.output)")
        }

        let extracted = work.file("root")
        let extract = try ExternalTool.run(["dpkg-deb", "-x", package, extracted])
        try #require(extract.status == 0, "dpkg-deb -x: \(extract.standardError)")
        let earshot = extracted + "/usr/bin/earshot"
        // The Swift runtime comes from the package, not from the toolchain that built the binary.
        let libraries = try ExternalTool.run(["env", "-u", "LD_LIBRARY_PATH", "ldd", earshot])
        #expect(libraries.status == 0 && !libraries.output.contains("not found"), "\(libraries.output)")
        for line in libraries.output.split(separator: "\n") where line.contains("libswiftCore.so") {
            #expect(line.contains("/lib/earshot/libswiftCore.so"), "\(line)")
        }

        let transcript = try Self.runElsewhere(earshot, ["transcribe", "--recognizer", "whisper", Self.sample])
        #expect(transcript.status == 0, "\(transcript.standardError)")
        for words in Self.heard {
            #expect(transcript.output.contains(words), "\(transcript.output)")
        }
    }
}
