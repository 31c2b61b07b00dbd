import ArgumentParser
import EarshotCapture
import EarshotClient
import EarshotCore
import EarshotLab
import EarshotLoad
import EarshotModels
import EarshotWhisper
import Foundation

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load-test a recognition service (or the embedded recognizer) with live-paced streams.",
        discussion: """
            Replays the utterances of a labelled corpus at real-time pace as N concurrent streaming \
            sessions (the speech client as listen runs it: its detector, Silero when installed, and \
            endpointing, Speex, chunked upload; for an OpenAI-compatible \
            service, each endpointed utterance posted as one file; for a ws://…/v1/realtime service, \
            one Realtime session per stream, its PCM streamed and committed at the endpoint) for \
            --duration seconds per level, and reports for each N the requests completed and failed, \
            the time from the labelled end of speech to the final result (p50/p90/p99/max), the lag \
            of partial results, and the server's CPU when --server-pid names its process. With \
            --embedded, the local recognizer alone, N decoders on N threads. --language and --task reach \
            every stream's service as with listen, or with --embedded the local Whisper, which refuses a \
            language or a translation its model cannot give, by name, before any stream starts (exit 1).

            It sends audio only to the --service URL given: use it on loopback or your own servers.

            Examples:
              earshot bench --service http://127.0.0.1:8080/speech/v3/speechToText \\
                  --app-key K --secret S --corpus corpora/real/sample --streams 1,2,4,8 \\
                  --duration 30
              earshot bench --service ws://127.0.0.1:8080/v1/realtime --token KEY \\
                  --corpus corpora/real/sample --streams 1,2,4 --partial-results
              earshot bench --embedded --corpus corpora/real/sample --streams 1,2,4 \\
                  --json > embedded.json
              earshot bench --embedded --decoder fast --corpus corpora/real/sample \\
                  --streams 2,4,6 --duration 20
              earshot bench --embedded --whisper-model whisper-base --task translate \\
                  --corpus corpora/real/sample --streams 1,2
            """)

    @OptionGroup var serviceOptions: ServiceOptions

    @Option(help: "A labelled corpus directory (manifest.jsonl): its utterances are replayed.")
    var corpus: String

    @Option(help: "Concurrent streams, one level per value: e.g. 1,2,4,8.")
    var streams: String = "1"

    @Option(help: "Seconds of wall-clock time per level (each stream finishes its current utterance).")
    var duration: Double = 30

    @Option(help: "Media seconds per second (1: real time).")
    var speed: Double = 1

    @Option(help: "PID of the service, to report its CPU use per level (read from /proc).")
    var serverPid: Int32?

    @OptionGroup(title: "The client's capture (as earshot listen's)") var captureOptions: CaptureOptions

    @Flag(help: "Measure the embedded recognizer alone instead of a service.")
    var embedded = false

    @OptionGroup(title: "Embedded recognizer (with --embedded)") var recognizerOptions: RecognizerOptions

    @Flag(help: "Print the report as JSON on standard output.")
    var json = false

    @Flag(help: "Ask the service for partial results (their lag is reported).")
    var partialResults = false

    func run() async throws {
        let levels = try streams.split(separator: ",").map { text -> Int in
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)), (1...256).contains(count) else {
                throw ValidationError("--streams \(streams): expected counts from 1 to 256, comma-separated")
            }
            return count
        }
        guard duration > 0, speed > 0 else { throw ValidationError("--duration and --speed must be positive") }
        let labelled = try Corpus.load(directory: corpus)
        let utterances = LoadTest.utterances(of: labelled)
        guard !utterances.isEmpty else {
            throw EarshotError(.invalidInput, "\(corpus): no utterance with labelled speech")
        }
        if !embedded { try recognizerOptions.refuse("without --embedded the service decodes with its own") }
        let capture = try captureOptions.configuration()
        let recognizers =
            embedded
            ? nil
            : try serviceOptions.liveRecognizerFactory(capture: capture, partialResults: partialResults)
        let runner: @Sendable (Int) async throws -> LoadReport.Level
        if let recognizers {
            let test = LoadTest(recognizers: recognizers, utterances: utterances, speed: speed)
            runner = { try await test.run(streams: $0, duration: duration) }
        } else {
            let model = try recognizerOptions.resolve(
                language: serviceOptions.spokenLanguage, task: serviceOptions.task)
            let test = EmbeddedLoad(
                utterances: utterances, speed: speed, makeRecognizer: { try model.makeRecognizer() }, capture: capture)
            runner = { try await test.run(streams: $0, duration: duration) }
        }
        let pid = serverPid
        var report: [LoadReport.Level] = []
        for count in levels {
            let before = pid.flatMap(ProcessCPU.seconds)
            let started = ContinuousClock.now
            var level = try await runner(count)
            if let before, let after = pid.flatMap(ProcessCPU.seconds) {
                let wall = ContinuousClock.now - started
                level.serverCPU =
                    (after - before) / (Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
            }
            if isatty(STDERR_FILENO) != 0 {
                FileHandle.standardError.write(Data("earshot bench: \(count) stream(s) done\n".utf8))
            }
            report.append(level)
        }
        let result = LoadReport(
            levels: report, url: recognizers?.url ?? "embedded", corpus: corpus,
            language: serviceOptions.spokenLanguage ?? "auto", task: serviceOptions.task.rawValue)
        if json {
            FileHandle.standardOutput.write(try result.json())
            print()
        } else {
            print(result.table)
        }
    }
}

/// CPU seconds a process has used (user + system), from `/proc/PID/stat`.
enum ProcessCPU {
    static func seconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "pid (comm)": state is 3rd; utime and stime are the 14th and 15th.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
