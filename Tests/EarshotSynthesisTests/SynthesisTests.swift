import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotSynthesis

@Suite(.waiting) struct SynthesisTests {
    private func synthesize(_ script: SpeechScript, voice name: String, rate: Double = 1) async throws -> [AudioBuffer]
    {
        let voice = try await Synthesis.voice(named: name)
        var buffers: [AudioBuffer] = []
        for try await buffer in Synthesis.stream(script, voice: voice, rate: rate) { buffers.append(buffer) }
        return buffers
    }

    private func rms(_ samples: [Float]) -> Double {
        (samples.reduce(0) { $0 + Double($1 * $1) } / Double(max(samples.count, 1))).squareRoot()
    }

    @Test func listsTheVoicesOfBothEngines() async throws {
        let voices = try await Synthesis.voices()
        #expect(Set(voices.filter { $0.engine == "flite" }.map(\.name)) == ["kal", "kal16", "slt", "awb", "rms"])
        let espeak = voices.filter { $0.engine == "espeak-ng" }
        #expect(espeak.contains { $0.name == "en-us" && $0.sampleRate == 22_050 })
        #expect(espeak.contains { $0.name == "en-gb" })
        #expect(Set(voices.map(\.qualifiedName)).count == voices.count)
        #expect(try await Synthesis.voice(named: "flite:kal16").sampleRate == 16_000)
        await #expect { try await Synthesis.voice(named: "nobody", field: "VoiceName") } throws: {
            "\($0)".hasPrefix("VoiceName: no voice 'nobody'")
        }
    }

    /// Every voice the listing names can speak (eSpeak NG looks voices up by file, not by the language
    /// the listing shows: `en-gb` alone was listed but refused).
    @Test func everyListedVoiceSpeaks() async throws {
        for voice in try await Synthesis.voices() {
            let buffers = try await synthesize(try SpeechScript(text: "one"), voice: voice.qualifiedName)
            #expect(rms(buffers.flatMap(\.samples)) > 0.001, "\(voice.qualifiedName)")
        }
    }

    /// An eSpeak NG voice takes a variant after `+`, which changes the voice; an unknown variant is
    /// refused naming it, and Flite voices take none.
    @Test func anESpeakVoiceTakesAVariant() async throws {
        let voice = try await Synthesis.voice(named: "en-gb+f3")
        #expect(voice.name == "en-gb+f3" && voice.engine == "espeak-ng" && voice.language == "en-gb")
        let script = try SpeechScript(text: "The meeting has moved to half past three.")
        let plain = try await synthesize(script, voice: "en-gb").flatMap(\.samples)
        let variant = try await synthesize(script, voice: "espeak-ng:en-gb+f3").flatMap(\.samples)
        #expect(rms(variant) > 0.01 && plain != variant)
        await #expect { try await Synthesis.voice(named: "en-gb+nonesuch") } throws: {
            "\($0)".contains("no variant 'nonesuch'")
        }
        await #expect { try await Synthesis.voice(named: "slt+f3") } throws: { "\($0)".contains("no voice 'slt+f3'") }
    }

    /// Flite gives the same samples for the same text and voice, call after call. eSpeak NG does from a
    /// fresh process only (its state carries from call to call; see `ESpeakEngine`), which is how
    /// corpora are built (`CorpusBuildCommandTests`).
    @Test(arguments: ["flite:kal16", "flite:rms"])
    func fliteIsDeterministic(voice: String) async throws {
        let script = try SpeechScript(text: "Lock the front door and the back door.")
        let first = try await synthesize(script, voice: voice).flatMap(\.samples)
        _ = try await synthesize(try SpeechScript(text: "Something else in between."), voice: voice)
        let second = try await synthesize(script, voice: voice).flatMap(\.samples)
        #expect(first == second)
    }

    /// Speech of a plausible length (a sentence of eight words: 1.5–5 s), contiguous media times, and
    /// not silence.
    @Test(arguments: ["slt", "kal", "kal16", "awb", "rms", "en-us", "de"])
    func speaksASentence(voice: String) async throws {
        let buffers = try await synthesize(
            try SpeechScript(text: "The birch canoe slid on the smooth planks."), voice: voice)
        let samples = buffers.flatMap(\.samples)
        let rate = buffers[0].format.sampleRate
        let seconds = Double(samples.count) / Double(rate)
        #expect(seconds > 1.5 && seconds < 5)
        var next: Int64 = 0
        for buffer in buffers {
            #expect(buffer.startFrame == next)
            #expect(buffer.format.channelCount == 1 && buffer.format.sampleRate == rate)
            next += Int64(buffer.frameCount)
        }
        #expect(rms(samples) > 0.01)
    }

    /// A break is that many zero samples, whatever the engine; a faster rate makes shorter speech.
    @Test(arguments: ["slt", "en-us"])
    func breaksAreExactSilenceAndRateShortens(voice: String) async throws {
        let plain = try await synthesize(
            try SpeechScript(ssml: Array("<speak>one two three</speak>".utf8)), voice: voice)
        let paused = try await synthesize(
            try SpeechScript(ssml: Array("<speak>one two three<break time=\"700ms\"/></speak>".utf8)), voice: voice)
        let rate = plain[0].format.sampleRate
        let plainFrames = plain.reduce(0) { $0 + $1.frameCount }
        let pausedSamples = paused.flatMap(\.samples)
        // Flite's output is the same every time; eSpeak NG's length varies by a few tens of ms between
        // calls, so its total is checked within 50 ms.
        let expected = plainFrames + Int(0.7 * Double(rate))
        #expect(abs(pausedSamples.count - expected) <= (voice == "slt" ? 0 : rate / 20))
        #expect(pausedSamples.suffix(Int(0.7 * Double(rate))).allSatisfy { $0 == 0 })
        let fast = try await synthesize(
            try SpeechScript(ssml: Array("<speak>one two three</speak>".utf8)), voice: voice, rate: 2)
        #expect(Double(fast.reduce(0) { $0 + $1.frameCount }) < 0.75 * Double(plainFrames))
    }

    @Test func volumeScalesTheSamples() async throws {
        let loud = try await synthesize(try SpeechScript(ssml: Array("<speak>seven</speak>".utf8)), voice: "kal16")
        let soft = try await synthesize(
            try SpeechScript(ssml: Array("<speak><prosody volume=\"-20dB\">seven</prosody></speak>".utf8)),
            voice: "kal16")
        let ratio = rms(soft.flatMap(\.samples)) / rms(loud.flatMap(\.samples))
        #expect(abs(ratio - 0.1) < 0.005)
    }

    @Test func refusesARateOutOfRange() async throws {
        let voice = try await Synthesis.voice(named: "slt")
        await #expect {
            for try await _ in Synthesis.stream(try SpeechScript(text: "hi"), voice: voice, rate: 9) {}
        } throws: {
            "\($0)".hasPrefix("rate: 9.0")
        }
    }

    /// Concurrent requests are serialized on the one executor and each gets its own, whole speech
    /// (Flite's diphone voices, which give the same samples every time; the clustergen ones excite with noise).
    @Test(arguments: ["kal16", "kal"])
    func concurrentRequestsGetTheirOwnSpeech(voice: String) async throws {
        let script = try SpeechScript(text: "Glue the sheet to the dark blue background.")
        let alone = try await synthesize(script, voice: voice).flatMap(\.samples)
        let together = try await withThrowingTaskGroup(of: [Float].self) { group in
            for _ in 0..<4 { group.addTask { try await synthesize(script, voice: voice).flatMap(\.samples) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(together.allSatisfy { $0 == alone })
    }
}
