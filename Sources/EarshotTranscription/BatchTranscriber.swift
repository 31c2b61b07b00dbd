import EarshotCore
import EarshotDSP
import EarshotRecognizer
import EarshotVAD
import Foundation

/// Transcribes recordings of any length: reads and cuts them on one thread, recognizes the segments on
/// `jobs` threads, and hands back whole transcripts in input order, whatever order segments finish in.
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
/// (a missing model) ends the run with its error. Cancelling stops reading at once and recognition
/// within a second, and the run ends with ``TranscriptionCancellation/cancelledError``, having
/// delivered nothing past what was complete.
public enum BatchTranscriber {
    /// A recording opened for reading, on the reading thread.
    public struct Opened {
        public var source: any AudioSource
        public var description: RecordingDescription
        public init(source: any AudioSource, description: RecordingDescription) {
            self.source = source
            self.description = description
        }
    }

    /// What the run reports to its caller, on the caller's thread.
    public enum Event: Sendable {
        /// Seconds of audio recognized so far, and of all recordings opened so far (nil while one of
        /// them has no known length).
        case progress(doneSeconds: Double, totalSeconds: Double?)
        /// Recording `index` is transcribed. Delivered in input order.
        case transcribed(index: Int, transcript: Transcript)
        /// Recording `index` failed (`name` is nil if it could not even be opened). In input order.
        case failed(index: Int, name: String?, error: EarshotError)
    }

    /// Transcribes recordings `0..<count`, opening each with `open` (on the reading thread) and making
    /// each worker's transcriber with `makeTranscriber` (on the worker's thread, at its first segment).
    public static func run(
        count: Int, settings: TranscriptionSettings, cancellation: TranscriptionCancellation = .init(),
        open: @escaping @Sendable (Int) throws -> Opened,
        makeTranscriber: @escaping @Sendable () throws -> any SegmentTranscriber,
        handle: (Event) throws -> Void
    ) throws {
        let stop = TranscriptionCancellation(linkedTo: cancellation)
        let inbox = WorkQueue<Message>()
        let queues = (0..<settings.jobs).map { _ in WorkQueue<Work>(capacity: 3) }
        start {
            read(count: count, settings: settings, open: open, queues: queues, inbox: inbox, stop: stop)
        }
        for queue in queues {
            start { recognize(queue, makeTranscriber: makeTranscriber, inbox: inbox, stop: stop) }
        }
        var collector = Collector()
        var running = 1 + settings.jobs
        var fatal: EarshotError?
        while running > 0, let message = inbox.pop() {
            do {
                if case .finished = message {
                    running -= 1
                } else if case .fatal(let error) = message {
                    fatal = fatal ?? error
                    stop.cancel()
                } else if !stop.isCancelled {
                    try collector.receive(message, handle: handle)
                }
            } catch {
                // The caller's handler failed (an output that cannot be written): stop everything.
                fatal = fatal ?? Self.earshotError(error)
                stop.cancel()
            }
        }
        if let fatal { throw fatal }
        try cancellation.check()
    }

    /// A segment on its way to a worker.
    struct Work: Sendable {
        var input: Int
        var index: Int
        var chunk: UtteranceChunk
    }

    /// What the reading and recognizing threads tell the caller's thread.
    enum Message: Sendable {
        case opened(input: Int, RecordingDescription)
        case read(input: Int, segmentCount: Int, duration: Double)
        case readFailed(input: Int, EarshotError)
        case segment(input: Int, index: Int, TranscribedSegment)
        case segmentFailed(input: Int, index: Int, span: Range<MediaTime>, EarshotError)
        case fatal(EarshotError)
        case finished
    }

    private static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 8 << 20  // PocketSphinx's search recurses; match the main thread's 8 MiB
        thread.start()
    }

    /// The reading thread: opens, resamples and cuts each recording, dealing segments to the least-loaded worker.
    private static func read(
        count: Int, settings: TranscriptionSettings, open: @Sendable (Int) throws -> Opened,
        queues: [WorkQueue<Work>], inbox: WorkQueue<Message>, stop: TranscriptionCancellation
    ) {
        var dealtSeconds = [Double](repeating: 0, count: queues.count)
        for input in 0..<count where !stop.isCancelled {
            do {
                var opened = try open(input)
                inbox.push(.opened(input: input, opened.description))
                let chunker = try UtteranceChunker(configuration: settings.chunking)
                var chain = try Resampler(
                    inputFormat: opened.source.format,
                    configuration: .init(sampleRate: chunker.format.sampleRate, quality: settings.resamplerQuality)
                ).then(chunker)
                var output = StageOutput<UtteranceChunk>()
                var segmentCount = 0
                var end = MediaTime.zero(sampleRate: chunker.format.sampleRate)
                func deal() {
                    for chunk in output.items {
                        let worker = dealtSeconds.indices.min { dealtSeconds[$0] < dealtSeconds[$1] }!
                        queues[worker].push(Work(input: input, index: segmentCount, chunk: chunk))
                        if chunk.containsSpeech { dealtSeconds[worker] += chunk.audio.duration }
                        segmentCount += 1
                        end = chunk.end
                    }
                    output.removeAll()
                }
                while let buffer = try opened.source.read() {
                    try stop.check()
                    try chain.process(buffer, into: &output)
                    deal()
                }
                try chain.finish(into: &output)
                deal()
                inbox.push(.read(input: input, segmentCount: segmentCount, duration: end.seconds))
            } catch {
                if stop.isCancelled { break }
                inbox.push(.readFailed(input: input, earshotError(error)))
            }
        }
        for queue in queues { queue.close() }
        inbox.push(.finished)
    }

    /// A worker thread: recognizes the segments dealt to it with a transcriber of its own.
    private static func recognize(
        _ queue: WorkQueue<Work>, makeTranscriber: @Sendable () throws -> any SegmentTranscriber,
        inbox: WorkQueue<Message>, stop: TranscriptionCancellation
    ) {
        var transcriber: (any SegmentTranscriber)?
        var currentInput: Int?
        // Keep popping to the end whatever happens, so the reading thread never blocks on a full queue.
        while let work = queue.pop() {
            if stop.isCancelled { continue }
            var result: RecognitionResult?
            if work.chunk.containsSpeech {
                if transcriber == nil {
                    do {
                        transcriber = try makeTranscriber()
                    } catch {
                        inbox.push(.fatal(earshotError(error)))
                        continue
                    }
                }
                do {
                    if currentInput != work.input {
                        try transcriber!.beginRecording()
                        currentInput = work.input
                    }
                    result = try transcriber!.transcribe(work.chunk, cancellation: stop)
                } catch {
                    if !stop.isCancelled {
                        inbox.push(
                            .segmentFailed(
                                input: work.input, index: work.index, span: work.chunk.start..<work.chunk.end,
                                earshotError(error)))
                    }
                    continue
                }
            }
            let chunk = work.chunk
            inbox.push(
                .segment(
                    input: work.input, index: work.index,
                    TranscribedSegment(
                        start: chunk.start, end: chunk.end, cut: chunk.cut, speech: chunk.speech,
                        result: result)))
        }
        inbox.push(.finished)
    }

    static func earshotError(_ error: any Error) -> EarshotError {
        error as? EarshotError ?? EarshotError(.invalidInput, "\(error)")
    }
}
