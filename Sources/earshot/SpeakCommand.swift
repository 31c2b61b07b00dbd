import ArgumentParser
import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotSynthesis
import Foundation

struct Speak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak text or SSML through Flite or eSpeak NG, into any format `earshot encode` writes.",
        discussion: """
            Speaks TEXT, or the SSML document --ssml names, or the text on standard input when neither \
            is given, and writes the audio to -o OUTPUT (default: standard output) as it is synthesized. \
            The format comes from OUTPUT's extension or --format (wav, l16, flac, opus, spx, speex-wb, \
            speex-nb, amr); standard output gets a streaming WAV unless --format says otherwise. Audio is \
            resampled to the format's rate (16 kHz, 8 kHz for speex-nb and amr; --output-rate for wav, \
            l16, flac and opus).

            Text is capped at 4096 characters and SSML at 16384 bytes. SSML elements spoken: speak, p, \
            s, break (time, strength), prosody (rate, pitch, volume), say-as (characters, spell-out, \
            digits, cardinal, date with format, telephone), sub (alias), phoneme (ph; eSpeak NG voices \
            read alphabet="x-espeak", others speak the element's text). Any other element is an error.

            Examples:
              earshot speak "The birch canoe slid on the smooth planks." -o canoe.wav
              earshot speak --voice en-us --rate 1.3 --ssml prompt.ssml -o prompt.opus
              echo "Hello" | earshot speak --format l16 --output-rate 8000 > hello.l16
              earshot speak --list-voices
            """
    )

    @Argument(help: "The text to speak (default: standard input, unless --ssml is given).")
    var text: String?

    @Option(help: "An SSML document to speak, or - for standard input.")
    var ssml: String?

    @Option(name: .shortAndLong, help: "Where to write the audio, or - for standard output (the default).")
    var output: String = InputPath.standardStream

    @Option(name: .shortAndLong, help: "Output format (default: from OUTPUT's extension; wav on standard output).")
    var format: CodecFormat?

    @Option(help: "Sample rate of the output in Hz, for wav, l16, flac and opus (default 16000).")
    var outputRate: Int?

    @Option(help: "Voice: a Flite voice (slt, kal16, kal, awb, rms) or an eSpeak NG language (en-us, fr, …); default rms.")
    var voice: String?

    @Option(help: "Speaking rate, a multiplier of the voice's normal rate: 0.25–4 (default 1).")
    var rate: Double = 1

    @Flag(help: "List the voices, one a line (name, engine, language, sample rate), and exit.")
    var listVoices = false

    @OptionGroup var resampling: ResamplerOptions

    func validate() throws {
        if text != nil, ssml != nil { throw ValidationError("give TEXT or --ssml, not both") }
        guard Synthesis.rateRange.contains(rate) else {
            throw ValidationError("--rate \(rate): expected 0.25–4, a multiplier of the voice's normal rate")
        }
    }

    func run() async throws {
        if listVoices {
            for voice in try await Synthesis.voices() {
                print("\(voice.name)\t\(voice.engine)\t\(voice.language)\t\(voice.sampleRate)")
            }
            return
        }
        let codec = try format ?? (output == InputPath.standardStream ? .wav : CodecFormat(outputPath: output))
        try CommandOutput.check(output)
        if let ssml { try OutputFile.refuseReplacing(inputs: [ssml], outputs: [output], option: "-o") }
        let script = try readScript()
        let voice = try await Synthesis.voice(named: voice, field: "--voice")
        let encoder = try codec.makeEncoder(sampleRate: outputRate)
        let sink = try CommandOutput(path: output)
        try await speak(script, voice: voice, with: encoder, to: sink)
        try sink.commit()
    }

    /// Synthesis → resampler → `encoder` → `sink`, block by block as the engine makes them.
    private func speak<Encoder: AudioEncoder>(
        _ script: SpeechScript, voice: Voice, with encoder: Encoder, to sink: CommandOutput
    ) async throws {
        let inputFormat = try AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
        let resampler = try Resampler(
            inputFormat: inputFormat,
            configuration: resampling.configuration(sampleRate: encoder.inputFormat.sampleRate))
        var chain = resampler.then(encoder)
        var packets = StageOutput<EncodedPacket>()
        for try await buffer in Synthesis.stream(script, voice: voice, rate: rate) {
            try chain.process(buffer, into: &packets)
            for packet in packets.items { try sink.write(packet.bytes) }
            packets.removeAll()
        }
        try chain.finish(into: &packets)
        for packet in packets.items { try sink.write(packet.bytes) }
        if let header = chain.second.finalizedHeader() { try sink.patch(header, at: 0) }
    }

    private func readScript() throws -> SpeechScript {
        if let text { return try SpeechScript(text: text, field: "TEXT") }
        let path = ssml ?? InputPath.standardStream
        let name = path == InputPath.standardStream ? "stdin" : path
        // One byte past the larger cap is enough to know the input is too long.
        let limits = SpeechScript.Limits.default
        let limit = max(limits.ssmlBytes, 4 * limits.textCharacters) + 1
        let handle: FileHandle
        if path == InputPath.standardStream {
            handle = FileHandle.standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw EarshotError(.invalidInput, "\(path): cannot open the SSML file")
            }
            handle = file
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try handle.read(upToCount: limit) ?? Data())
        } catch {
            throw EarshotError(.invalidInput, "\(name): cannot read (\(error.localizedDescription))")
        }
        if ssml != nil { return try SpeechScript(ssml: bytes, field: name) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw EarshotError(.invalidInput, "\(name): the text is not valid UTF-8")
        }
        return try SpeechScript(text: text, field: name)
    }
}
