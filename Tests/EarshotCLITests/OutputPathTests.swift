import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `-o` and every other output path: a regular file is replaced atomically and keeps its mode; a
/// symbolic link stays a link and its target is written; a device or FIFO is written into, never
/// renamed over; `/dev/stdout` is the process's own standard output; a directory is refused at once.
@Suite(.serialized, .computing) struct OutputPathTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"

    func earshot(_ arguments: String...) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    static func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// What `vad` prints for the clip, the reference for every other destination.
    func expected() throws -> Data {
        let result = try earshot("vad", Self.clip)
        try #require(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    @Test func aCharacterDeviceIsWrittenIntoAndStaysADevice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let device = directory.file("mynull")
        // The null device's numbers, major 1 and minor 3 (Linux packs them as major << 8 | minor): what
        // `mknod mynull c 1 3` makes.
        try #require(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0, "mknod needs root: \(errno)")
        for arguments in [["vad", "-o", device, Self.clip], ["encode", "--format", "flac", Self.clip, device]] {
            let result = try ExternalTool.run([ExternalTool.earshotPath] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(Self.kind(device) == S_IFCHR, "\(arguments[0]) replaced the device")
        }
        #expect(directory.contents() == ["mynull"], "no temporary file is left beside it")
    }

    @Test func aFIFOsReaderGetsTheOutputAndTheFIFOStays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.file("pipe")
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo]
        let read = Pipe()
        reader.standardOutput = read
        try reader.run()
        let result = try earshot("vad", "-o", fifo, Self.clip)
        let received = read.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(received == (try expected()))
        #expect(Self.kind(fifo) == S_IFIFO)
    }

    @Test func aSymlinkStaysALinkAndItsTargetKeepsItsMode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = try directory.write(Array("old\n".utf8), to: "target.csv")
        try #require(chmod(target, 0o600) == 0)
        let link = directory.file("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.csv")
        let result = try earshot("vad", "-o", link, Self.clip)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Self.kind(link) == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.csv")
        #expect(FileManager.default.contents(atPath: target) == (try expected()))
        #expect(Self.mode(target) == 0o600, "the file's mode is kept")

        // A dangling link: its target is created.
        let dangling = directory.file("later.csv")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made.csv")
        #expect(try earshot("vad", "-o", dangling, Self.clip).status == 0)
        #expect(Self.kind(dangling) == S_IFLNK)
        #expect(FileManager.default.contents(atPath: directory.file("made.csv")) == (try expected()))
        #expect(directory.contents() == ["later.csv", "link.csv", "made.csv", "target.csv"])
    }

    @Test func aRegularFileIsReplacedKeepingItsMode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(Array("old\n".utf8), to: "out.csv")
        try #require(chmod(file, 0o640) == 0)
        #expect(try earshot("vad", "-o", file, Self.clip).status == 0)
        #expect(Self.kind(file) == S_IFREG && Self.mode(file) == 0o640)
        #expect(FileManager.default.contents(atPath: file) == (try expected()))
    }

    @Test func devStdoutIsTheProcesssOwnStandardOutput() throws {
        let result = try earshot("vad", "-o", "/dev/stdout", Self.clip)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == (try expected()))
    }

    @Test(arguments: [
        ["transcribe", "-o", "DIR", clip], ["vad", "-o", "DIR", clip], ["encode", clip, "DIR"],
        ["decode", clip, "DIR"],
    ])
    func aDirectoryIsRefusedNamingIt(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("out.wav")  // a name whose extension the encoders accept
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let arguments = arguments.map { $0 == "DIR" ? target : $0 }
        let result = try ExternalTool.run([ExternalTool.earshotPath] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(
            result.standardError == "earshot: \(target): is a directory; expected a file name to write to\n",
            "\(arguments)")
        let inside = try FileManager.default.contentsOfDirectory(atPath: target)
        #expect(directory.contents() == ["out.wav"] && inside.isEmpty)
    }

    @Test func vadOutCreatesItsFolderAndRefusesCollidingNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("preds/detector")
        let result = try earshot("vad", "--out", out, Self.clip)
        #expect(result.status == 0, "\(result.standardError)")
        let stem = ((Self.clip as NSString).lastPathComponent as NSString).deletingPathExtension
        #expect((try FileManager.default.contentsOfDirectory(atPath: out)).sorted() == [stem + ".csv", stem + ".prob"])

        let copy = directory.file((Self.clip as NSString).lastPathComponent)
        try FileManager.default.copyItem(atPath: Self.clip, toPath: copy)
        let clash = try earshot("vad", "--out", out, Self.clip, copy)
        #expect(clash.status == 1)
        #expect(clash.standardError.contains("would both be written to \(stem).csv"), "\(clash.standardError)")
    }

    /// How an output can be an input: the same name, a symbolic link to it, a hard link to it, or
    /// standard input redirected from it. Each `OUT` is made from `IN` (a copy of the clip) first.
    enum Alias: String, CaseIterable, Sendable { case sameName, symbolicLink, hardLink }

    @Test(arguments: Alias.allCases, [
        ["transcribe", "-o", "OUT", "IN"], ["transcribe", "--format", "srt", "-o", "OUT", "IN"],
        ["vad", "-o", "OUT", "IN"], ["level", "-o", "OUT", "IN"], ["endpoint", "-o", "OUT", "IN"],
        ["encode", "--format", "wav", "IN", "OUT"], ["decode", "IN", "OUT"],
    ])
    func anOutputThatIsAnInputIsRefusedBeforeAnythingIsRead(alias: Alias, arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.file("in.wav")
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input)
        let original = try #require(FileManager.default.contents(atPath: input))
        let output: String
        switch alias {
        case .sameName: output = input
        case .symbolicLink:
            output = directory.file("out.wav")
            try FileManager.default.createSymbolicLink(atPath: output, withDestinationPath: "in.wav")
        case .hardLink:
            output = directory.file("out.wav")
            try #require(link(input, output) == 0)
        }
        let arguments = arguments.map { $0 == "IN" ? input : $0 == "OUT" ? output : $0 }
        let result = try ExternalTool.run([ExternalTool.earshotPath] + arguments)
        #expect(result.status == 1, "\(arguments): \(result.standardError)")
        #expect(
            result.standardError.contains("\(output): ") && result.standardError.contains("the input \(input)")
                && result.standardError.contains("would replace the recording"),
            "\(arguments): \(result.standardError)")
        #expect(FileManager.default.contents(atPath: input) == original, "\(arguments) changed the recording")
        #expect(result.standardOutput.isEmpty)
        let left = Set(directory.contents())
        #expect(left == (alias == .sameName ? ["in.wav"] : ["in.wav", "out.wav"]), "nothing else is written")
    }

    @Test func anOutputThatIsStandardInputsFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.file("in.wav")
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input)
        let original = try #require(FileManager.default.contents(atPath: input))
        let result = try ExternalTool.run([
            "/bin/sh", "-c", "exec \"$0\" transcribe -o \"$1\" - < \"$1\"", ExternalTool.earshotPath, input,
        ])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("-o names standard input"), "\(result.standardError)")
        #expect(FileManager.default.contents(atPath: input) == original)
    }

    @Test func anOutputDirFileThatIsAnInputIsRefused() throws {
        // An input whose name ends as the transcript would: `--output-dir` would write DIR/talk.txt over it.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.file("talk.txt")
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input)
        let original = try #require(FileManager.default.contents(atPath: input))
        let result = try earshot("transcribe", "--output-dir", directory.path, input)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("--output-dir names the input \(input)"), "\(result.standardError)")
        #expect(FileManager.default.contents(atPath: input) == original)
        #expect(directory.contents() == ["talk.txt"])
    }

    @Test func aHardLinkedOutputIsWrittenInPlaceAndEveryNameSeesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(Array("old\n".utf8), to: "out.csv")
        let other = directory.file("other.csv")
        try #require(link(file, other) == 0)
        try #require(chmod(file, 0o640) == 0)
        let result = try earshot("vad", "-o", file, Self.clip)
        #expect(result.status == 0, "\(result.standardError)")
        let expected = try expected()
        #expect(FileManager.default.contents(atPath: file) == expected)
        #expect(FileManager.default.contents(atPath: other) == expected, "the other name sees the new contents")
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_nlink == 2 && info.st_mode & 0o7777 == 0o640, "still one file, two names")
        #expect(Set(directory.contents()) == ["out.csv", "other.csv"], "no temporary file left")
    }

    @Test func anOutputInAMissingFolderSaysTheFolderIsMissing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("nodir/out.txt")
        let result = try earshot("vad", "-o", target, Self.clip)
        #expect(result.status == 2)
        #expect(
            result.standardError == "earshot: \(target): the folder \(directory.file("nodir")) does not exist; create it first\n",
            "\(result.standardError)")
    }
}
