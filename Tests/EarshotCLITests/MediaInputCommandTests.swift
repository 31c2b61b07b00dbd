import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// The containers people have their recordings in — M4A from a phone, MP4 and WebM from a browser or
/// a video call, raw AAC, MP3 — transcribe as the WAV they were made from; a cut one is refused with
/// one line and exit status 2, and a file nothing reads says what is read and how to convert it.
@Suite(.serialized, .computing) struct MediaInputCommandTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"

    /// The `ffmpeg` options that make each file from the clip.
    static let encoders: [String: [String]] = [
        "phone.m4a": ["-c:a", "aac", "-b:a", "128k"],
        "call.mp4": ["-c:a", "aac", "-ar", "48000", "-ac", "2", "-b:a", "160k"],
        "browser.webm": ["-c:a", "libopus", "-b:a", "64k"],
        "raw.aac": ["-c:a", "aac", "-b:a", "128k", "-f", "adts"],
        "podcast.mp3": ["-c:a", "libmp3lame", "-b:a", "128k"],
    ]

    static func encode(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try ExternalTool.ffmpeg(clip, try #require(encoders[name]), to: path)
        return path
    }

    @Test func eachContainerTranscribesAsTheWAV() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fromWAV = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", Self.clip])
        try #require(fromWAV.status == 0, "\(fromWAV.standardError)")
        #expect(fromWAV.output.contains("young man"), "\(fromWAV.output)")
        for name in Self.encoders.keys.sorted() {
            let path = try Self.encode(name, in: directory)
            let result = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", path])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            #expect(result.output == fromWAV.output, "\(name)")
            #expect(result.standardError.isEmpty, "\(name): nothing from FFmpeg on stderr: \(result.standardError)")
        }
        // On standard input (spooled to a temporary file, so the demuxer can seek), and `info` names it.
        let m4a = try Data(contentsOf: URL(fileURLWithPath: directory.file("phone.m4a")))
        let piped = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", "-"], standardInput: m4a)
        #expect(piped.status == 0 && piped.output == fromWAV.output, "\(piped.standardError)")
        let info = try ExternalTool.run([ExternalTool.earshotPath, "info", directory.file("call.mp4")])
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.output.contains("MP4/M4A") && info.output.contains("aac"), "\(info.output)")
    }

    /// How each video is made: a test picture beside `speech`, running on after it as a phone's or a
    /// screen capture's picture may (`-shortest` stops the picture only at the encoder's next frame).
    static let videos: [String: (picture: Double, options: [String])] = [
        "vid7.mp4": (7, ["-c:v", "libx264", "-c:a", "aac", "-t", "7"]),
        "vid7.mkv": (7, ["-c:v", "mpeg4", "-c:a", "aac", "-t", "7"]),
        "vid7.webm": (7, ["-c:v", "libvpx", "-c:a", "libopus", "-t", "7"]),
        "shortest.mp4": (3.3, ["-c:v", "libx264", "-c:a", "aac", "-shortest"]),
    ]

    /// A video of `speech` (6.05 s for the 7 s ones, 2.99 s for `-shortest`).
    static func video(_ name: String, speech: String, in directory: TemporaryDirectory) throws -> String {
        let (picture, options) = try #require(videos[name])
        let path = directory.file(name)
        let run = try ExternalTool.run(
            [
                "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=duration=\(picture):size=64x48:rate=10",
            ]
                + ["-i", speech] + options + [path])
        try #require(run.status == 0, "\(name): \(run.standardError)")
        return path
    }

    static let sixSeconds = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    /// A video whose picture outlasts its sound was refused as truncated ("its header states 7.00 s but
    /// the file ends after 6.08 s"): it transcribes as its sound does.
    @Test func aVideoWhosePictureOutlastsItsSoundTranscribes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var expected: [String: String] = [:]
        for speech in [Self.sixSeconds, Self.clip] {
            let fromWAV = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", speech])
            try #require(fromWAV.status == 0, "\(fromWAV.standardError)")
            expected[speech] = fromWAV.output
        }
        for name in Self.videos.keys.sorted() {
            let speech = name.hasPrefix("shortest") ? Self.clip : Self.sixSeconds
            let path = try Self.video(name, speech: speech, in: directory)
            let result = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", path])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            #expect(result.output == expected[speech], "\(name)")
        }
    }

    @Test func aCutM4AIsRefusedWithOneLineAndExit2() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try Self.encode("phone.m4a", in: directory)))
        let cut = try directory.write(Array(whole.prefix(whole.count * 2 / 3)), to: "cut.m4a")
        for arguments in [["info", cut], ["transcribe", cut]] {
            let result = try ExternalTool.run([ExternalTool.earshotPath] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): one line, nothing from FFmpeg: \(result.standardError)")
            #expect(lines.first?.hasPrefix("earshot: \(cut): ") == true, "\(result.standardError)")
            #expect(result.standardError.contains("MP4/M4A") && result.standardError.contains("expected"))
        }
        let piped = try ExternalTool.run(
            [ExternalTool.earshotPath, "transcribe", "-"], standardInput: Data(whole.prefix(whole.count * 2 / 3)))
        #expect(piped.status == 2)
        #expect(piped.standardError.hasPrefix("earshot: stdin: "), "\(piped.standardError)")
    }

    @Test func anUnreadableFileSaysWhatIsReadAndHowToConvert() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Random bytes that no reader recognises.
        var generator = SystemRandomNumberGenerator()
        let path = try directory.write(
            (0..<4096).map { _ in UInt8.random(in: 1...0xFE, using: &generator) }, to: "x.wma")
        let result = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", path])
        #expect(result.status == 2)
        #expect(
            result.standardError.hasPrefix("earshot: \(path): not a readable audio file"), "\(result.standardError)")
        for named in ["MP3", "MP4/M4A", "WebM", "ffmpeg -i IN -ar 16000 -ac 1 OUT.wav"] {
            #expect(result.standardError.contains(named), "\(named): \(result.standardError)")
        }
    }
}
