/// Where audio enters the pipeline: a file, standard input, a paced replay, a capture device.
///
/// A source has a fixed format known when it opens, and hands out buffers in stream order, each
/// stamped with its media time. It reads in blocks, so memory does not grow with the length of the
/// input. A source may reuse one buffer's storage between calls, so callers should not keep buffers
/// they do not need.
public protocol AudioSource {
    /// The format of every buffer this source returns.
    var format: AudioFormat { get }

    /// What it reads, as outputs describe their input. The default, for a source that cannot say
    /// (a test's buffers), names it `unknown`.
    var inputDescription: InputDescription { get }

    /// The next block of audio, or `nil` at the end of the stream. May block the calling thread (a file
    /// read, a capture device waiting for its next period): call it from a task on
    /// ``BlockingExecutor`` or a thread that may block.
    mutating func read() throws -> AudioBuffer?

    /// The next block of audio once it is due, or `nil` at the end of the stream: for most sources the
    /// same as ``read()`` (the default); a source that releases audio at a pace (a replay simulating a
    /// microphone) suspends the task until the block is due rather than blocking its thread, so many
    /// paced streams share a few threads. Throws `CancellationError` if the task is cancelled while
    /// it waits.
    mutating func next() async throws -> AudioBuffer?

    /// Stops the source: a live one (a capture device) releases what it holds, and later reads return
    /// nil. Called by whoever opened it when it is done reading, also before the end of the stream. A
    /// file or buffer has nothing to release; the default does nothing.
    mutating func stop()
}

extension AudioSource {
    public var inputDescription: InputDescription {
        InputDescription(
            name: "unknown", container: "unknown", encoding: "unknown", sampleRate: format.sampleRate,
            channelCount: format.channelCount)
    }

    public mutating func stop() {}

    public mutating func next() async throws -> AudioBuffer? { try read() }
}

/// Runs a source through a stage to the end of the stream.
public enum Pipeline {
    /// Reads `source` until it ends, processes every buffer through `stage`, finishes the stage, and
    /// calls `handle` with what each call produced (the output is reused; copy what you keep).
    @inlinable
    public static func run<Source: AudioSource, Stage: AudioStage>(
        _ source: inout Source,
        through stage: inout Stage,
        handle: (StageOutput<Stage.Output>) throws -> Void
    ) throws where Stage.Input == AudioBuffer {
        var output = StageOutput<Stage.Output>()
        while let buffer = try source.read() {
            try stage.process(buffer, into: &output)
            try handle(output)
            output.removeAll()
        }
        try stage.finish(into: &output)
        try handle(output)
    }

    /// Processes every element of `inputs` through `stage`, finishes the stage, and calls `handle`
    /// with what each call produced (the output is reused; copy what you keep).
    @inlinable
    public static func run<Inputs: Sequence, Stage: AudioStage>(
        _ inputs: Inputs,
        through stage: inout Stage,
        handle: (StageOutput<Stage.Output>) throws -> Void
    ) throws where Stage.Input == Inputs.Element {
        var output = StageOutput<Stage.Output>()
        for input in inputs {
            try stage.process(input, into: &output)
            try handle(output)
            output.removeAll()
        }
        try stage.finish(into: &output)
        try handle(output)
    }
}
