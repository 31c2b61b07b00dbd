import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot serve` takes what the command line reads: on the OpenAI route the formats OpenAI's API
/// lists (MP3, MP4/M4A, WebM, Ogg, WAV, FLAC), told apart by their first bytes; on the Speech API the
/// same containers by `Content-Type`; under the same limits as the formats decoded as they arrive.
@Suite(.serialized, .waiting) struct MediaUploadServiceTests {
    typealias Server = ServeCommandTests.Server

    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    /// The `ffmpeg` options that make each upload from the clip.
    static let encoders: [String: [String]] = [
        "clip.mp3": ["-c:a", "libmp3lame", "-b:a", "128k"],
        "clip.m4a": ["-c:a", "aac", "-b:a", "128k"],
        "clip.webm": ["-c:a", "libopus", "-b:a", "64k"],
        "vorbis.ogg": ["-c:a", "libvorbis"],
    ]

    static func encode(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try ExternalTool.ffmpeg(clip, try #require(encoders[name]), to: path)
        return path
    }

    static func curl(_ arguments: [String], server: Server, path: String) throws -> (status: Int, body: String) {
        let result = try ExternalTool.run(
            ["curl", "--silent", "--write-out", "\n%{http_code}"] + arguments + [
                "http://127.0.0.1:\(server.port)\(path)"
            ])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    @Test func theOpenAIRouteTranscribesEachContainerAsTheWAV() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        // Whisper (OpenAI's name for it): PocketSphinx hears lossy Vorbis's last words differently.
        func transcribe(_ path: String) throws -> (status: Int, body: String) {
            try Self.curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--form", "model=whisper-1", "--form",
                    "response_format=text", "--form", "file=@\(path)",
                ], server: server, path: "/v1/audio/transcriptions")
        }
        let fromWAV = try transcribe(Self.clip)
        try #require(fromWAV.status == 200, "\(fromWAV.body)")
        #expect(fromWAV.body.hasPrefix("Had he married"), "\(fromWAV.body)")
        for name in Self.encoders.keys.sorted() {
            let reply = try transcribe(try Self.encode(name, in: directory))
            #expect(reply.status == 200, "\(name): \(reply.body)")
            #expect(reply.body == fromWAV.body, "\(name)")
        }
        // A cut M4A (its index lost) is refused as malformed audio, naming the field.
        let m4a = try Data(contentsOf: URL(fileURLWithPath: directory.file("clip.m4a")))
        let cut = try directory.write(Array(m4a.prefix(m4a.count / 2)), to: "cut.m4a")
        let refused = try transcribe(cut)
        #expect(refused.status == 400, "\(refused.body)")
        #expect(
            refused.body.contains("\"param\":\"file\"") || refused.body.contains("\"param\":\"audio\""),
            "\(refused.body)")
        #expect(refused.body.contains("MP4/M4A"), "\(refused.body)")
    }

    @Test func theSpeechAPITakesContainersByContentType() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        for (name, type) in [("clip.mp3", "audio/mpeg"), ("clip.m4a", "audio/mp4"), ("clip.webm", "audio/webm")] {
            let path = try Self.encode(name, in: directory)
            let reply = try Self.curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: \(type)", "--header",
                    "X-SpeechContext: Generic", "--header", "Transfer-Encoding: chunked", "--data-binary", "@\(path)",
                ],
                server: server, path: "/speech/v3/speechToText")
            #expect(reply.status == 200, "\(name): \(reply.body)")
            #expect(reply.body.lowercased().contains("married"), "\(name): \(reply.body)")
        }
    }

    /// A video whose picture outlasts its sound (a phone's or a screen capture's; `ffmpeg -shortest`)
    /// was refused with 400 as truncated; it is transcribed as its sound is, on both routes.
    @Test func aVideoWhosePictureOutlastsItsSoundIsTranscribed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        func transcribe(_ path: String) throws -> (status: Int, body: String) {
            try Self.curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--form", "model=whisper-1", "--form",
                    "response_format=text", "--form", "file=@\(path)",
                ], server: server, path: "/v1/audio/transcriptions")
        }
        for name in MediaInputCommandTests.videos.keys.sorted() {
            let speech = name.hasPrefix("shortest") ? MediaInputCommandTests.clip : MediaInputCommandTests.sixSeconds
            let fromWAV = try transcribe(speech)
            try #require(fromWAV.status == 200, "\(fromWAV.body)")
            let path = try MediaInputCommandTests.video(name, speech: speech, in: directory)
            let reply = try transcribe(path)
            #expect(reply.status == 200, "\(name): \(reply.body)")
            #expect(reply.body == fromWAV.body, "\(name)")
        }
        for (name, type) in [("vid7.mp4", "video/mp4"), ("vid7.webm", "video/webm"), ("shortest.mp4", "video/mp4")] {
            let reply = try Self.curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: \(type)", "--header",
                    "X-SpeechContext: Generic", "--header", "Transfer-Encoding: chunked", "--data-binary",
                    "@\(directory.file(name))",
                ],
                server: server, path: "/speech/v3/speechToText")
            #expect(reply.status == 200, "\(name): \(reply.body)")
            if name.hasPrefix("vid7") { #expect(reply.body.lowercased().contains("married"), "\(name): \(reply.body)") }
        }
    }

    /// A field of `/proc/PID/status` (`VmRSS`, `VmHWM`) in MiB.
    static func memoryMiB(_ pid: Int32, _ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// 20 s of 64-channel 192 kHz silence in Ogg Vorbis is a 4 MB upload but 940 MiB of Float32 at
    /// its own rate and channel count: decoded whole, each upload took some 956 MiB (three at once
    /// took the service from 330 to 3 231 MiB). Decoded, down-mixed and resampled a block at a time
    /// it takes a few MiB, whatever the channel count.
    @Test func aSixtyFourChannelUploadIsDecodedInBlocks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("wide.ogg")
        let made = try ExternalTool.run([
            "sh", "-c",
            "sox -q -n -r 192000 -c 64 -b 16 -t wav - trim 0 20 | ffmpeg -loglevel error -y -f wav -i - "
                + "-c:a libvorbis -q:a 0 \(path)",
        ])
        try #require(made.status == 0, "\(made.standardError)")
        // All 20 s are decoded: the silence limit would otherwise end the request after a few seconds.
        let server = try Server(arguments: ["--max-initial-silence", "inf", "--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let pid = server.process.processIdentifier
        func upload() throws -> (status: Int, body: String) {
            try Self.curl(
                [
                    "--header", "Authorization: Bearer \(token)", "--form", "model=whisper-1", "--form",
                    "response_format=text", "--form", "file=@\(path)",
                ], server: server, path: "/v1/audio/transcriptions")
        }
        // The first request warms what any request uses (a recognizer, FFmpeg's tables).
        let warm = try upload()
        try #require(warm.status == 200, "\(warm.body)")
        let before = try #require(Self.memoryMiB(pid, "VmRSS"))
        var peaks: [Double] = []
        for index in 0..<3 {
            // Writing 5 to clear_refs resets VmHWM to the present resident set, so each peak is its upload's.
            try "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
            let reply = try upload()
            #expect(reply.status == 200, "upload \(index): \(reply.body)")
            peaks.append(try #require(Self.memoryMiB(pid, "VmHWM")))
        }
        let after = try #require(Self.memoryMiB(pid, "VmRSS"))
        // No upload's peak may pass the resident set before them by 100 MiB (decoded whole, one took
        // 956 MiB), and what the three leave behind is small.
        #expect(peaks.allSatisfy { $0 - before < 100 }, "before \(Int(before)) MiB, peaks \(peaks.map { Int($0) })")
        #expect(after - before < 50, "before \(Int(before)) MiB, after \(Int(after)) MiB")
    }

    @Test func theDurationLimitHoldsForContainers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try Server(arguments: ["--max-audio-duration", "2"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let reply = try Self.curl(
            [
                "--header", "Authorization: Bearer \(token)", "--form", "model=pocketsphinx-en-us", "--form",
                "file=@\(try Self.encode("clip.m4a", in: directory))",
            ], server: server, path: "/v1/audio/transcriptions")
        #expect(reply.status == 413, "\(reply.body)")
        #expect(reply.body.contains("maximum of 2.0 s"), "\(reply.body)")
    }
}
