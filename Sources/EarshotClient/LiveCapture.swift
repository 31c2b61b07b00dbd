import AsyncAlgorithms
import EarshotCapture
import EarshotCodecs
import EarshotCore
import NIOCore

/// The capture loop of a live interaction, as a task on ``BlockingExecutor`` (sources block: a
/// microphone for each 20 ms block; a paced replay suspends until its audio is due): read, process,
/// hand each chunk on as soon as it is encoded, and apply the application's stop, cancel and extend
/// requests between blocks.
///
/// With an `upload` (the Speech API's streaming request), sending waits until the upload has taken
/// the chunk (`AsyncChannel` hands over one element at a time), so a slow connection slows capture's
/// hand-off instead of piling audio up in memory; the bytes sent are also kept (at most
/// ``retainLimit``) so a request refused with 401 can be sent again with a fresh token. Without one
/// (a ``BackendListener``, which sends the utterance whole), every byte is kept and returned, with the
/// encoder's finished header in place. Cancelling the task ends the capture with `canceledByUser`.
enum LiveCapture {
    static let retainLimit = 16 << 20

    /// A streaming request's side of the capture: the body's channel, and how the request stands.
    typealias Upload = (channel: AsyncChannel<ByteBuffer>, abort: Locked<UploadStatus>)

    static func run(
        interaction: SpeechInteraction, capture configuration: CaptureConfiguration,
        open: @escaping @Sendable () throws -> any AudioSource, upload: Upload?
    ) async -> Result<[UInt8], SpeechClientError> {
        await withTaskExecutorPreference(BlockingExecutor.current) {
            await capture(interaction: interaction, configuration: configuration, open: open, upload: upload)
        }
    }

    private static func capture(
        interaction: SpeechInteraction, configuration: CaptureConfiguration,
        open: @Sendable () throws -> any AudioSource, upload: Upload?
    ) async -> Result<[UInt8], SpeechClientError> {
        interaction.emit(.willStartListening)
        var source: any AudioSource
        do {
            source = try open()
        } catch let error as EarshotError where error.code == .noMicrophone {
            return .failure(.noMicrophone(error.message))
        } catch {
            return .failure(.invalidParameter("audio source: \(error)"))
        }
        defer { source.stop() }
        let pipeline: CapturePipeline
        do {
            pipeline = try CapturePipeline(sourceFormat: source.format, configuration: configuration)
        } catch {
            return .failure(.invalidParameter("\(error)"))
        }
        interaction.enter(.recording)
        interaction.emit(.isListening)
        var sent: [UInt8] = []
        var bytesSent = 0
        func handle(_ step: CapturePipeline.Step) async {
            for event in step.events { interaction.emit(SpeechEvent(event)) }
            for chunk in step.chunks {
                guard let upload else {
                    sent += chunk.bytes
                    continue
                }
                // Waits until the upload has taken the chunk.
                await upload.channel.send(ByteBuffer(bytes: chunk.bytes))
                if sent.count < retainLimit { sent += chunk.bytes }
                bytesSent += chunk.bytes.count
                interaction.emit(.audioSent(bytes: bytesSent, at: chunk.end))
            }
        }
        do {
            while pipeline.outcome == nil {
                switch upload?.abort.withLock({ $0 }) ?? .running {
                case .running: break
                case .failed(let error): return .failure(error)
                case .answered: return .success(sent)
                }
                for step in try requestedSteps(of: interaction, for: pipeline) { await handle(step) }
                if pipeline.outcome != nil { break }
                guard let buffer = try await source.next() else {
                    await handle(try pipeline.finish())
                    break
                }
                await handle(try pipeline.process(buffer))
            }
            switch pipeline.outcome {
            case .noAudio: return .failure(.noAudio)
            case .audioTooShort: return .failure(.audioTooShort)
            case .canceled: return .failure(.canceledByUser)
            case .audioCaptured, nil:
                await handle(CapturePipeline.Step(chunks: try pipeline.flushEncoder()))
                if upload == nil, let header = pipeline.finalizedHeader(), header.count <= sent.count {
                    sent.replaceSubrange(0..<header.count, with: header)
                }
                interaction.enter(.sendingAudioData)
                return .success(sent)
            }
        } catch let error as SpeechClientError {
            return .failure(error)
        } catch is CancellationError {
            return .failure(.canceledByUser)
        } catch {
            return .failure(.invalidParameter("capture failed: \(error)"))
        }
    }

    /// What the application's stop, cancel and extend requests since the last block produce.
    private static func requestedSteps(of interaction: SpeechInteraction, for pipeline: CapturePipeline) throws
        -> [CapturePipeline.Step]
    {
        let (stop, cancel, extensions) = interaction.takeRequests()
        var steps: [CapturePipeline.Step] = []
        for seconds in extensions {
            do {
                steps.append(CapturePipeline.Step(events: try pipeline.extendTimeout(by: seconds)))
            } catch {
                throw SpeechClientError.invalidParameter("extendTimeout(\(seconds)): \(error)")
            }
        }
        if cancel { steps.append(CapturePipeline.Step(events: try pipeline.cancel())) }
        if stop { steps.append(CapturePipeline.Step(events: try pipeline.stop())) }
        return steps
    }
}
