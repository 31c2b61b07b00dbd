import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Audio that is cheap to send but costs a recognizer: silence (AMR NO_DATA frames, a byte per 20 ms)
/// ends as "No Speech" after `--max-initial-silence` seconds of audio without the rest of the body
/// being read, a recognition that costs more CPU than its audio allows is stopped
/// (`--max-cpu-per-audio-second`), and one app cannot hold every recognizer (`--max-recognitions-per-app`).
/// Against a real `earshot serve` on loopback.
@Suite(.serialized, .waiting) struct ServeCheapAudioTests {
    typealias Server = ServeCommandTests.Server

    /// An AMR-NB file of `seconds` of NO_DATA frames: the frame header 0x7C (type 15, quality bit) alone.
    static func silentAMR(seconds: Int) -> [UInt8] {
        Array("#!AMR\n".utf8) + [UInt8](repeating: 0x7C, count: seconds * 50)
    }

    /// CPU seconds (user + system) a process has used, from /proc.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name (which may hold spaces) start at ") ".
        let fields = stat[stat.range(of: ") ")!.upperBound...].split(separator: " ")
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func silenceEndsAsNoSpeechWithoutTheRestOfTheBody() throws {
        let server = try Server(arguments: ServeHardeningTests.quick() + ["--max-initial-silence", "3"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        // The head announces 60 s of silence; 30 s of it is sent (enough to be lent a recognizer), then
        // nothing more: without the limit the service waits for the rest and answers 408 after the 4 s
        // read timeout. (The status tells the two apart, not the time, which a loaded machine stretches.)
        let audio = Self.silentAMR(seconds: 60)
        let cpuBefore = try Self.cpuSeconds(server.process.processIdentifier)
        let connection = try LoopbackConnection(port: server.port)
        connection.send(ServeHardeningTests.speechHead(token: token, contentType: "audio/amr", length: audio.count))
        connection.send(Array(audio.prefix(6 + 30 * 50)))
        connection.read(for: 60)
        #expect(connection.statuses == [200], "\(connection.text)")
        #expect(connection.text.contains("\"No Speech\""), "\(connection.text)")
        // Three seconds of audio looked at, not thirty: the request's CPU (the service's own clock, which
        // load does not stretch) stays far below the audio sent.
        let cpu = try Self.cpuSeconds(server.process.processIdentifier) - cpuBefore
        #expect(cpu < 3, "the silent upload cost \(cpu) s of CPU")
        let after = try ServeHardeningTests.recognize(server, token: token)
        #expect(after.0 == 200, "the service still serves: \(after.1)")
    }

    @Test func speechAfterSilenceShorterThanTheLimitIsRecognized() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let silence = directory.file("silence.wav")
        let late = directory.file("late.wav")
        // Two seconds of silence, then the cards recording, through sox.
        _ = try ExternalTool.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "2"])
        _ = try ExternalTool.run(["sox", silence, ServeHardeningTests.wav, late])
        let server = try Server(arguments: ServeHardeningTests.quick() + ["--max-initial-silence", "3"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let reply = try ServeHardeningTests.recognize(server, token: token, audio: late)
        #expect(reply.0 == 200 && reply.1.contains("\"OK\""), "\(reply.1)")
        // And a file that is silence throughout, shorter than the limit, is an ordinary No Speech.
        let quiet = try ServeHardeningTests.recognize(server, token: token, audio: silence)
        #expect(quiet.0 == 200 && quiet.1.contains("\"No Speech\""), "\(quiet.1)")
    }

    @Test func anOpenAIUploadOfSilenceGetsAnErrorNamingTheLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let silence = directory.file("silence.wav")
        _ = try ExternalTool.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", silence, "trim", "0", "20"])
        let key = "sk-earshot-test-0123456789abcdef"
        let keys = try directory.writeSecret(Array("\(key)\n".utf8), to: "keys.txt")
        let server = try Server(
            arguments: ServeHardeningTests.quick() + ["--max-initial-silence", "3", "--api-keys", keys])
        defer { _ = server.stop() }
        let result = try ExternalTool.run([
            "curl", "--silent", "--write-out", "\n%{http_code}", "--header", "Authorization: Bearer \(key)",
            "--form", "model=pocketsphinx-en-us", "--form", "file=@\(silence)",
            "http://127.0.0.1:\(server.port)/v1/audio/transcriptions",
        ])
        let lines = result.output.split(separator: "\n")
        #expect(lines.last == "400", "\(result.output)")
        #expect(result.output.contains("max-initial-silence"), "\(result.output)")
    }

    @Test func aRecognitionBeyondItsCPUBudgetIsStoppedWhileItRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 47 s of speech: the cards recording 30 times, through sox. Decoding it whole costs several
        // seconds of CPU with either recognizer.
        let long = directory.file("long.wav")
        _ = try ExternalTool.run(["sox", ServeHardeningTests.wav, long, "repeat", "29"])
        let server = try Server(
            arguments: ServeHardeningTests.quick() + ["--max-cpu-per-audio-second", "0.01", "--cpu-grace", "0.5"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let cpuBefore = try Self.cpuSeconds(server.process.processIdentifier)
        let reply = try ServeHardeningTests.recognize(server, token: token, audio: long)
        #expect(reply.0 == 422, "\(reply.1)")
        #expect(reply.1.contains("--max-cpu-per-audio-second 0.01"), "\(reply.1)")
        // Stopped at its budget (0.5 s + 0.01 s per second of audio, under a second here) within a
        // watchdog period, on the service's own clock, which load does not stretch.
        let cpu = try Self.cpuSeconds(server.process.processIdentifier) - cpuBefore
        #expect(cpu < 2.5, "the request cost \(cpu) s of CPU")
        #expect(reply.1.contains("--cpu-grace 0.5 s"), "\(reply.1)")
        // The default budget lets speech through (every other test of the service relies on it too).
        let usual = try Server(arguments: ServeHardeningTests.quick())
        defer { _ = usual.stop() }
        let whole = try ServeHardeningTests.recognize(usual, token: try ServeHardeningTests.token(usual))
        #expect(whole.0 == 200 && whole.1.contains("\"OK\""), "\(whole.1)")
    }

    @Test func oneAppCannotTakeEveryRecognizer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = "sk-earshot-first-0123456789abcdef"
        let second = "sk-earshot-second-0123456789abcdef"
        let keys = try directory.writeSecret(Array("\(first)\n\(second)\n".utf8), to: "keys.txt")
        // Two recognizers: by default an app may run one recognition at a time. The pace rules are
        // relaxed so the held upload is not cut off while the machine is busy.
        let server = try Server(arguments: [
            "--recognizers", "2", "--read-timeout", "60", "--upload-grace", "60", "--api-keys", keys,
            "--log-level", "warning",
        ])
        defer { _ = server.stop() }
        // The first app's upload holds a recognizer: half its audio sent, the rest later.
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ServeHardeningTests.wav)))
        let holding = try LoopbackConnection(port: server.port)
        holding.send(ServeHardeningTests.speechHead(token: first, contentType: "audio/wav", length: audio.count))
        holding.send(Array(audio.prefix(audio.count / 2)))
        // Until the service has lent it a recognizer, a second request could still take one.
        holding.read(for: 0.5)
        let again = try ServeHardeningTests.recognize(port: server.port, token: first)
        #expect(again.0 == 429, "\(again.1)")
        #expect(again.1.contains("Retry-After"), "\(again.1)")
        #expect(again.1.contains("limit per app"), "\(again.1)")
        let other = try ServeHardeningTests.recognize(port: server.port, token: second)
        #expect(other.0 == 200 && other.1.contains("\"OK\""), "the other app: \(other.1)")
        holding.send(Array(audio.dropFirst(audio.count / 2)))
        holding.read(for: 30)
        #expect(holding.statuses == [200], "\(holding.text)")
        // With its recognition finished, the first app may recognize again.
        #expect(try ServeHardeningTests.recognize(port: server.port, token: first).0 == 200)
    }
}
