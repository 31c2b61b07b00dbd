import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

private func earshot(_ arguments: String..., stdin: Data? = nil) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments, standardInput: stdin)
}

private let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

@Suite(.serialized, .computing) struct EncodeDecodeCommandTests {
    @Test(arguments: ["amr", "spx", "wav", "flac", "opus"])
    func encodesByExtensionAndInfoRecognisesTheResult(ext: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("speech.\(ext)")
        let encoded = try earshot("encode", clip, out)
        #expect(encoded.status == 0, "\(encoded.standardError)")
        let info = try earshot("info", "--format", "json", out)
        #expect(info.status == 0, "\(info.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: info.standardOutput) as? [String: Any])
        let seconds = try #require(document["duration_s"] as? Double)
        #expect(abs(seconds - 6.05) <= 0.021, "\(ext): \(seconds) s; within one 20 ms frame of 6.05 s")
        #expect(directory.contents() == ["speech.\(ext)"], "no temporary file left beside the output")
    }

    /// A FLAC file states its length (the stream on stdout cannot: it says "unknown"), as sox reads it.
    @Test func aFLACFileStatesItsLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("speech.flac")
        #expect(try earshot("encode", clip, out).status == 0)
        let samples = try ExternalTool.run(["soxi", "-s", out])
        #expect(samples.status == 0 && samples.output == "96800\n", "\(samples.output) \(samples.standardError)")
        let reference = try ExternalTool.run(["soxi", "-s", clip])
        #expect(samples.output == reference.output)
        let decoded = try ExternalTool.run(["ffmpeg", "-nostdin", "-v", "error", "-i", out, "-f", "s16le", "-"])
        #expect(decoded.status == 0 && decoded.standardOutput.count == 96_800 * 2, "ffmpeg decodes every sample")
    }

    @Test func headerlessFormatsDecodeWhenNamed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let speex = directory.file("upload.speex"), l16 = directory.file("body.l16")
        #expect(try earshot("encode", "--format", "speex-wb", clip, speex).status == 0)
        #expect(try earshot("encode", "--format", "l16", "--output-rate", "8000", clip, l16).status == 0)
        let transcript = try earshot("transcribe", "--input-format", "speex-wb", speex)
        #expect(transcript.status == 0 && transcript.output.contains("still more respectable"))
        let decoded = directory.file("body.wav")
        #expect(try earshot("decode", "--input-format", "l16", "--rate", "8000", l16, decoded).status == 0)
        let sox = try ExternalTool.run(["soxi", "-s", decoded])
        #expect(sox.output.trimmingCharacters(in: .whitespacesAndNewlines) == "48400")
    }

    /// What `encode --format speex-wb|speex-nb` writes reads back with no flag: the frames tell the band.
    @Test(arguments: [("speex-wb", "Speex wideband with header byte"), ("speex-nb", "Speex narrowband with header byte")])
    func ourHeaderByteSpeexReadsBackWithoutFlags(format: String, name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for quality in ["0", "4", "10"] {
            let speex = directory.file("upload-\(quality).speex")
            #expect(try earshot("encode", "--format", format, "--quality", quality, clip, speex).status == 0)
            let info = try earshot("info", speex)
            #expect(info.status == 0 && info.output.contains(name), "\(format) q\(quality): \(info.output)\(info.standardError)")
        }
        let transcript = try earshot("transcribe", directory.file("upload-4.speex"))
        #expect(transcript.status == 0 && transcript.output.contains("more respectable"), "\(transcript.standardError)")
        // Raw PCM is not taken for Speex: it is still asked to say its layout.
        let raw = directory.file("noise.speex")
        try Data((0..<8_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }).write(
            to: URL(fileURLWithPath: raw))
        #expect(try earshot("info", raw).status == 2)
    }

    @Test func streamingWavOnStandardOutputIsReadBySoxAndFFmpeg() throws {
        let encoded = try earshot("encode", "--format", "wav", clip, "-")
        #expect(encoded.status == 0)
        #expect(
            Array(encoded.standardOutput[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF],
            "the RIFF size is the streaming placeholder")
        let sox = try ExternalTool.run(
            ["sox", "-t", "wav", "-", "-t", "raw", "-"], standardInput: encoded.standardOutput)
        #expect(sox.standardOutput.count == 2 * 96_800)
        let ffmpeg = try ExternalTool.run(
            ["ffmpeg", "-v", "error", "-i", "-", "-f", "s16le", "-"], standardInput: encoded.standardOutput)
        #expect(ffmpeg.standardOutput.count == 2 * 96_800)
        // And our own tools read the stream they wrote, placeholder and all.
        let info = try earshot("info", "-", stdin: encoded.standardOutput)
        #expect(info.output.contains("96800 frames"))
    }

    @Test func decodeWritesPCMThatSoxReads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let amr = directory.file("call.amr"), wav = directory.file("call.wav")
        #expect(try earshot("encode", clip, amr).status == 0)
        let decoded = try earshot("decode", amr, wav)
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let rate = try ExternalTool.run(["soxi", "-r", wav]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rate == "8000")
    }

    @Test func badEncodedInputNamesTheFileAndOffsetAndLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let amr = directory.file("speech.amr")
        #expect(try earshot("encode", clip, amr).status == 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: amr))
        let cut = try directory.write(Array(whole.prefix(whole.count - 5)), to: "cut.amr")
        let result = try earshot("decode", cut, directory.file("cut.wav"))
        #expect(result.status == 2)
        #expect(result.standardError.contains("cut.amr") && result.standardError.contains("byte"))
        #expect(
            !directory.contents().contains { $0.hasPrefix("cut.wav") || $0.contains("partial") },
            "\(directory.contents())")

        let notSpeex = try earshot("decode", "--input-format", "speex-wb", clip, directory.file("x.wav"))
        #expect(notSpeex.status == 2, "\(notSpeex.standardError)")
        #expect(notSpeex.standardError.contains("byte"))

        let unknown = try earshot("encode", clip, directory.file("speech.mp3"))
        #expect(unknown.status == 1 && unknown.standardError.contains("give --format"))
        let wrongRate = try earshot(
            "encode", "--format", "amr", "--output-rate", "16000", clip, directory.file("x.amr"))
        #expect(wrongRate.status == 1 && wrongRate.standardError.contains("8000 Hz only"))
    }
}
