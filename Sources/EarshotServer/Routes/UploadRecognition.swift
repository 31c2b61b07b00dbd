import EarshotCore
import EarshotRecognizer
import Foundation
import Hummingbird

/// How every recognition route reads its body: into the audio path a factory makes, under the
/// ``UploadPace`` rules, with a recognizer from the shared pool. The Speech API's routes and the
/// OpenAI-compatible one differ in how they parse and answer, not in this.
struct UploadRecognition: Sendable {
    /// The service's configuration, read as each request needs it (a reload changes its limits).
    let live: LiveConfiguration
    var configuration: ServiceConfiguration { live.current }
    /// Where reading and decoding run: the pools' executor for blocking work.
    let executor: BlockingExecutor
    /// Counts the audio recognized.
    let metrics: ServiceMetrics
    /// The recognitions each app runs now, against the per-app cap.
    let apps: AppRecognitions

    /// When a stopping service gives up on the recognitions still running.
    let drainDeadline: DrainDeadline

    init(
        live: LiveConfiguration, executor: BlockingExecutor, metrics: ServiceMetrics,
        drainDeadline: DrainDeadline
    ) {
        self.live = live
        let configuration = live.current
        self.executor = executor
        self.metrics = metrics
        self.drainDeadline = drainDeadline
        apps = AppRecognitions(limit: configuration.recognitionsPerApp)
    }

    /// Makes what a request's body is fed to, once a recognizer is lent to it.
    typealias AudioFactory = @Sendable (any Recognizer) throws -> any RequestAudio

    /// What reading the body ended with.
    enum Outcome: Sendable {
        /// `finishing` is the time from the body's end to the final result: the latency the service adds.
        case recognized(RecognitionResult, audioTime: Double, audioBytes: Int, finishing: Duration)
        case stalled(UploadPace.Stall)
        /// No speech in the first `limit` seconds of audio (``InitialSilenceLimit``): the seed's "No
        /// Speech", given without reading the rest of the body.
        case noSpeech(audioTime: Double, audioBytes: Int, limit: Double)
    }

    /// Reads `body` into a recognition session, chunk by chunk, while a watchdog enforces the
    /// ``UploadPace`` rules. Each chunk is recognized before the next is read, so back-pressure
    /// reaches the client when the recognizer falls behind.
    ///
    /// A recognizer is borrowed from the pool only once the first `leaseThreshold` bytes (or the
    /// whole body, if shorter) have arrived, and returned before this returns or throws: a client
    /// that sends headers and then dribbles holds nothing but its own connection. If every
    /// recognizer is busy by then, throws 503 with `Retry-After`; if `app` already runs its share of
    /// recognizers (``ServiceConfiguration/maxRecognitionsPerApp``), 429 with `Retry-After`. A client that closes its connection
    /// mid-request (``ClientDeparture``) stops the recognition within a watchdog period (0.1 s) and the
    /// chunk being decoded: throws 499. Decoding that takes more CPU than ``RecognitionCPUBudget`` allows
    /// for the audio delivered is stopped the same way: throws 422 naming the limit.
    ///
    /// With `onPartial`, the best hypothesis so far is reported whenever it changes, with the seconds
    /// of audio decoded when it was found.
    func stream(
        _ body: RequestBody, context: ServiceRequestContext, app: String, pool: RecognizerPool,
        onPartial: (@Sendable (String, Double) -> Void)? = nil, makeAudio: @escaping AudioFactory
    ) async throws -> Outcome {
        try await stream(
            body, context: context, app: app, choosingPool: { _ in pool }, onPartial: onPartial, makeAudio: makeAudio)
    }

    /// As ``stream(_:context:app:pool:onPartial:makeAudio:)``, borrowing from the pool `choosePool` picks
    /// from the body's first chunks (the OpenAI route reads the model field there).
    func stream(
        _ body: RequestBody, context: ServiceRequestContext, app: String,
        choosingPool choosePool: @escaping @Sendable ([[UInt8]]) -> RecognizerPool,
        onPartial: (@Sendable (String, Double) -> Void)? = nil, makeAudio: @escaping AudioFactory
    ) async throws -> Outcome {
        let activity = ActivityClock(rules: configuration.uploadRules)
        let metrics = self.metrics
        let threshold = configuration.leaseThreshold
        let retryAfter = configuration.retryAfterSeconds
        let apps = self.apps
        let drainDeadline = self.drainDeadline
        let drainTimeout = configuration.drainTimeout
        // The watchdog's period bounds how long a departed client's recognition runs on (plus the
        // chunk being decoded): a tenth of a second, a cheap mutex read and a TCP_INFO call.
        let poll = min(configuration.readTimeout / 4, .milliseconds(100))
        let meter = RecognitionCPUMeter()
        let budget = configuration.cpuBudget
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            // The reader runs on the executor for blocking work: decoding is CPU-bound (milliseconds a
            // chunk, most of a second at the end of an utterance) and would hold Swift's cooperative
            // pool (one thread per core), stalling every other request's reads, writes and timers.
            // Awaiting the next chunk frees the thread.
            group.addTask(executorPreference: executor) {
                var chunks = body.makeAsyncIterator()
                var pending: [[UInt8]] = []
                var pendingBytes = 0
                var ended = false
                activity.startWaiting()
                while pendingBytes < threshold {
                    guard let chunk = try await chunks.next() else {
                        ended = true
                        break
                    }
                    pendingBytes += chunk.readableBytes
                    pending.append(Array(buffer: chunk))
                }
                activity.stopWaiting()
                let pool = choosePool(pending)
                guard apps.take(app) else {
                    var tooMany = ServiceError.tooManyRecognitions(limit: apps.limit, retryAfter: retryAfter)
                    tooMany.headers[.connection] = "close"
                    throw tooMany
                }
                defer { apps.give(app) }
                guard let lease = try await pool.checkOut() else {
                    var busy = ServiceError.busy(retryAfter: retryAfter)
                    busy.headers[.connection] = "close"
                    throw busy
                }
                activity.leased()
                // Read while the recognizer is this request's, before it goes back to the pool.
                let earlyBefore = lease.recognizer.earlyDecodes
                func giveBack() {
                    metrics.earlyDecodes(lease.recognizer.earlyDecodes - earlyBefore)
                    pool.checkIn(lease)
                }
                var audio: (any RequestAudio)?
                do {
                    let recognizing = try makeAudio(lease.recognizer)
                    audio = recognizing
                    var lastPartial = ""
                    func feed(_ bytes: [UInt8]) throws {
                        // A client that has left cancels the task: stop between pieces of a chunk, not
                        // after the seconds of audio its socket may still hold (a read can bring 64 KiB:
                        // seconds of FLAC, minutes of AMR).
                        var start = 0
                        repeat {
                            try Task.checkCancellation()
                            let end = min(start + Self.decodePiece, bytes.count)
                            try meter.measure {
                                try recognizing.consume(
                                    start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end]))
                            }
                            meter.delivered(audioTime: recognizing.audioTime)
                            start = end
                        } while start < bytes.count
                        activity.decoded(audioTime: recognizing.audioTime)
                        if let onPartial, let partial = try meter.measure({ try recognizing.partialResult() }),
                            partial.text != lastPartial
                        {
                            lastPartial = partial.text
                            onPartial(partial.text, partial.end.seconds)
                        }
                    }
                    // The chunks gathered before the lease go in as one: they arrived over the time the
                    // client took to send them, and fed one by one now they would look like audio running
                    // ahead of the clock (``LivePace``), as a file sent at once does.
                    if !pending.isEmpty { try feed(Array(pending.joined())) }
                    pending = []
                    if !ended {
                        activity.startWaiting()
                        while let chunk = try await chunks.next() {
                            activity.stopWaiting()
                            try feed(Array(buffer: chunk))
                            activity.startWaiting()
                        }
                        activity.stopWaiting()
                    }
                    try Task.checkCancellation()
                    let bodyEnded = ContinuousClock.now
                    let result = try meter.measure { try recognizing.finish() }
                    giveBack()
                    metrics.recognized(audioSeconds: recognizing.audioTime)
                    return .recognized(
                        result, audioTime: recognizing.audioTime, audioBytes: recognizing.audioBytes,
                        finishing: .now - bodyEnded)
                } catch {
                    audio?.abandon()
                    giveBack()
                    // No speech in time is an answer (the seed's "No Speech"), not a failure.
                    if case RecognitionSessionFailure.noSpeech(let limit) = error {
                        return .noSpeech(
                            audioTime: audio?.audioTime ?? 0, audioBytes: audio?.audioBytes ?? 0, limit: limit)
                    }
                    throw Self.serviceError(for: error)
                }
            }
            group.addTask {
                while true {
                    if let stall = activity.stall { return .stalled(stall) }
                    if drainDeadline.hasPassed {
                        context.closeInput()
                        throw ServiceError.shuttingDown(drainTimeout: drainTimeout, retryAfter: retryAfter)
                    }
                    let cpu = meter.reading
                    if cpu.spent > budget.allowance(audioTime: cpu.audioTime) {
                        context.closeInput()
                        throw ServiceError.recognitionTooCostly(
                            spent: cpu.spent, audioTime: cpu.audioTime, budget: budget)
                    }
                    if await context.clientHasLeft() {
                        context.closeConnection()
                        throw ServiceError.clientClosedRequest
                    }
                    try await Task.sleep(for: poll)
                }
            }
            defer { group.cancelAll() }
            let first = try await group.next()!
            // The reader is blocked on a client that sends nothing useful, or the rest of the body is
            // not worth reading: end the body under it. (An over-long upload is not drained either: its
            // answer is the last on the connection, which `ConnectionGuard` closes after a short linger.)
            switch first {
            case .stalled, .noSpeech: context.closeInput()
            case .recognized: break
            }
            return first
        }
    }

    /// The most bytes of a body chunk decoded between two cancellation checks: 2 KiB, at most about
    /// 1.3 s of AMR (the densest format), some 60 ms of PocketSphinx's time.
    static let decodePiece = 2_048

    /// The answer for an error met while reading or recognizing the body.
    static func serviceError(for error: any Error) -> any Error {
        switch error {
        case RecognitionSessionFailure.malformed(let format, let message):
            return ServiceError.badRequest("stream format is not \(format) [\(message)]", variables: "audio")
        case RecognitionSessionFailure.tooLong(let limit):
            var tooLong = ServiceError.badRequest(
                "the audio runs longer than this service's maximum of \(limit) s", variables: "audio")
            tooLong.status = .contentTooLarge
            tooLong.headers[.connection] = "close"
            return tooLong
        case RecognitionSessionFailure.tooLarge(let limit, let seconds):
            var tooLarge = ServiceError.badRequest(
                "the file holds more than \(limit) bytes, more than any audio-only file of this service's maximum "
                    + "of \(seconds) s; send its audio alone (e.g. ffmpeg -i IN -vn -ar 16000 -ac 1 OUT.flac)",
                variables: "audio")
            tooLarge.status = .contentTooLarge
            tooLarge.headers[.connection] = "close"
            return tooLarge
        default:
            return error
        }
    }

    /// The 408 for an upload that broke a ``UploadPace`` rule, naming the rule and the setting.
    func stalledError(_ stall: UploadPace.Stall) -> ServiceError {
        let rules = configuration.uploadRules
        let text: String
        switch stall {
        case .idle:
            text =
                "no audio arrived for \(Self.seconds(rules.readTimeout)) s (read timeout); the request body was abandoned"
        case .tooSlow(let waited, let audioTime, leased: false):
            text =
                "the first \(configuration.leaseThreshold) bytes of the body did not arrive within "
                + "\(Self.seconds(rules.grace)) s (upload grace; waited \(Self.seconds(waited)) s for "
                + "\(String(format: "%.2f", audioTime)) s of audio)"
        case .tooSlow(let waited, let audioTime, leased: true):
            text =
                "the upload is too slow: \(String(format: "%.2f", audioTime)) s of audio in \(Self.seconds(waited)) s "
                + "of waiting; audio must arrive at ≥ \(rules.minimumAudioRate)× real time after a "
                + "\(Self.seconds(rules.grace)) s grace"
        }
        var error = ServiceError.badRequest(text, variables: "body")
        error.status = .requestTimeout
        error.headers[.connection] = "close"
        return error
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return String(format: value == value.rounded() ? "%.0f" : "%.2f", value)
    }
}
