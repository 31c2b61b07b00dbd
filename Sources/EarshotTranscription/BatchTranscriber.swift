public import EarshotCore
import EarshotDSP
import EarshotRecognizer
import EarshotVAD
import Foundation

/// Transcribes recordings of any length: reads and cuts them in one task, recognizes the segments in
/// `jobs` worker tasks, and hands back whole transcripts in input order, whatever order segments finish
/// in. The tasks run on an executor for blocking work (``BlockingExecutor``), since the C libraries
/// under them block their thread.
///
/// Scheduling: each segment goes to the worker with the least audio dealt so far (ties: the lowest
/// index), across all recordings, into a queue of three segments per worker, so reading never runs more
/// than a few segments ahead of recognition and memory stays bounded by `jobs` × 4 segments. Dealing
/// by a rule that depends only on the segments' lengths, rather than to whichever worker is free,
/// makes every worker's history — and so the carried cepstral mean, see ``EmbeddedTranscriber`` —
/// depend only on `jobs`: the same command gives the same transcript on every run, while the work is
/// split evenly (a round-robin deal left one of two workers 12 % more audio on the long corpus, and the
/// other idle at the end). Segments in which the VAD heard no speech are not sent to a recognizer.
///
/// Failures: a recording that cannot be read is reported (``Event/failed(index:name:error:)``) and the
/// others go on. A segment the recognizer fails does not stop its recording: the other segments are
/// still recognized, then the recording is reported failed, naming the time range of every failed
/// segment with its error — never delivered as a shortened transcript. A transcriber that cannot be created
/// (a missing model) ends the run with its error. Cancelling the task stops reading at once and
/// recognition within a second, and the run ends with ``cancelledError``, having delivered nothing
/// past what was complete.
public enum BatchTranscriber {
    /// What the run reports to its caller, in the caller's task.
    public enum Event: Sendable {
        /// Seconds of audio recognized so far, and of all recordings opened so far (nil while one of
        /// them has no known length).
        case progress(doneSeconds: Double, totalSeconds: Double?)
        /// Segment `segment` of recording `index`, handed out as soon as it and every segment before
        /// it in the recording are recognized, recordings in input order (a recording's segments come
        /// after the previous recording's `.transcribed` or `.failed`), so a caller can print as it
        /// goes. The recording may still fail after some of its segments were handed out.
        case segment(index: Int, segment: TranscribedSegment)
        /// Recording `index` is transcribed (all its segments were handed out before). Delivered in
        /// input order.
        case transcribed(index: Int, transcript: Transcript)
        /// Recording `index` failed (`name` is nil if it could not even be opened). In input order.
        case failed(index: Int, name: String?, error: EarshotError)
    }

    /// The error a cancelled run ends with.
    public static let cancelledError = EarshotError(.canceled, "transcription cancelled")

    /// Transcribes recordings `0..<count`, opening each with `open` (in the reading task) and making
    /// each worker's transcriber with `makeTranscriber` (in the worker's task, at its first segment).
    /// The reading task and the workers run on ``BlockingExecutor/current``, since reading, cutting and
    /// recognizing block their thread; `handle` is called in the caller's task.
    ///
    /// Cancelling the calling task stops reading at once and recognition within a second; the run
    /// then ends with ``cancelledError``, having handed out nothing past what was complete.
    public static func run(
        count: Int, settings: TranscriptionSettings,
        open: @escaping @Sendable (Int) throws -> any AudioSource,
        makeTranscriber: @escaping @Sendable () throws -> any SegmentTranscriber,
        handle: (Event) throws -> Void
    ) async throws {
        let queues = (0..<settings.jobs).map { _ in SegmentQueue<Work>(capacity: 3) }
        let (inbox, post) = AsyncStream.makeStream(of: Message.self)
        let closeQueues: @Sendable () -> Void = { for queue in queues { queue.close() } }
        var fatal: EarshotError?
        let executor = BlockingExecutor.current
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: executor) {
                    await read(count: count, settings: settings, open: open, queues: queues, post: post)
                }
                for queue in queues {
                    group.addTask(executorPreference: executor) {
                        await recognize(queue, makeTranscriber: makeTranscriber, post: post)
                    }
                }
                var collector = Collector()
                var running = 1 + settings.jobs
                // Ends early only if this task is cancelled (the stream then ends); the group then waits
                // for its cancelled children.
                for await message in inbox {
                    do {
                        if case .finished = message {
                            running -= 1
                            if running == 0 { break }
                        } else if case .fatal(let error) = message {
                            fatal = fatal ?? error
                            group.cancelAll()
                            closeQueues()
                        } else if fatal == nil && !Task.isCancelled {
                            try collector.receive(message, handle: handle)
                        }
                    } catch {
                        // The caller's handler failed (an output that cannot be written): stop everything.
                        fatal = fatal ?? Self.earshotError(error)
                        group.cancelAll()
                        closeQueues()
                    }
                }
            }
        } onCancel: {
            closeQueues()
        }
        post.finish()
        if let fatal { throw fatal }
        if Task.isCancelled { throw cancelledError }
    }

    /// A segment on its way to a worker.
    struct Work: Sendable {
        var input: Int
        var index: Int
        var chunk: UtteranceChunk
    }

    /// What the reading and recognizing tasks tell the caller's task.
    enum Message: Sendable {
        case opened(input: Int, InputDescription)
        case read(input: Int, segmentCount: Int, duration: Double)
        case readFailed(input: Int, EarshotError)
        case segment(input: Int, index: Int, TranscribedSegment)
        case segmentFailed(input: Int, index: Int, span: Range<MediaTime>, EarshotError)
        case fatal(EarshotError)
        case finished
    }

    /// The reading task: opens, resamples and cuts each recording, dealing segments to the least-loaded worker.
    private static func read(
        count: Int, settings: TranscriptionSettings, open: @Sendable (Int) throws -> any AudioSource,
        queues: [SegmentQueue<Work>], post: AsyncStream<Message>.Continuation
    ) async {
        var dealtSeconds = [Double](repeating: 0, count: queues.count)
        for input in 0..<count where !Task.isCancelled {
            do {
                var source = try open(input)
                defer { source.stop() }
                post.yield(.opened(input: input, source.inputDescription))
                let chunker = try UtteranceChunker(configuration: settings.chunking)
                var chain = try Resampler(
                    inputFormat: source.format,
                    configuration: .init(
                        sampleRate: chunker.format.sampleRate, engine: settings.resampler,
                        quality: settings.resamplerQuality)
                ).then(chunker)
                var output = StageOutput<UtteranceChunk>()
                var segmentCount = 0
                var end = MediaTime.zero(sampleRate: chunker.format.sampleRate)
                func deal() async {
                    for chunk in output.items {
                        let worker = dealtSeconds.indices.min { dealtSeconds[$0] < dealtSeconds[$1] }!
                        await queues[worker].push(Work(input: input, index: segmentCount, chunk: chunk))
                        if chunk.containsSpeech { dealtSeconds[worker] += chunk.audio.duration }
                        segmentCount += 1
                        end = chunk.end
                    }
                    output.removeAll()
                }
                while let buffer = try source.read() {
                    try Task.checkCancellation()
                    try chain.process(buffer, into: &output)
                    await deal()
                }
                try chain.finish(into: &output)
                await deal()
                post.yield(.read(input: input, segmentCount: segmentCount, duration: end.seconds))
            } catch {
                if Task.isCancelled { break }
                post.yield(.readFailed(input: input, earshotError(error)))
            }
        }
        for queue in queues { queue.close() }
        post.yield(.finished)
    }

    /// A worker task: recognizes the segments dealt to it with a transcriber of its own.
    private static func recognize(
        _ queue: SegmentQueue<Work>, makeTranscriber: @Sendable () throws -> any SegmentTranscriber,
        post: AsyncStream<Message>.Continuation
    ) async {
        var transcriber: (any SegmentTranscriber)?
        var currentInput: Int?
        // Keep popping to the end whatever happens, so the reading task never waits on a full queue.
        while let work = await queue.pop() {
            if Task.isCancelled { continue }
            var result: RecognitionResult?
            if work.chunk.containsSpeech {
                if transcriber == nil {
                    do {
                        transcriber = try makeTranscriber()
                    } catch {
                        post.yield(.fatal(earshotError(error)))
                        continue
                    }
                }
                do {
                    if currentInput != work.input {
                        try transcriber!.beginRecording()
                        currentInput = work.input
                    }
                    result = try await transcriber!.transcribe(work.chunk)
                } catch {
                    if !Task.isCancelled {
                        post.yield(
                            .segmentFailed(
                                input: work.input, index: work.index, span: work.chunk.start..<work.chunk.end,
                                earshotError(error)))
                    }
                    continue
                }
            }
            let chunk = work.chunk
            post.yield(
                .segment(
                    input: work.input, index: work.index,
                    TranscribedSegment(
                        start: chunk.start, end: chunk.end, cut: chunk.cut, speech: chunk.speech,
                        result: result)))
        }
        post.yield(.finished)
    }

    static func earshotError(_ error: any Error) -> EarshotError {
        error as? EarshotError ?? EarshotError(.invalidInput, "\(error)")
    }
}
