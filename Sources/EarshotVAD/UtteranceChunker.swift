public import EarshotCore

/// Splits a long recording into segments a recognizer accepts, cutting only in pauses when it can.
///
/// Contract:
/// - Input: mono buffers at `configuration`'s detector rate (16 kHz for the recognizer), contiguous in
///   media time; anything else throws naming the stage.
/// - Output: ``UtteranceChunk``s that tile the stream — each starts where the previous ended, the first
///   at the first buffer's media time, the last ends with the stream — none longer than
///   `maxSegmentDuration`.
/// - Where it cuts: see ``UtteranceChunkerConfiguration``. Pauses are the smoothed VAD's non-speech runs
///   (``VADStage`` with the configured detector, then ``DecisionSmoother``), on its 10 ms hop grid; a
///   pause cut falls at the centre of the pause's hop with the least mean-square energy (ties: the hop
///   nearest the pause's middle), so a breath or a click inside a long pause is stepped over.
/// - A segment is decided as soon as the decisions reach past its longest allowed end, and from the
///   audio and decisions inside that window only: feeding the stream whole or in blocks of any size
///   gives identical segments.
/// - Memory: it holds the samples and decisions of the segment being built, from the 10 ms hop holding
///   its start: at most `maxSegmentDuration` plus the smoother's delay (≤ 0.4 s by default) plus 4 096
///   samples, however long the recording and however large the buffers fed. Buffers of up to 4 096
///   frames (a file source's blocks) are held as they are, by reference; larger ones are taken in
///   slices. A segment's audio is the one copy of its samples, made when it is cut.
/// - Latency: a segment is emitted up to `maxSegmentDuration` + that delay after its start; offline it
///   does not matter, and a live caller wanting endpoints uses the ``Endpointer``.
///
/// A final class and not `Sendable`, like ``VADStage``: the detector may own C state.
public final class UtteranceChunker: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = UtteranceChunk

    public let configuration: UtteranceChunkerConfiguration
    /// The format accepted: mono at the detector's rate.
    public let format: AudioFormat

    /// The detector and its smoother: smoothed speech decisions, one per hop.
    private var analysis: SpeechDetectorStage
    private let hop: Int
    private let maxFrames: Int64
    private let minFrames: Int64
    private let fallbackHops: Int
    /// Largest piece of an input buffer analysed at once, which bounds the decisions made per call.
    private static let sliceFrames = 4096

    private var decisions = StageOutput<VADDecision>()
    /// Media time of the first sample of the stream, once a buffer has arrived.
    private var origin: Int64?
    private var receivedCount: Int64 = 0
    /// The buffers received since the one holding `bufferStart`, in order: the samples from
    /// `bufferStart` (on the hop grid, ≤ `segmentStart`) to the newest received, and before it the
    /// rest of the first buffer.
    private var held: [AudioBuffer] = []
    private var bufferStart: Int64 = 0
    private var segmentStart: Int64 = 0
    /// Smoothed decisions for the hops from `bufferStart`, one per hop.
    private var speech: [Bool] = []

    /// A chunker running `configuration`'s detector at its native rate of 16 kHz (or `sampleRate`,
    /// which must be one the detector supports).
    public init(configuration: UtteranceChunkerConfiguration, sampleRate: Int = 16_000) throws {
        analysis = try SpeechDetectorStage(
            detector: configuration.detector, models: configuration.models, smoothing: configuration.smoothing,
            sampleRate: sampleRate)
        format = analysis.detection.format
        hop = analysis.detection.detector.hopLength
        self.configuration = configuration
        maxFrames = Int64((configuration.maxSegmentDuration * Double(sampleRate)).rounded())
        minFrames = Int64((configuration.minSegmentDuration * Double(sampleRate)).rounded())
        fallbackHops = max(1, Int((configuration.fallbackWindow * Double(sampleRate) / Double(hop)).rounded()))
    }

    /// Samples held now: the segment being built, from the hop holding its start (see the memory bound).
    public var heldFrames: Int { Int((origin.map { $0 + receivedCount } ?? bufferStart) - bufferStart) }

    public func process(_ input: AudioBuffer, into output: inout StageOutput<UtteranceChunk>) throws {
        try input.requireFormat(format, stage: "utterance chunker")
        if origin == nil {
            origin = input.startFrame
            bufferStart = input.startFrame
            segmentStart = input.startFrame
        }
        let expected = origin! + receivedCount
        guard input.startFrame == expected else {
            throw EarshotError(
                .invalidInput,
                "utterance chunker: buffer starts at frame \(input.startFrame), expected \(expected) "
                    + "(buffers must be contiguous)")
        }
        var first = 0
        while first < input.frameCount {
            let last = min(first + Self.sliceFrames, input.frameCount)
            // A buffer up to a slice long is held as it is; only a larger one is copied, in slices, so
            // that what is held stays bounded whatever the caller feeds.
            let slice =
                first == 0 && last == input.frameCount
                ? input
                : AudioBuffer(
                    format: format, samples: Array(input.samples[first..<last]),
                    startFrame: input.startFrame + Int64(first))
            held.append(slice)
            receivedCount += Int64(slice.frameCount)
            decisions.removeAll()
            try analysis.process(slice, into: &decisions)
            speech.append(contentsOf: decisions.items.lazy.map(\.isSpeech))
            try cutWhileDecided(into: &output)
            first = last
        }
    }

    public func finish(into output: inout StageOutput<UtteranceChunk>) throws {
        decisions.removeAll()
        try analysis.finish(into: &decisions)
        speech.append(contentsOf: decisions.items.lazy.map(\.isSpeech))
        try cutWhileDecided(into: &output)
        guard let origin else { return }
        let end = origin + receivedCount
        if end > segmentStart { output.emit(chunk(until: end, cut: .endOfInput)) }
        segmentStart = end
    }

    /// Cuts a segment each time the decisions reach past the longest segment allowed.
    private func cutWhileDecided(into output: inout StageOutput<UtteranceChunk>) throws {
        guard let origin else { return }
        while min(bufferStart + Int64(speech.count * hop), origin + receivedCount) - segmentStart > maxFrames {
            let (position, cut) = chooseCut()
            output.emit(chunk(until: position, cut: cut))
            let droppedHops = Int((position - bufferStart) / Int64(hop))
            speech.removeFirst(droppedHops)
            bufferStart += Int64(droppedHops * hop)
            while let first = held.first, first.startFrame + Int64(first.frameCount) <= bufferStart {
                held.removeFirst()
            }
            segmentStart = position
        }
    }

    /// The segment from `segmentStart` to `end`, which must be within the held samples.
    private func chunk(until end: Int64, cut: UtteranceChunk.Cut) -> UtteranceChunk {
        var samples: [Float] = []
        samples.reserveCapacity(Int(end - segmentStart))
        forEachPiece(of: segmentStart..<end) { samples.append(contentsOf: $0) }
        let audio = AudioBuffer(format: format, samples: samples, startFrame: segmentStart)
        var runs: [Range<MediaTime>] = []
        for index in speech.indices where speech[index] {
            let from = max(bufferStart + Int64(index * hop), segmentStart)
            let to = min(bufferStart + Int64((index + 1) * hop), end)
            guard from < to else { continue }
            let run = time(from)..<time(to)
            if let last = runs.last, last.upperBound == run.lowerBound {
                runs[runs.count - 1] = last.lowerBound..<run.upperBound
            } else {
                runs.append(run)
            }
        }
        return UtteranceChunk(audio: audio, cut: cut, speech: runs)
    }

    private func time(_ frame: Int64) -> MediaTime { MediaTime(frame: frame, sampleRate: format.sampleRate) }

    private func center(of hopIndex: Int) -> Int64 { bufferStart + Int64(hopIndex * hop + hop / 2) }

    /// Where the current segment ends: in the longest pause of its window, else in its longest pause,
    /// else at the middle of its window's quietest `fallbackWindow`.
    private func chooseCut() -> (Int64, UtteranceChunk.Cut) {
        let limit = segmentStart + maxFrames, preferredFrom = segmentStart + minFrames
        // Hops whose centre lies in (segmentStart, limit]; all are decided (see cutWhileDecided).
        var firstHop = 0
        while center(of: firstHop) <= segmentStart { firstHop += 1 }
        var lastHop = firstHop
        while lastHop + 1 < speech.count && center(of: lastHop + 1) <= limit { lastHop += 1 }
        let energies = meanSquares(firstHop...lastHop)

        // Pauses: runs of non-speech hops. Score each by its hops in the preferred part of the window.
        var best: (run: ClosedRange<Int>, preferred: Int, length: Int)?
        var index = firstHop
        while index <= lastHop {
            guard !speech[index] else {
                index += 1
                continue
            }
            var end = index
            while end + 1 <= lastHop && !speech[end + 1] { end += 1 }
            let run = index...end
            let preferred = run.filter { center(of: $0) >= preferredFrom }.count
            // The silence the segment starts in (the rest of the pause just cut, or leading silence)
            // is no place for a cut unless it reaches the preferred part: cutting it would make a
            // segment of silence. Later runs win ties, for longer segments.
            let startsTheSegment = run.lowerBound == firstHop && preferred == 0
            if !startsTheSegment, best.map({ (preferred, run.count) >= ($0.preferred, $0.length) }) ?? true {
                best = (run, preferred, run.count)
            }
            index = end + 1
        }
        if let best {
            let candidates = best.preferred > 0 ? best.run.filter { center(of: $0) >= preferredFrom } : Array(best.run)
            let middle = Double(best.run.lowerBound + best.run.upperBound) / 2
            let quietest = candidates.min {
                (energies[$0 - firstHop], abs(Double($0) - middle)) < (
                    energies[$1 - firstHop], abs(Double($1) - middle)
                )
            }!
            return (center(of: quietest), .pause)
        }

        // No pause: the hop boundary in the preferred part (else anywhere) whose surrounding
        // `fallbackHops` are quietest, within the window's hops.
        var boundaries = (firstHop + 1...lastHop + 1).filter {
            let position = bufferStart + Int64($0 * hop)
            return position >= preferredFrom && position <= limit
        }
        if boundaries.isEmpty { boundaries = Array(firstHop + 1...lastHop + 1) }
        var quietest = boundaries[0]
        var quietestEnergy = Double.infinity
        for boundary in boundaries {
            let lower = max(firstHop, boundary - fallbackHops / 2)
            let upper = min(lastHop, lower + fallbackHops - 1)
            let energy = energies[(lower - firstHop)...(upper - firstHop)].reduce(0, +) / Double(upper - lower + 1)
            if energy <= quietestEnergy {
                quietest = boundary
                quietestEnergy = energy
            }
        }
        return (min(bufferStart + Int64(quietest * hop), limit), .noPause)
    }

    /// Mean-square energy of each hop in `hops` (a partial final hop over the samples it has), in one
    /// walk over the held buffers.
    private func meanSquares(_ hops: ClosedRange<Int>) -> [Double] {
        let received = (origin ?? 0) + receivedCount
        let first = bufferStart + Int64(hops.lowerBound * hop)
        let end = min(bufferStart + Int64((hops.upperBound + 1) * hop), received)
        var sums = [Double](repeating: 0, count: hops.count)
        var index = 0, filled = 0
        if first < end {
            forEachPiece(of: first..<end) { piece in
                for sample in piece {
                    sums[index] += Double(sample) * Double(sample)
                    filled += 1
                    if filled == hop {
                        index += 1
                        filled = 0
                    }
                }
            }
        }
        return sums.indices.map { index in
            let from = first + Int64(index * hop), to = min(from + Int64(hop), received)
            return to > from ? sums[index] / Double(to - from) : 0
        }
    }

    /// Calls `body` with the held samples of the frames `frames`, in order, a buffer's part at a time.
    private func forEachPiece(of frames: Range<Int64>, _ body: (ArraySlice<Float>) -> Void) {
        for buffer in held {
            let start = buffer.startFrame, end = start + Int64(buffer.frameCount)
            guard end > frames.lowerBound else { continue }
            guard start < frames.upperBound else { break }
            let lower = Int(max(start, frames.lowerBound) - start), upper = Int(min(end, frames.upperBound) - start)
            body(buffer.samples[lower..<upper])
        }
    }
}
