import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Compressed files cut short are refused like a truncated WAV, naming the file and what was expected,
/// whichever tool wrote them; the same files whole are read to the end.
@Suite(.computing) struct TruncatedInputTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    /// How each format is made: ffmpeg's MP3 carries a Xing header with its frame count, sox's does not.
    static let encoders: [String: [String]] = [
        "ffmpeg.mp3": ["ffmpeg", "-loglevel", "error", "-y", "-i", clip],
        "sox.mp3": ["sox", clip],
        "vorbis.ogg": ["ffmpeg", "-loglevel", "error", "-y", "-i", clip, "-c:a", "libvorbis"],
        "opus.ogg": ["ffmpeg", "-loglevel", "error", "-y", "-i", clip, "-c:a", "libopus"],
        "sox.flac": ["sox", clip],
        "sox.amr": ["sox", clip, "-r", "8000", "-t", "amr-nb"],
    ]

    static func encode(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        let run = try ExternalTool.run(try #require(encoders[name]) + [path])
        try #require(run.status == 0, "\(name): \(run.standardError)")
        return path
    }

    static func readAll(_ path: String) throws -> Int {
        var source = try AudioInput.open(path: path)
        var frames = 0
        while let buffer = try source.read() { frames += buffer.frameCount }
        return frames
    }

    @Test(arguments: encoders.keys.sorted())
    func wholeFilesAreReadAndCutOnesRefused(format: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = try Self.encode(format, in: directory)
        #expect(try Self.readAll(whole) > 0)

        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        for fraction in [0.5, 0.9] {
            let cut = try directory.write(Array(bytes.prefix(Int(Double(bytes.count) * fraction))), to: "cut-" + format)
            let error = try #require(try thrownEarshotError { _ = try Self.readAll(cut) }, "\(format) at \(fraction)")
            #expect(error.code == .invalidInput)
            #expect(error.message.hasPrefix("\(cut): "), "\(error.message)")
            #expect(error.message.contains("truncated"), "\(error.message)")
            #expect(error.message.contains("expected"), "\(error.message)")
        }
    }
}
