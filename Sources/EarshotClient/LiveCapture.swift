import AsyncAlgorithms
import EarshotCodecs
import EarshotCore
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// The capture loop of a live interaction, on its own thread (sources block: a microphone for each
/// 20 ms block, a paced file until its audio is due): read, process, send each chunk as soon as it
/// is encoded, and apply the application's stop, cancel and extend requests between blocks.
///
/// Sending waits until the upload has taken the chunk (`AsyncChannel` hands over one element at a
/// time), so a slow connection slows capture's hand-off instead of piling audio up in memory; the
/// bytes sent are also kept (at most ``retainLimit``) so a request refused with 401 can be sent
/// again with a fresh token.
enum LiveCapture {
    static let retainLimit = 16 << 20

    static func run(
        interaction: SpeechInteraction, configuration: SpeechRequestConfiguration,
        open: @escaping @Sendable () throws -> any AudioSource, channel: AsyncChannel<ByteBuffer>,
        abort: NIOLockedValueBox<UploadStatus>
    ) async -> Result<[UInt8], SpeechClientError> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: capture(
                        interaction: interaction, configuration: configuration, open: open, channel: channel,
                        abort: abort))
            }
        }
    }

    private static func capture(
        interaction: SpeechInteraction, configuration: SpeechRequestConfiguration,
        open: @Sendable () throws -> any AudioSource, channel: AsyncChannel<ByteBuffer>,
        abort: NIOLockedValueBox<UploadStatus>
    ) -> Result<[UInt8], SpeechClientError> {
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
        func handle(_ step: CapturePipeline.Step) {
            for event in step.events { interaction.emit(event) }
            for chunk in step.chunks {
                send(chunk.bytes, on: channel)
                if sent.count < retainLimit { sent += chunk.bytes }
                bytesSent += chunk.bytes.count
                interaction.emit(.audioSent(bytes: bytesSent, at: chunk.end))
            }
        }
        do {
            while pipeline.outcome == nil {
                switch abort.withLockedValue({ $0 }) {
                case .running: break
                case .failed(let error): return .failure(error)
                case .answered: return .success(sent)
                }
                try applyRequests(of: interaction, to: pipeline, handle: handle)
                if pipeline.outcome != nil { break }
                guard let buffer = try source.read() else {
                    handle(try pipeline.finish())
                    break
                }
                handle(try pipeline.process(buffer))
            }
            switch pipeline.outcome {
            case .noAudio: return .failure(.noAudio)
            case .audioTooShort: return .failure(.audioTooShort)
            case .canceled: return .failure(.canceledByUser)
            case .audioCaptured, nil:
                handle(CapturePipeline.Step(chunks: try pipeline.flushEncoder()))
                interaction.enter(.sendingAudioData)
                return .success(sent)
            }
        } catch let error as SpeechClientError {
            return .failure(error)
        } catch {
            return .failure(.invalidParameter("capture failed: \(error)"))
        }
    }

    private static func applyRequests(
        of interaction: SpeechInteraction, to pipeline: CapturePipeline, handle: (CapturePipeline.Step) -> Void
    ) throws {
        let (stop, cancel, extensions) = interaction.takeRequests()
        for seconds in extensions {
            do {
                handle(CapturePipeline.Step(events: try pipeline.extendTimeout(by: seconds)))
            } catch {
                throw SpeechClientError.invalidParameter("extendTimeout(\(seconds)): \(error)")
            }
        }
        if cancel { handle(CapturePipeline.Step(events: pipeline.cancel())) }
        if stop { handle(CapturePipeline.Step(events: pipeline.stop())) }
    }

    /// Hands `bytes` to the upload and waits until it has taken them.
    private static func send(_ bytes: [UInt8], on channel: AsyncChannel<ByteBuffer>) {
        let taken = DispatchSemaphore(value: 0)
        Task {
            await channel.send(ByteBuffer(bytes: bytes))
            taken.signal()
        }
        taken.wait()
    }
}
