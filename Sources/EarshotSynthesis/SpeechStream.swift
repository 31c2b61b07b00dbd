public import EarshotCore
import Foundation
import Synchronization

/// A script's audio, made as it is asked for: what ``Synthesis/stream(_:voice:rate:chunker:)`` returns.
///
/// Nothing is synthesized ahead of the consumer. Each `next()` hands out the next buffer of the piece
/// made last; when those are gone it makes the next piece on ``Synthesis/executor`` — a sentence for
/// Flite, at most ``TextChunker/maxCharacters`` characters of text for eSpeak NG (see
/// ``SpeechEngine/pieces(of:chunker:)``) — or the next 100 ms of a pause, which takes no turn on the
/// thread. So a synthesis holds one piece's audio whatever the script's length; a consumer that reads
/// nothing stops it (a service answer paces it by its client, and its memory with it); and syntheses
/// sharing the one thread take turns piece by piece (the executor runs jobs in order of arrival), so a
/// short answer is not held behind a long one.
///
/// Buffers are mono at the voice's rate, stamped with their media time from frame 0. The sequence ends
/// after the script's last buffer, or throws the engine's error, or `CancellationError` once the
/// consumer's task is cancelled (the engine stops at its next block).
public struct SpeechStream: AsyncSequence, Sendable {
    public typealias Element = AudioBuffer

    let script: SpeechScript
    let voice: Voice
    let rate: Double
    let chunker: TextChunker
    /// The engine, or why there is none (the voice or rate is refused): thrown by the first `next()`.
    let engine: Result<any SpeechEngine, EarshotError>

    public func makeAsyncIterator() -> Iterator { Iterator(self) }

    public struct Iterator: AsyncIteratorProtocol {
        private let stream: SpeechStream
        private let format: AudioFormat?
        /// This synthesis's own state of the C library's rand().
        private let random = RandomState()
        private let identifier = SpeechStream.identifiers.add(1, ordering: .relaxed).newValue
        private var nextPart = 0
        /// The pieces of the text part under way, and its prosody.
        private var pieces: [Substring] = []
        private var nextPiece = 0
        private var prosody = Prosody.normal
        /// Frames of the pause under way still to hand out.
        private var silentFrames = 0
        /// The piece made last, and how many of its buffers have been handed out.
        private var made: [AudioBuffer] = []
        private var handedOut = 0
        private var nextFrame: Int64 = 0
        private var finished = false

        init(_ stream: SpeechStream) {
            self.stream = stream
            format = try? AudioFormat(sampleRate: stream.voice.sampleRate, channelCount: 1, origin: "synthesizer")
        }

        public mutating func next() async throws -> AudioBuffer? {
            guard !finished else { return nil }
            do {
                while handedOut == made.count {
                    made = []
                    handedOut = 0
                    guard try await makeNextPiece() else {
                        finished = true
                        return nil
                    }
                }
            } catch {
                finished = true
                made = []
                throw error
            }
            var buffer = made[handedOut]
            handedOut += 1
            buffer.startFrame = nextFrame
            nextFrame += Int64(buffer.frameCount)
            return buffer
        }

        /// Makes the next piece into `made` (which may stay empty: a piece with nothing to say); false
        /// when the script is done.
        private mutating func makeNextPiece() async throws -> Bool {
            try Task.checkCancellation()
            let engine = try stream.engine.get()
            if silentFrames > 0, let format {
                let count = Swift.min(silentFrames, format.sampleRate / 10)
                silentFrames -= count
                made = [AudioBuffer(format: format, samples: [Float](repeating: 0, count: count))]
                return true
            }
            let part: SpeechPart
            if nextPiece < pieces.count {
                part = .text(String(pieces[nextPiece]), prosody)
                nextPiece += 1
            } else {
                guard nextPart < stream.script.parts.count else { return false }
                let next = stream.script.parts[nextPart]
                nextPart += 1
                switch next {
                case .pause(let seconds):
                    silentFrames = Int((seconds * Double(stream.voice.sampleRate)).rounded())
                    return true
                case .text(let text, let textProsody):
                    pieces = engine.pieces(of: text, chunker: stream.chunker)
                    nextPiece = 0
                    prosody = textProsody
                    return true
                case .phonemes:
                    part = next
                }
            }
            let (voice, rate, random, identifier) = (stream.voice, stream.rate, random, identifier)
            made = try await withTaskExecutorPreference(Synthesis.executor) {
                try Synthesis.speak(part, with: engine, voice: voice, rate: rate, random: random, synthesis: identifier)
            }
            try Task.checkCancellation()
            return true
        }
    }

    /// Numbers each synthesis, so an engine can tell whether its previous call was for the same one.
    fileprivate static let identifiers = Atomic<UInt64>(0)
}

extension Synthesis {
    /// The synthesis the engines last spoke for: read and written on ``executor`` only.
    nonisolated(unsafe) private static var lastSynthesis: UInt64?

    /// Speaks one piece with this synthesis's rand() state swapped in. On ``executor`` only.
    static func speak(
        _ part: SpeechPart, with engine: any SpeechEngine, voice: Voice, rate: Double, random: RandomState,
        synthesis identifier: UInt64
    ) throws -> [AudioBuffer] {
        let resuming = lastSynthesis == identifier
        lastSynthesis = identifier
        let previous = random.install()
        defer { random.restore(previous) }
        var buffers: [AudioBuffer] = []
        try engine.synthesize(part, voice: voice, rate: rate, resuming: resuming) { buffer in
            if Task.isCancelled { return false }
            buffers.append(buffer)
            return true
        }
        return buffers
    }
}

/// One synthesis's state of the C library's rand(), which both engines draw from (Flite's clustergen
/// voices for their excitation, eSpeak NG for the noise of breathy variants): seeded as a fresh process
/// has it (glibc's `srand(1)`: `initstate` with a 128-byte state is the same generator), and swapped
/// in around each of the synthesis's pieces. Syntheses that take turns on the thread then each draw
/// the sequence they would alone, and no other caller of rand() changes what one sounds like.
/// Used on ``Synthesis/executor`` only.
final class RandomState {
    private let state = UnsafeMutablePointer<CChar>.allocate(capacity: 128)
    private var seeded = false

    /// Makes this state rand()'s; returns the one it replaced.
    func install() -> UnsafeMutablePointer<CChar>? {
        if seeded { return setstate(state) }
        seeded = true
        return initstate(Synthesis.randomSeed, state, 128)
    }

    /// Gives rand() back the state `install()` replaced, so it never points at a freed one.
    func restore(_ previous: UnsafeMutablePointer<CChar>?) {
        if let previous { _ = setstate(previous) }
    }

    deinit { state.deallocate() }
}
