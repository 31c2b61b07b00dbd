import EarshotCore
import EarshotTestTraits
import Synchronization
import Testing

@testable import EarshotSynthesis

/// ``SpeechStream``: long text spoken in bounded pieces, made only as they are read, syntheses taking
/// turns on the one thread piece by piece, and each still sounding as it would alone.
@Suite(.waiting) struct SpeechStreamTests {
    private func samples(_ stream: SpeechStream) async throws -> [Float] {
        var samples: [Float] = []
        var next: Int64 = 0
        for try await buffer in stream {
            #expect(buffer.startFrame == next)
            next += Int64(buffer.frameCount)
            samples += buffer.samples
        }
        return samples
    }

    /// Text is spoken piece by piece, each no longer than the chunker's bound: a run of 450 digits with
    /// no space in it comes out as three Flite utterances (200, 200 and 50 digits), not one.
    @Test func unpunctuatedTextIsSpokenInBoundedPieces() async throws {
        let voice = try await Synthesis.voice(named: "kal16")
        let script = try SpeechScript(text: String(repeating: "9", count: 450))
        var buffers: [AudioBuffer] = []
        for try await buffer in Synthesis.stream(script, voice: voice) { buffers.append(buffer) }
        #expect(buffers.count == 3, "Flite hands out one buffer a piece: \(buffers.map(\.duration))")
        #expect(buffers.allSatisfy { $0.duration > 5 })
    }

    /// Ordinary text is spoken sentence by sentence, as Flite always has been: the stream's samples are
    /// the sentences' spoken one by one.
    @Test func sentencesAreSpokenAsBefore() async throws {
        let voice = try await Synthesis.voice(named: "kal16")
        let text = "Lock the front door.  And the back door! Then sleep; well"
        let whole = try await samples(Synthesis.stream(try SpeechScript(text: text), voice: voice))
        var separate: [Float] = []
        for sentence in ["Lock the front door.", " And the back door!", "Then sleep;", "well"] {
            separate += try await samples(Synthesis.stream(try SpeechScript(text: sentence), voice: voice))
        }
        #expect(whole == separate)
    }

    /// Nothing is made ahead of the reader, and syntheses take turns on the thread a piece at a time:
    /// a short synthesis begun while a long one is under way ends while the long one is still going.
    @Test func aShortSynthesisIsNotHeldBehindALongOne() async throws {
        let voice = try await Synthesis.voice(named: "slt")
        // 99 sentences, some five minutes of speech: a minute of the thread's time.
        let long = try SpeechScript(text: String(repeating: "Nine nine nine nine nine nine nine nine. ", count: 99))
        let short = try SpeechScript(text: "Hello there.")
        let events = Events()
        let (longStarted, signal) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = Synthesis.stream(long, voice: voice).makeAsyncIterator()
                _ = try await iterator.next()
                signal.finish()
                while try await iterator.next() != nil {
                    // Once the short one is done, the point is made: the long one stops there.
                    if events.list.withLock({ $0.contains("short: done") }) {
                        events.list.withLock { $0.append("long: still going") }
                        return
                    }
                }
                events.list.withLock { $0.append("long: done") }
            }
            group.addTask {
                for await _ in longStarted {}
                _ = try await samples(Synthesis.stream(short, voice: voice))
                events.list.withLock { $0.append("short: done") }
            }
            try await group.waitForAll()
        }
        #expect(events.list.withLock { $0 } == ["short: done", "long: still going"])
    }

    /// Syntheses that take turns on the thread each sound as they would alone, even with a clustergen
    /// voice, whose excitation draws on rand(): each has its own generator state.
    @Test func interleavedSynthesesSoundAsTheyWouldAlone() async throws {
        let voice = try await Synthesis.voice(named: "rms")
        let script = try SpeechScript(text: "Lock the front door. Then the back door. Then sleep.")
        let alone = try await samples(Synthesis.stream(script, voice: voice))
        let together = try await withThrowingTaskGroup(of: [Float].self) { group in
            for _ in 0..<3 { group.addTask { try await samples(Synthesis.stream(script, voice: voice)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.count == 3 && together.allSatisfy { $0 == alone })
    }

    /// A pause is handed out a tenth of a second at a time, exactly as long as asked, without the thread.
    @Test func aLongPauseIsHandedOutInTenthsOfASecond() async throws {
        let voice = try await Synthesis.voice(named: "kal16")
        let script = try SpeechScript(ssml: Array(#"<speak>one<break time="10s"/></speak>"#.utf8))
        var buffers: [AudioBuffer] = []
        for try await buffer in Synthesis.stream(script, voice: voice) { buffers.append(buffer) }
        let silence = buffers.dropFirst()
        #expect(
            silence.count == 100 && silence.allSatisfy { $0.frameCount == 1_600 && $0.samples.allSatisfy { $0 == 0 } })
    }

    /// A consumer whose task is cancelled gets CancellationError at its next read, and no more is made.
    @Test func cancellingTheReaderStopsTheSynthesis() async throws {
        let voice = try await Synthesis.voice(named: "slt")
        let script = try SpeechScript(text: String(repeating: "Nine nine nine nine nine nine nine nine. ", count: 99))
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var iterator = Synthesis.stream(script, voice: voice).makeAsyncIterator()
            _ = try await iterator.next()
            signal.finish()
            while try await iterator.next() != nil {}
        }
        for await _ in started {}
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// ``Synthesis/minimumDuration(of:voice:rate:)`` is a lower bound on the real length, at every rate
    /// (eSpeak NG's clamped to the 80–450 words a minute it takes) and for the tersest text.
    @Test(arguments: ["kal", "kal16", "slt", "en-us"])
    func theDurationBoundIsBelowTheSpeech(voice name: String) async throws {
        let voice = try await Synthesis.voice(named: name)
        let texts = [
            "The birch canoe slid on the smooth planks.", String(repeating: "9", count: 120),
            "a b c d e f g h i j k l m n o p", "Supercalifragilisticexpialidocious",
        ]
        for text in texts {
            for rate in [0.25, 1, 4] {
                let script = try SpeechScript(text: text)
                let spoken = try await samples(Synthesis.stream(script, voice: voice, rate: rate))
                let seconds = Double(spoken.count) / Double(voice.sampleRate)
                let least = Synthesis.minimumDuration(of: script, voice: voice, rate: rate)
                #expect(least < seconds, "\(name) at \(rate): \(text)")
            }
        }
        let ssml = try SpeechScript(ssml: Array(#"<speak>hi<break time="10s"/><p>a</p></speak>"#.utf8))
        #expect(ssml.pauseSeconds == 10.5)
        #expect(ssml.minimumDuration(rate: 1) > 10.5)
    }
}

/// What the syntheses of a test did, in order.
private final class Events: Sendable {
    let list = Mutex<[String]>([])
}
