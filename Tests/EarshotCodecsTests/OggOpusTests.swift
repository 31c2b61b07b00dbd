import EarshotCore
import EarshotLab
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotCodecs

/// Ogg Opus (RFC 7845) on the LibriVox speech, checked against ffmpeg's two Opus decoders and
/// ffmpeg's libopus encoder. (Debian's sox has no Opus support: `sox --help-format opus` finds none.)
@Suite(.computing) struct OggOpusTests {
    static func encode(_ audio: AudioBuffer, _ configuration: OggOpusEncoder.Configuration = .init()) throws -> [UInt8]
    {
        var encoder = try OggOpusEncoder(configuration: configuration, serialNumber: 5)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], sampleRate: Int = 16_000, chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = try OggOpusDecoder(sampleRate: sampleRate, name: "speech.opus")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    /// A stream of `head`, a valid OpusTags and one 20 ms packet of silence.
    static func stream(head: [UInt8], tags: [UInt8] = OggOpusEncoder.opusTags()) throws -> [UInt8] {
        let pages = try OggTestSupport.pages(try encode(Signal.silence(seconds: 0.02, format: .wideband)))
        return OggTestSupport.stream([head, tags, pages[2].packets[0]], perPage: 1)
    }

    /// ffmpeg decoding `path` to 16-bit mono at `rate`, with its own Opus decoder or with libopus.
    static func ffmpeg(_ path: String, rate: Int = 16_000, libopus: Bool) throws -> (
        samples: [Int16], status: Int32, messages: String
    ) {
        let decoder = libopus ? ["-c:a", "libopus"] : []
        let result = try ExternalTool.run(
            ["ffmpeg", "-nostdin", "-v", "warning"] + decoder + [
                "-i", path, "-f", "s16le", "-ar", "\(rate)", "-ac", "1", "-",
            ])
        let bytes = [UInt8](result.standardOutput)
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        return (samples, result.status, result.standardError)
    }

    @Test(arguments: [16_000, 8_000])
    func speechRoundTripIsExactlyAsLongAsTheInputAndAligned(rate: Int) throws {
        var bytes = 0
        var seconds = 0.0
        for audio in try CodecChecks.clips(rate: rate) {
            let encoded = try Self.encode(audio, .init(sampleRate: rate))
            let decoded = try Self.decode(encoded, sampleRate: rate)
            #expect(decoded.format == audio.format)
            #expect(decoded.frameCount == audio.frameCount)
            #expect(abs(OggTestSupport.bestLag(audio.samples, decoded.samples)) <= 2, "the pre-skip removes the delay")
            bytes += encoded.count
            seconds += audio.duration
        }
        print(
            "Ogg Opus \(rate) Hz at the default 24 kbit/s: \(Int(Double(bytes * 8) / seconds)) bit/s with Ogg framing")
    }

    @Test func headersFollowRFC7845AndGranulePositionsEndAtTheInputsLength() throws {
        let audio = Signal.sine(frequency: 300, peakDBFS: -10, seconds: 0.7777, format: .wideband)
        let pages = try OggTestSupport.pages(try Self.encode(audio))
        let head = pages[0].packets[0]
        #expect(pages[0].packets.count == 1 && pages[0].granulePosition == 0)
        #expect(Array(head[0..<8]) == Array("OpusHead".utf8) && head.count == 19)
        #expect(head[8] == 1 && head[9] == 1 && head[18] == 0)  // version, channels, mapping family
        #expect(UInt16(head[10]) | UInt16(head[11]) << 8 == 312)  // pre-skip: 104 samples at 16 kHz
        #expect(UInt32(head[12]) | UInt32(head[13]) << 8 | UInt32(head[14]) << 16 == 16_000)
        #expect(head[16] == 0 && head[17] == 0)  // gain
        #expect(pages[1].packets.count == 1 && pages[1].packets[0].starts(with: Array("OpusTags".utf8)))
        #expect(pages[1].granulePosition == 0)
        #expect(pages[2].packets.count == 1 && pages[2].granulePosition == 960)
        #expect(pages.last?.isEndOfStream == true && pages.dropLast().allSatisfy { !$0.isEndOfStream })
        #expect(pages.last?.granulePosition == Int64(312 + 3 * audio.frameCount))
        let granules = pages.map(\.granulePosition)
        #expect(zip(granules, granules.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(pages.dropFirst(3).dropLast().allSatisfy { $0.packets.count == 5 })
    }

    @Test func wordErrorRateIsWithinFivePointsOfTheOriginal() throws {
        let original = try CodecChecks.originalWER.get()
        let opus = try CodecRoundTrip.corpusWER { try Self.decode(try Self.encode($0)) }
        print("WER original: \(original); through Ogg Opus 16 kHz 24 kbit/s (default): \(opus)")
        #expect(opus.rate <= original.rate + 0.05)
    }

    @Test func narrowbandWordErrorRateIsWithinFivePointsOfNarrowbandSpeech() throws {
        let narrowband = try CodecRoundTrip.corpusWER { try CodecRoundTrip.bandLimited($0, to: 8_000) }
        let opus = try CodecRoundTrip.corpusWER { audio in
            let bytes = try Self.encode(try CodecRoundTrip.bandLimited(audio, to: 8_000), .init(sampleRate: 8_000))
            return try Self.decode(bytes, sampleRate: 8_000)
        }
        print("WER band-limited to 8 kHz: \(narrowband); through Ogg Opus 8 kHz 24 kbit/s: \(opus)")
        #expect(opus.rate <= narrowband.rate + 0.05)
    }

    @Test func ffmpegDecodesOurFileToTheInputsLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: 16_000)[1]
        let path = try directory.write(try Self.encode(audio), to: "speech.opus")
        for libopus in [false, true] {
            let decoded = try Self.ffmpeg(path, libopus: libopus)
            #expect(decoded.status == 0, "\(decoded.messages)")
            print(
                "ffmpeg (\(libopus ? "libopus" : "native") decoder) on our .opus: \(decoded.samples.count) samples at 16 kHz; input \(audio.frameCount)"
            )
            #expect(abs(decoded.samples.count - audio.frameCount) <= 320)
            let lag = OggTestSupport.bestLag(audio.samples, decoded.samples.map(PCM.float))
            #expect(abs(lag) <= 2, "ffmpeg's output is aligned with the input (lag \(lag))")
        }
    }

    @Test func weDecodeFfmpegsLibopusFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try LibriVoxClips.load()[2]
        let audio = try CodecRoundTrip.readFile(clip.path)
        let path = directory.file("ffmpeg.opus")
        let run = try ExternalTool.run(
            ["ffmpeg", "-nostdin", "-v", "warning", "-i", clip.path, "-c:a", "libopus", "-b:a", "20k", path])
        #expect(run.status == 0, "\(run.standardError)")
        let decoded = try Self.decode(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        print(
            "our decoder on ffmpeg's libopus .opus (48 kHz granules): \(decoded.frameCount) samples; input \(audio.frameCount)"
        )
        #expect(abs(decoded.frameCount - audio.frameCount) <= 1)
        #expect(abs(OggTestSupport.bestLag(audio.samples, decoded.samples)) <= 2)
    }

    @Test func decodingOneByteAtATimeGivesTheSameSamples() throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[3])
        let whole = try Self.decode(bytes, chunkSize: 512)
        let identical = try Self.decode(bytes, chunkSize: 1).samples == whole.samples
        #expect(identical, "byte-at-a-time decoding differs")
        #expect(!whole.samples.isEmpty)
    }

    @Test func emptyStreamIsAValidFileOfNoAudio() throws {
        var encoder = try OggOpusEncoder()
        let bytes = try encoder.finish().items.flatMap(\.bytes)
        let pages = try OggTestSupport.pages(bytes)
        // One silent packet, trimmed to nothing by a final granule position equal to the pre-skip.
        #expect(pages.count == 3 && pages.last?.isEndOfStream == true && pages.last?.granulePosition == 312)
        #expect(try Self.decode(bytes).frameCount == 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(bytes, to: "empty.opus")
        for libopus in [false, true] {
            let decoded = try Self.ffmpeg(path, libopus: libopus)
            print(
                "ffmpeg (\(libopus ? "libopus" : "native")) on an empty .opus: status \(decoded.status), \(decoded.samples.count) samples; \(decoded.messages)"
            )
            #expect(decoded.status == 0 && decoded.samples.isEmpty)
        }
    }

    @Test func outputGainIsApplied() throws {
        let audio = Signal.sine(frequency: 440, peakDBFS: -20, seconds: 0.3, format: .wideband)
        let bytes = try Self.encode(audio)
        var pages = try OggTestSupport.pages(bytes)
        var head = pages[0].packets[0]
        head[16] = UInt8(1_541 & 0xFF)  // +6.02 dB in Q7.8: twice the amplitude
        head[17] = UInt8(1_541 >> 8)
        pages[0].packets[0] = head
        let louder = try Self.decode(OggTestSupport.stream(pages: pages))
        let plain = try Self.decode(bytes)
        #expect(louder.frameCount == plain.frameCount)
        let louderSum: Float = louder.samples.reduce(0) { $0 + abs($1) }
        let plainSum: Float = plain.samples.reduce(0) { $0 + abs($1) }
        let ratio = louderSum / plainSum
        #expect(abs(ratio - 2) < 0.001, "gain ratio \(ratio)")
    }

    @Test func truncatedFileThrowsAtFinish() throws {
        let bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.5, format: .wideband))
        let error = try CodecChecks.decodingError(Array(bytes.dropLast(3)), try OggOpusDecoder(name: "cut.opus"))
        #expect(
            error?.message.hasPrefix("cut.opus: stream ends inside the Ogg page") == true,
            "\(String(describing: error))")
    }

    @Test func otherFilesAreRefusedNamingWhatWasExpected() throws {
        var wav = try WAVEncoder(inputFormat: .wideband)
        let wavBytes = try CodecRoundTrip.encode(
            Signal.sine(frequency: 440, seconds: 0.1, format: .wideband), with: &wav)
        let notOgg = try CodecChecks.processingError(wavBytes, try OggOpusDecoder(name: "speech.wav"))
        #expect(notOgg?.message.contains("at byte 0; expected the Ogg capture pattern \"OggS\"") == true)
        let speex = try OggSpeexTests.encode(Signal.sine(frequency: 440, seconds: 0.1, format: .wideband))
        let notOpus = try CodecChecks.processingError(speex, try OggOpusDecoder(name: "speech.spx"))
        #expect(
            notOpus?.message
                == "speech.spx: first packet starts \"Speex   \" at byte 28; expected an Opus identification header (\"OpusHead\")"
        )
    }

    @Test func unsupportedOrImpossibleHeadersAreRefused() throws {
        var head = OggOpusEncoder.opusHead(preSkip: 312, inputRate: 16_000)
        head[18] = 1  // mapping family 1 (surround) would need a mapping table
        #expect(
            try CodecChecks.processingError(try Self.stream(head: head), try OggOpusDecoder())?.code
                == .unsupportedFormat)
        head[18] = 0
        head[9] = 0
        let channels = try CodecChecks.processingError(try Self.stream(head: head), try OggOpusDecoder())
        #expect(channels?.message.contains("0 channels") == true)
        head[9] = 1
        head[8] = 0x10  // major version 1
        #expect(
            try CodecChecks.processingError(try Self.stream(head: head), try OggOpusDecoder())?.code
                == .unsupportedFormat)
        head[8] = 1
        var tags = OggOpusEncoder.opusTags()
        tags[8] = 0xFF  // vendor string length far past the packet
        let badTags = try CodecChecks.processingError(try Self.stream(head: head, tags: tags), try OggOpusDecoder())
        #expect(badTags?.message.contains("vendor string runs past the packet") == true)
    }

    @Test func configurationIsValidated() throws {
        let bitrate = #expect(throws: EarshotError.self) { try OggOpusEncoder(configuration: .init(bitrate: 1_000)) }
        #expect(bitrate?.code == .invalidParameter && bitrate?.message.contains("bitrate") == true)
        let rate = #expect(throws: EarshotError.self) { try OggOpusEncoder(configuration: .init(sampleRate: 11_025)) }
        #expect(rate?.code == .unsupportedFormat)
        #expect(throws: EarshotError.self) { try OggOpusDecoder(sampleRate: 44_100) }
        let encoder = try OggOpusEncoder()
        var output = StageOutput<EncodedPacket>()
        let mismatch = #expect(throws: EarshotError.self) {
            try encoder.process(Signal.sine(frequency: 440, seconds: 0.1, format: .narrowband), into: &output)
        }
        #expect(mismatch?.code == .unsupportedFormat)
        #expect(encoder.contentType == "audio/ogg;codecs=opus" && encoder.preSkip == 312)
    }
}
