import EarshotCore
import EarshotRecognizer
import Prometheus
import Synchronization

/// The service's Prometheus metrics, in its own registry (no process-wide metrics system, so several
/// services in one process — the tests' — keep apart), rendered by `GET /metrics` in the text
/// exposition format:
///
/// | metric | type | what |
/// |---|---|---|
/// | `earshot_http_requests_total{route,status}` | counter | answered requests, by matched route and status |
/// | `earshot_http_request_duration_seconds{route}` | histogram | from the request head until the route hands over its answer (a partial-results stream: until it begins) |
/// | `earshot_unavailable_responses_total` | counter | 503s (every recognizer busy; not `/health`'s) |
/// | `earshot_audio_recognized_seconds_total` | counter | seconds of audio recognized |
/// | `earshot_recognizers_in_use` | gauge | recognizers lent to requests when scraped |
/// | `earshot_recognizers` | gauge | the pool's size (`--recognizers`) |
/// | `earshot_early_decodes_total{outcome}` | counter | final decodes begun at the speaker's pause: `used` as the answer, `dropped` when speech came back |
/// | `earshot_final_decodes_redone_total` | counter | final decodes whose fitted encoder window looped, was improbable or said nothing, done again on the full 30 s window (the live answers that come late) |
/// | `earshot_decodes_total{kind}` | counter | Whisper decodes run on the process's cores (``ComputeSlots``): `final` (begun at a pause or at the end), `partial`, and `partial_skipped` (a core was busy or a final waited) |
/// | `earshot_decode_cpu_seconds_total{kind}` | counter | the CPU those decodes took, `final` and `partial` |
/// | `earshot_decode_wait_seconds_total` | counter | time final decodes waited for a core |
public final class ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let unavailable: Counter
    private let audioSeconds: Counter
    private let recognizersInUse: Gauge
    private let recognizers: Gauge
    private let redone: Counter
    /// The decode tally at the last scrape; counters go up by what changed since.
    private let decodesScraped = Mutex(ComputeSlots.Tally())

    /// Buckets for request latency: a token request takes milliseconds, a recognition as long as its
    /// upload (up to the longest audio accepted, 60 s by default).
    static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120),
    ]

    public init() {
        unavailable = registry.makeCounter(
            descriptor: Self.name("unavailable_responses", unit: "total", help: "503 answers: every recognizer busy"))
        audioSeconds = registry.makeCounter(
            descriptor: Self.name("audio_recognized_seconds", unit: "total", help: "Seconds of audio recognized"))
        recognizersInUse = registry.makeGauge(
            descriptor: Self.name("recognizers_in_use", help: "Recognizers lent to requests"))
        recognizers = registry.makeGauge(descriptor: Self.name("recognizers", help: "Recognizers the pool may hold"))
        redone = registry.makeCounter(
            descriptor: Self.name(
                "final_decodes_redone", unit: "total",
                help: "Final decodes whose fitted encoder window failed, done again on the full window"))
    }

    /// Counts an answered request; `route` is the matched route's path (few values), never the raw URI.
    func requestAnswered(route: String, status: Int, after duration: Duration) {
        registry.makeCounter(
            descriptor: Self.name("http_requests", unit: "total", help: "Answered requests by route and status"),
            labels: [("route", route), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.name(
                "http_request_duration", unit: "seconds", help: "Time from request head until the answer is handed over"
            ),
            labels: [("route", route)], buckets: Self.latencyBuckets
        ).record(duration)
        // /health's own 503 says the instance is draining; it refuses no client.
        if status == 503 && route != "/health" { unavailable.increment() }
    }

    /// Counts a request's final decodes begun at pauses: those that became its answer, and the others.
    func earlyDecodes(_ tally: EarlyDecodeTally) {
        for (outcome, count) in [("used", tally.used), ("dropped", tally.begun - tally.used)] where count > 0 {
            registry.makeCounter(
                descriptor: Self.name(
                    "early_decodes", unit: "total", help: "Final decodes begun at the speaker's pause, by outcome"),
                labels: [("outcome", outcome)]
            ).increment(by: Int64(count))
        }
        redone.increment(by: Int64(max(tally.redoneInFull, 0)))
    }

    /// Counts audio a request had recognized.
    func recognized(audioSeconds seconds: Double) { audioSeconds.increment(by: seconds) }

    /// The exposition text, with the pool's gauges and the decodes' tally read now.
    func exposition(recognizersInUse inUse: Int, capacity: Int, decodes: ComputeSlots.Tally) -> [UInt8] {
        recognizersInUse.set(Double(inUse))
        recognizers.set(Double(capacity))
        let before = decodesScraped.withLock { scraped in
            defer { scraped = decodes }
            return scraped
        }
        for (kind, count) in [
            ("final", decodes.results - before.results), ("partial", decodes.provisional - before.provisional),
            ("partial_skipped", decodes.provisionalSkipped - before.provisionalSkipped),
        ] {
            registry.makeCounter(
                descriptor: Self.name("decodes", unit: "total", help: "Whisper decodes on the cores, by kind"),
                labels: [("kind", kind)]
            ).increment(by: Int64(max(count, 0)))
        }
        for (kind, cpu) in [
            ("final", decodes.resultCPU - before.resultCPU),
            ("partial", decodes.provisionalCPU - before.provisionalCPU),
        ] {
            registry.makeCounter(
                descriptor: Self.name("decode_cpu_seconds", unit: "total", help: "CPU of Whisper decodes, by kind"),
                labels: [("kind", kind)]
            ).increment(by: max(cpu.inSeconds, 0))
        }
        registry.makeCounter(
            descriptor: Self.name("decode_wait_seconds", unit: "total", help: "Time final decodes waited for a core")
        ).increment(by: max((decodes.resultWait - before.resultWait).inSeconds, 0))
        return registry.emitToBuffer()
    }

    private static func name(_ metric: String, unit: String? = nil, help: String) -> MetricNameDescriptor {
        if let unit {
            return MetricNameDescriptor(namespace: "earshot", metricName: metric, unitName: unit, helpText: help)
        }
        return MetricNameDescriptor(namespace: "earshot", metricName: metric, unitName: "", helpText: help)
    }
}
