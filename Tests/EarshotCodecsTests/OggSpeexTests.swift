import EarshotCore
import EarshotLab
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotCodecs

/// Ogg Speex files, on the LibriVox speech, checked against speexdec and speexenc.
@Suite(.computing) struct OggSpeexTests {
    static func encode(_ audio: AudioBuffer, _ configuration: SpeexEncoder.Configuration = .init()) throws -> [UInt8] {
        var encoder = try OggSpeexEncoder(configuration: configuration, serialNumber: 42)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], chunkSize: Int = 512, enhance: Bool = false) throws -> AudioBuffer {
        var decoder = OggSpeexDecoder(name: "speech.spx", perceptualEnhancement: enhance)
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    /// A stream whose Speex header has `patch` applied to it (a little-endian Int32 at an offset).
    static func streamWithHeader(_ patch: (offset: Int, value: Int32)) throws -> [UInt8] {
        var header = try OggSpeexEncoder.identificationHeader(.init())
        withUnsafeBytes(of: patch.value.littleEndian) {
            header.replaceSubrange(patch.offset..<patch.offset + 4, with: $0)
        }
        return OggTestSupport.stream([header, OggSpeexEncoder.commentHeader(), [0x0F]], perPage: 1)
    }

    @Test(arguments: SpeexBand.allCases)
    func speechRoundTripIsExactlyAsLongAsTheInputAndAligned(band: SpeexBand) throws {
        var bytes = 0
        var seconds = 0.0
        for audio in try CodecChecks.clips(rate: band.format.sampleRate) {
            let encoded = try Self.encode(audio, .init(band: band))
            let decoded = try Self.decode(encoded)
            #expect(decoded.format == band.format)
            #expect(decoded.frameCount == audio.frameCount)
            #expect(abs(OggTestSupport.bestLag(audio.samples, decoded.samples)) <= 2, "the codec delay is removed")
            bytes += encoded.count
            seconds += audio.duration
        }
        print(
            "Ogg Speex \(band.rawValue) VBR default quality: \(Int(Double(bytes * 8) / seconds)) bit/s with Ogg framing"
        )
    }

    @Test func wordErrorRateStaysNearTheOriginal() throws {
        let original = try CodecChecks.originalWER.get()
        let speex = try CodecRoundTrip.corpusWER { try Self.decode(try Self.encode($0)) }
        print("WER original: \(original); through Ogg Speex wideband VBR q4: \(speex)")
        // Speex WB q4 costs PocketSphinx about 6 WER points on 1 092 words of the long corpus (0.362
        // against 0.298, BENCHMARKS.md). On these 71 words a WER's sampling error alone is ±6 points
        // (one word is 1.4), so allow 15: a broken codec scores near 1.0.
        #expect(speex.rate <= original.rate + 0.15)
    }

    @Test(arguments: SpeexBand.allCases)
    func speexdecDecodesOurFilesToTheSameSamples(band: SpeexBand) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: band.format.sampleRate)[3]
        let bytes = try Self.encode(audio, .init(band: band))
        let path = try directory.write(bytes, to: "speech.spx")
        let wav = directory.file("speexdec.wav")
        let run = try ExternalTool.run(["speexdec", "--no-enh", path, wav])
        #expect(run.status == 0, "\(run.standardError)")
        let theirs = try CodecRoundTrip.readFile(wav)
        let ours = try Self.decode(bytes)
        print(
            "speexdec on our \(band.rawValue) .spx: \(theirs.frameCount) samples at \(theirs.format.sampleRate) Hz; input \(audio.frameCount)"
        )
        #expect(theirs.format == band.format)
        #expect(abs(theirs.frameCount - audio.frameCount) <= band.frameSize)
        // speexdec drops the same look-ahead and trims the same end as we do.
        let identical = CodecChecks.int16(theirs.samples) == CodecChecks.int16(ours.samples)
        #expect(identical, "speexdec and our decoder differ (\(theirs.frameCount) against \(ours.frameCount) samples)")
    }

    @Test(arguments: [1, 3])
    func weDecodeSpeexencFiles(framesPerPacket: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try LibriVoxClips.load()[0]
        let audio = try CodecRoundTrip.readFile(clip.path)
        let path = directory.file("speexenc.spx")
        let run = try ExternalTool.run(
            ["speexenc", "-w", "--vbr", "--quality", "6", "--nframes", "\(framesPerPacket)", clip.path, path])
        #expect(run.status == 0, "\(run.standardError)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let decoded = try Self.decode(bytes)
        print(
            "our decoder on speexenc's .spx (\(framesPerPacket) frames/packet): \(decoded.frameCount) samples; input \(audio.frameCount)"
        )
        #expect(decoded.format == .wideband)
        #expect(abs(decoded.frameCount - audio.frameCount) <= 320)
        // speexenc pads its input differently; the codec delay is still gone (within a sample).
        #expect(abs(OggTestSupport.bestLag(audio.samples, decoded.samples)) <= 1)
    }

    @Test func decodingOneByteAtATimeGivesTheSameSamples() throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[4])
        let whole = try Self.decode(bytes, chunkSize: 512)
        let identical = try Self.decode(bytes, chunkSize: 1).samples == whole.samples
        #expect(identical, "byte-at-a-time decoding differs")
        #expect(!whole.samples.isEmpty)
    }

    @Test func pagesCloseEveryHundredMillisecondsAndTheLastIsEndOfStream() throws {
        let encoder = try OggSpeexEncoder(serialNumber: 9)
        let audio = Signal.sine(frequency: 300, peakDBFS: -10, seconds: 1.005, format: .wideband)
        var output = StageOutput<EncodedPacket>()
        var bytes: [UInt8] = []
        var packetCounts: [Int] = []
        for block in Signal.blocks(of: audio, frames: 320) {
            try encoder.process(block, into: &output)
            packetCounts.append(output.items.count)
            for packet in output.items {
                #expect(packet.end.frame - packet.start.frame <= 1_600, "at most 100 ms of audio per page")
                bytes += packet.bytes
            }
            output.removeAll()
        }
        try encoder.finish(into: &output)
        #expect(output.items.count == 1)
        bytes += output.items.flatMap(\.bytes)
        #expect(packetCounts.allSatisfy { $0 <= 1 })
        let pages = try OggTestSupport.pages(bytes)
        #expect(pages[0].packets.count == 1 && pages[0].packets[0].starts(with: Array("Speex   ".utf8)))
        #expect(pages[1].packets.count == 1 && pages[0].granulePosition == 0 && pages[1].granulePosition == 0)
        // The first audio frame leaves on its own page; then a page per 5 frames (100 ms).
        #expect(pages[2].packets.count == 1 && pages[2].granulePosition == 320 - 143)
        #expect(pages[3...].dropLast().allSatisfy { $0.packets.count == 5 && !$0.isEndOfStream })
        #expect(pages.last?.isEndOfStream == true)
        #expect(pages.last?.granulePosition == Int64(audio.frameCount))
        let granules = pages.map(\.granulePosition)
        #expect(zip(granules, granules.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func emptyStreamIsAValidFileOfNoAudio() throws {
        var encoder = try OggSpeexEncoder()
        let bytes = try encoder.finish().items.flatMap(\.bytes)
        let pages = try OggTestSupport.pages(bytes)
        // The two header pages alone, the second flagged end-of-stream.
        #expect(pages.count == 2 && pages.last?.isEndOfStream == true && pages.last?.granulePosition == 0)
        let decoded = try Self.decode(bytes)
        #expect(decoded.frameCount == 0 && decoded.format == .wideband)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let wav = directory.file("empty.wav")
        let run = try ExternalTool.run(["speexdec", try directory.write(bytes, to: "empty.spx"), wav])
        #expect(run.status == 0, "\(run.standardError)")
        let theirs = try CodecRoundTrip.readFile(wav)
        print("speexdec on an empty .spx: \(theirs.frameCount) samples at \(theirs.format.sampleRate) Hz")
        #expect(theirs.frameCount == 0)
    }

    @Test func truncatedFileThrowsAtFinish() throws {
        let bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.5, format: .wideband))
        let error = try CodecChecks.decodingError(Array(bytes.dropLast(7)), OggSpeexDecoder(name: "cut.spx"))
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message.hasPrefix("cut.spx: stream ends inside the Ogg page") == true, "\(String(describing: error))"
        )
    }

    @Test func wavFileIsRefusedAtByteZero() throws {
        var writer = try WAVEncoder(inputFormat: .wideband)
        let wav = try CodecRoundTrip.encode(Signal.sine(frequency: 440, seconds: 0.1, format: .wideband), with: &writer)
        let error = try CodecChecks.processingError(wav, OggSpeexDecoder(name: "speech.wav"))
        #expect(
            error?.message
                == "speech.wav: found \"RIFF\" where an Ogg page should begin at byte 0; expected the Ogg capture pattern \"OggS\""
        )
    }

    @Test func opusFileIsNotSpeex() throws {
        var encoder = try OggOpusEncoder()
        let opus = try CodecRoundTrip.encode(
            Signal.sine(frequency: 440, seconds: 0.1, format: .wideband), with: &encoder)
        let error = try CodecChecks.processingError(opus, OggSpeexDecoder(name: "speech.opus"))
        #expect(
            error?.message
                == "speech.opus: first packet starts \"OpusHead\" at byte 28; expected a Speex header (\"Speex   \")")
    }

    @Test func impossibleHeaderFieldsAreRefusedBeforeLibspeexSeesThem() throws {
        let rate = try CodecChecks.processingError(try Self.streamWithHeader((36, 0)), OggSpeexDecoder())
        #expect(rate?.code == .invalidInput)
        #expect(rate?.message.contains("Speex header rate 0 Hz at byte 28; expected 6000–48000 Hz") == true)
        let frameSize = try CodecChecks.processingError(try Self.streamWithHeader((56, 1 << 20)), OggSpeexDecoder())
        #expect(frameSize?.message.contains("frame size 1048576") == true, "\(String(describing: frameSize))")
        let mode = try CodecChecks.processingError(try Self.streamWithHeader((40, 7)), OggSpeexDecoder())
        #expect(mode?.message.contains("mode 7") == true)
        let ultra = try CodecChecks.processingError(try Self.streamWithHeader((40, 2)), OggSpeexDecoder())
        #expect(ultra?.code == .unsupportedFormat)
        let stereo = try CodecChecks.processingError(try Self.streamWithHeader((48, 2)), OggSpeexDecoder())
        #expect(stereo?.code == .unsupportedFormat)
        let frames = try CodecChecks.processingError(try Self.streamWithHeader((64, -1)), OggSpeexDecoder())
        #expect(frames?.message.contains("-1 frames per packet") == true)
    }
}
