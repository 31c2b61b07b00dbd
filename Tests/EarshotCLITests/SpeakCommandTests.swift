import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

private func earshot(_ arguments: String..., stdin: Data? = nil) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments, standardInput: stdin)
}

private let sentence = "The birch canoe slid on the smooth planks."

/// The number of 16-bit samples ffmpeg (an independent decoder) gets out of `path` at `rate` Hz mono.
private func ffmpegSamples(_ path: String, rate: Int = 16_000) throws -> Int {
    let decoded = try ExternalTool.run(
        ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", "\(rate)", "-f", "s16le", "-"])
    #expect(decoded.status == 0, "\(decoded.standardError)")
    return decoded.standardOutput.count / 2
}

@Suite(.serialized, .computing) struct SpeakCommandTests {
    /// Every container format ffmpeg reads decodes to a sentence's worth of audio (1.5–5 s).
    @Test(arguments: ["wav", "flac", "opus", "amr", "spx"])
    func speaksIntoAFileFFmpegDecodes(ext: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("canoe.\(ext)")
        let spoken = try earshot("speak", sentence, "-o", out)
        #expect(spoken.status == 0, "\(spoken.standardError)")
        let seconds = Double(try ffmpegSamples(out)) / 16_000
        #expect(seconds > 1.5 && seconds < 5, "\(ext): \(seconds) s")
        #expect(directory.contents() == ["canoe.\(ext)"])
    }

    /// The round trip: the embedded recognizer reads back what each engine said.
    @Test(arguments: ["rms", "slt", "kal16", "en-us"])
    func theRecognizerReadsTheSpeechBack(voice: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("sentence.wav")
        #expect(try earshot("speak", "--voice", voice, "Glue the sheet to the dark blue background.", "-o", out).status == 0)
        let transcript = try earshot("transcribe", out)
        #expect(transcript.status == 0, "\(transcript.standardError)")
        let words = transcript.output.lowercased().filter { $0.isLetter || $0 == " " }
        // eSpeak NG's "glue the sheet" reads back as "blue machine" to Whisper tiny.en; the rest of the
        // sentence is read back by every voice.
        #expect(words.contains("to the dark blue background"), "\(voice): \(transcript.output)")
    }

    /// Text on standard input, audio on standard output (a streaming WAV by default, or --format), at
    /// --output-rate.
    @Test func readsStandardInputAndWritesStandardOutput() throws {
        let wav = try earshot("speak", stdin: Data(sentence.utf8))
        #expect(wav.status == 0, "\(wav.standardError)")
        #expect(wav.standardOutput.prefix(4) == Data("RIFF".utf8))
        let l16 = try earshot("speak", "--format", "l16", "--output-rate", "8000", sentence)
        #expect(l16.status == 0)
        let seconds = Double(l16.standardOutput.count / 2) / 8_000
        #expect(seconds > 1.5 && seconds < 5)
        let faster = try earshot("speak", "--format", "l16", "--output-rate", "8000", "--rate", "2", sentence)
        #expect(Double(faster.standardOutput.count) < 0.75 * Double(l16.standardOutput.count))
    }

    @Test func speaksAnSSMLFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ssml = directory.file("prompt.ssml")
        try Data(#"<speak>Glue the sheet <break time="2s"/> to the dark blue background.</speak>"#.utf8)
            .write(to: URL(fileURLWithPath: ssml))
        let plain = try earshot("speak", "--format", "l16", "Glue the sheet to the dark blue background.")
        let paused = try earshot("speak", "--format", "l16", "--ssml", ssml)
        #expect(paused.status == 0, "\(paused.standardError)")
        let extra = Double(paused.standardOutput.count - plain.standardOutput.count) / 2 / 16_000
        // The break itself is exact silence (SynthesisTests); the text around it is spoken as two phrases,
        // and the first ends with the engine's own phrase-final pause (some 0.4 s with slt).
        #expect(extra > 1.9 && extra < 2.7, "the break adds about 2 s (\(extra) s)")
    }

    @Test func refusesBadInputNamingTheCause() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ssml = directory.file("bad.ssml")
        try Data(#"<speak><audio src="x.wav"/>hi</speak>"#.utf8).write(to: URL(fileURLWithPath: ssml))
        let element = try earshot("speak", "--ssml", ssml, "-o", directory.file("out.wav"))
        #expect(element.status == 2 && element.standardError.contains("\(ssml): line 1: element <audio> is not supported"))
        #expect(directory.contents() == ["bad.ssml"], "no output after a failure")
        let voice = try earshot("speak", "--voice", "nobody", "hi")
        #expect(voice.status == 1 && voice.standardError.contains("--voice: no voice 'nobody'"))
        let rate = try earshot("speak", "--rate", "9", "hi")
        #expect(rate.status == 1 && rate.standardError.contains("--rate"))
        let long = try earshot("speak", String(repeating: "a", count: 4_097))
        #expect(long.status == 1 && long.standardError.contains("TEXT: 4097 characters; the limit is 4096"))
        let missing = try earshot("speak", "--ssml", directory.file("none.ssml"))
        #expect(missing.status == 2 && missing.standardError.contains("none.ssml"))
        let format = try earshot("speak", "hi", "-o", directory.file("out.xyz"))
        #expect(format.status == 1 && format.standardError.contains("--format"))
    }

    @Test func listsVoices() throws {
        let listed = try earshot("speak", "--list-voices")
        #expect(listed.status == 0)
        let lines = listed.output.split(separator: "\n")
        #expect(lines.contains("slt\tflite\ten-us\t16000"))
        #expect(lines.contains("en-us\tespeak-ng\ten-us\t22050"))
    }
}
