import EarshotCore
import EarshotIO
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// MP4/M4A, WebM and ADTS AAC, which libsndfile does not read, are read through FFmpeg: the samples
/// are the ones the `ffmpeg` command decodes from the same file, at the stream's own rate and channel
/// count; files cut short, and files with no audio, are refused naming the file.
@Suite(.computing) struct MediaFileSourceTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    /// How each test file is made from the clip (16 kHz mono speech, 6.05 s).
    static let encoders: [String: [String]] = [
        "aac.m4a": ["-c:a", "aac", "-b:a", "96k"],
        "faststart.m4a": ["-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart"],
        "stereo.mp4": ["-c:a", "aac", "-ar", "44100", "-ac", "2"],
        "opus.webm": ["-c:a", "libopus"],
        "adts.aac": ["-c:a", "aac", "-f", "adts"],
    ]

    static func encode(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try ExternalTool.ffmpeg(clip, try #require(encoders[name]), to: path)
        return path
    }

    /// Every sample `path` gives through `AudioInput`, interleaved, and its format.
    static func readAll(_ path: String) throws -> (samples: [Float], format: AudioFormat, description: InputDescription)
    {
        var source = try AudioInput.open(path: path)
        var samples: [Float] = []
        var expectedStart: Int64 = 0
        while let buffer = try source.read() {
            #expect(buffer.startFrame == expectedStart, "buffers carry their media time")
            expectedStart += Int64(buffer.frameCount)
            samples += buffer.samples
        }
        return (samples, source.format, source.inputDescription)
    }

    @Test(arguments: encoders.keys.sorted())
    func samplesAreWhatFFmpegDecodes(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.encode(name, in: directory)
        let (samples, format, description) = try Self.readAll(path)

        let reference = try ExternalTool.run([
            "ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-c:a", "pcm_f32le", "-",
        ])
        try #require(reference.status == 0, "\(reference.standardError)")
        let expected = reference.standardOutput.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let stereo = name == "stereo.mp4"
        #expect(format.channelCount == (stereo ? 2 : 1))
        #expect(format.sampleRate == (stereo ? 44_100 : name == "opus.webm" ? 48_000 : 16_000))
        #expect(description.encoding == (name == "opus.webm" ? "opus" : "aac"))
        try #require(samples.count == expected.count, "\(samples.count) samples, ffmpeg decodes \(expected.count)")
        let worst = zip(samples, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-6, "largest difference from ffmpeg's decode: \(worst)")
        // And it is the clip: 6.05 s, give or take the codec's frame. MP4 and WebM state the encoder's
        // delay and padding, which the decoded audio leaves out; ADTS cannot, so its 1 024 samples of
        // delay and its last frame's padding stay in (6.144 s here, as ffmpeg decodes it too).
        let seconds = Double(samples.count / format.channelCount) / Double(format.sampleRate)
        #expect(abs(seconds - 6.05) < (name == "adts.aac" ? 0.15 : 0.05), "\(seconds) s")
    }

    @Test(arguments: ["aac.m4a", "faststart.m4a", "opus.webm", "adts.aac"])
    func cutFilesAreRefusedNamingTheFile(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.encode(name, in: directory)))
        let cut = try directory.write(Array(whole.prefix(whole.count / 2)), to: "cut-" + name)
        let error = try #require(
            try thrownEarshotError {
                var source = try AudioInput.open(path: cut)
                while try source.read() != nil {}
            }, "a file cut in half was read as if whole")
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix("\(cut): "), "\(error.message)")
        #expect(error.message.contains("expected"), "\(error.message)")
        // An MP4 whose index comes last loses it: FFmpeg's own reason is quoted.
        if name == "aac.m4a" { #expect(error.message.contains("moov atom not found"), "\(error.message)") }
    }

    @Test func aVideoWithNoSoundSaysSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("silent-film.mp4")
        let run = try ExternalTool.run([
            "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-c:v", "mpeg4",
            path,
        ])
        try #require(run.status == 0, "\(run.standardError)")
        let error = try #require(try thrownEarshotError { _ = try AudioInput.open(path: path) })
        #expect(error.message.hasPrefix("\(path): no audio stream"), "\(error.message)")
    }

    @Test func containersAreSniffedFromTheirFirstBytes() {
        #expect(MediaContainer.sniff([0, 0, 0, 0x1C] + Array("ftypM4A ".utf8)) == .mp4)
        #expect(MediaContainer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42]) == .matroska)
        #expect(MediaContainer.sniff([0xFF, 0xF1, 0x60, 0x40]) == .adts)
        #expect(MediaContainer.sniff([0xFF, 0xF9, 0x60, 0x40]) == .adts)
        #expect(MediaContainer.sniff(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0]) == .mp3)
        #expect(MediaContainer.sniff([0xFF, 0xF3, 0x64, 0xC4]) == .mp3)  // MPEG-2 Layer III, 16 kHz
        #expect(MediaContainer.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
        #expect(MediaContainer.sniff(Array("hello, world".utf8)) == nil)
        #expect(MediaContainer.sniff([0xFF]) == nil)
    }
}
