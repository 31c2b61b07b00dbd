import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// A cut-short MP3 or Ogg file is refused as a cut-short FLAC or AMR is: exit status 2 and one line
/// naming the file and what was expected, with nothing from mpg123 or any other library on stderr.
@Suite(.computing) struct TruncatedInputCommandTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    @Test(arguments: [
        ("cut.mp3", ["ffmpeg", "-loglevel", "error", "-y", "-i", clip]),
        ("cut.ogg", ["ffmpeg", "-loglevel", "error", "-y", "-i", clip, "-c:a", "libvorbis"]),
        ("cut.flac", ["sox", clip]),
        ("cut.amr", ["sox", clip, "-r", "8000", "-t", "amr-nb"]),
    ])
    func refusedWithOneLineAndExit2(name: String, encoder: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = directory.file("whole-" + name)
        try #require(try ExternalTool.run(encoder + [whole]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = try directory.write(Array(bytes.prefix(bytes.count / 2)), to: name)

        for arguments in [["info", cut], ["vad", "--detector", "spectral", cut], ["transcribe", cut]] {
            let result = try ExternalTool.run([ExternalTool.earshotPath] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): one line, nothing from a library: \(result.standardError)")
            #expect(lines.first?.hasPrefix("earshot: \(cut): ") == true, "\(result.standardError)")
            #expect(result.standardError.contains("truncated") && result.standardError.contains("expected"))
        }
        // On standard input (spooled, as these formats need to seek), named as stdin.
        let piped = try ExternalTool.run(
            [ExternalTool.earshotPath, "info", "-"], standardInput: Data(bytes.prefix(bytes.count / 2)))
        #expect(piped.status == 2)
        #expect(piped.standardError.hasPrefix("earshot: stdin: ") && piped.standardError.contains("truncated"))
    }
}
