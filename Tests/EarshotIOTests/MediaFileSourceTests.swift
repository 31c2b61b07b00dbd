import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotIO

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

    /// How each video is made: a test picture beside the clip's 6.05 s of speech, the picture running
    /// on after the sound as a phone's or a screen capture's may (`-shortest` stops the picture only at
    /// the encoder's next frame: x264's look-ahead leaves it seconds past the sound).
    static let videos: [String: (picture: Double, options: [String])] = [
        "vid7.mp4": (7, ["-c:v", "mpeg4", "-c:a", "aac", "-t", "7"]),
        "vid7.mkv": (7, ["-c:v", "mpeg4", "-c:a", "aac", "-t", "7"]),
        "vid7.webm": (7, ["-c:v", "libvpx", "-c:a", "libopus", "-t", "7"]),
        "shortest.mp4": (30, ["-c:v", "libx264", "-c:a", "aac", "-shortest"]),
        "faststart.mp4": (7, ["-c:v", "mpeg4", "-c:a", "aac", "-t", "7", "-movflags", "+faststart"]),
    ]

    static func video(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let (picture, options) = try #require(videos[name])
        let path = directory.file(name)
        let run = try ExternalTool.run(
            [
                "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=duration=\(picture):size=64x48:rate=10",
            ]
                + ["-i", clip] + options + [path])
        try #require(run.status == 0, "\(name): \(run.standardError)")
        return path
    }

    /// A video is complete when its sound is, however long its picture runs on: the length checked is
    /// the audio stream's (an MP4 track's own, the DURATION tag of a Matroska track), not the container's.
    @Test(arguments: ["vid7.mp4", "vid7.mkv", "vid7.webm", "shortest.mp4"])
    func aVideoWhosePictureOutlastsItsSoundIsReadWhole(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.video(name, in: directory)
        let (samples, format, description) = try Self.readAll(path)
        // Matroska states no AAC encoder delay or padding, so those 1 024 + some samples stay in (6.144 s).
        let seconds = Double(samples.count / format.channelCount) / Double(format.sampleRate)
        #expect(abs(seconds - 6.05) < (name == "vid7.mkv" ? 0.15 : 0.05), "\(name): \(seconds) s")
        // The sound's length (Matroska's tag counts the last packet whole: 6.11 s), not the picture's.
        let stated = try #require(description.duration, "\(name) states its audio's length")
        #expect(abs(stated - 6.05) < 0.1, "\(name): states \(stated) s")
    }

    /// Judging the audio by its own length still catches a video cut short.
    @Test func aCutVideoIsStillRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.video("faststart.mp4", in: directory)))
        let cut = try directory.write(Array(whole.prefix(whole.count * 2 / 3)), to: "cut.mp4")
        let error = try #require(
            try thrownEarshotError {
                var source = try AudioInput.open(path: cut)
                while try source.read() != nil {}
            }, "a video cut at two thirds was read as if whole")
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix("\(cut): truncated"), "\(error.message)")
    }

    @Test func matroskaDurationTagsAreRead() {
        #expect(MediaFileSource.clockSeconds("00:00:06.114000000") == 6.114)
        #expect(MediaFileSource.clockSeconds("01:02:03.5") == 3_723.5)
        #expect(MediaFileSource.clockSeconds("6.114") == nil)
        #expect(MediaFileSource.clockSeconds("00:61:00.0") == nil)
        #expect(MediaFileSource.clockSeconds("") == nil)
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
