import EarshotCore
import EarshotLab
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotCodecs

/// Speex with a length byte per frame (the Speech SDK's upload format), on the LibriVox speech,
/// checked against speexdec.
@Suite(.computing) struct SpeexCodecTests {
    static func encode(_ audio: AudioBuffer, _ configuration: SpeexEncoder.Configuration = .init()) throws -> [UInt8] {
        var encoder = try SpeexEncoder(configuration: configuration)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], band: SpeexBand = .wideband, chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = try SpeexDecoder(band: band, name: "speech.speex")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    /// The frames of a header-byte stream, checking every length byte is followed by that many bytes.
    static func frames(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var frames: [ArraySlice<UInt8>] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            #expect(length > 0 && index + 1 + length <= bytes.count, "length byte at \(index)")
            frames.append(bytes[index + 1..<min(index + 1 + length, bytes.count)])
            index += 1 + length
        }
        return frames
    }

    @Test func configurationIsValidatedNamingTheField() throws {
        let quality = #expect(throws: EarshotError.self) { try SpeexEncoder(configuration: .init(quality: 11)) }
        #expect(quality?.code == .invalidParameter)
        #expect(quality?.message.contains("quality: 11") == true)
        let complexity = #expect(throws: EarshotError.self) { try SpeexEncoder(configuration: .init(complexity: 0)) }
        #expect(complexity?.code == .invalidParameter)
        #expect(complexity?.message.contains("complexity") == true)
        #expect(try SpeexEncoder().contentType == "audio/x-speex-with-header-byte;rate=16000")
        #expect(
            try SpeexEncoder(configuration: .init(band: .narrowband)).contentType
                == "audio/x-speex-with-header-byte;rate=8000")
    }

    @Test func otherRatesAreRefused() throws {
        let encoder = try SpeexEncoder()
        let format = try AudioFormat(sampleRate: 11_025, channelCount: 1)
        var output = StageOutput<EncodedPacket>()
        let error = #expect(throws: EarshotError.self) {
            try encoder.process(Signal.sine(frequency: 440, seconds: 0.1, format: format), into: &output)
        }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("11025 Hz") == true)
    }

    @Test(arguments: SpeexBand.allCases)
    func speechRoundTripKeepsLengthWithinOneFrame(band: SpeexBand) throws {
        var wireBytes = 0
        var seconds = 0.0
        for audio in try CodecChecks.clips(rate: band.format.sampleRate) {
            let bytes = try Self.encode(audio, .init(band: band))
            let frames = Self.frames(of: bytes)
            #expect(frames.count == (audio.frameCount + band.frameSize - 1) / band.frameSize)
            let decoded = try Self.decode(bytes, band: band)
            #expect(decoded.format == band.format)
            #expect(decoded.frameCount == frames.count * band.frameSize)
            #expect(decoded.frameCount - audio.frameCount < band.frameSize)
            // Without a header to say so, the codec's delay stays in: encoder plus decoder look-ahead.
            let delay = OggTestSupport.bestLag(audio.samples, decoded.samples)
            // (CELP keeps the waveform only roughly: the correlation peak wanders by a sample or two.)
            #expect(abs(delay - (band == .wideband ? 223 : 80)) <= 2, "delay \(delay)")
            wireBytes += bytes.count
            seconds += audio.duration
        }
        print(
            "Speex \(band.rawValue) VBR q\(SpeexEncoder.Configuration(band: band).quality) (default) on LibriVox: \(Int(Double(wireBytes * 8) / seconds)) bit/s with length bytes"
        )
    }

    @Test func widebandBitRateRisesWithQualityAndTheDefaultIsTheSeedsFourteenKilobits() throws {
        let clips = try CodecChecks.clips(rate: 16_000)
        let seconds = clips.map(\.duration).reduce(0, +)
        var rates: [Int: Double] = [:]
        for quality in [2, 4, 6, 7, 8, 9, 10] {
            let bytes = try clips.map { try Self.encode($0, .init(quality: quality)).count }.reduce(0, +)
            rates[quality] = Double(bytes * 8) / seconds
        }
        let cbr = try clips.map { try Self.encode($0, .init(quality: 8, vbr: false)).count }.reduce(0, +)
        let table = rates.keys.sorted().map { "q\($0) \(Int(rates[$0]!))" }.joined(separator: ", ")
        print(
            "Speex wideband VBR bit/s on LibriVox (length bytes included): \(table); CBR q8 \(Int(Double(cbr * 8) / seconds))"
        )
        let sorted = rates.keys.sorted().map { rates[$0]! }
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0 < $1 })
        #expect((12_000...16_000).contains(rates[SpeexEncoder.Configuration().quality]!))
    }

    @Test func wordErrorRateStaysNearTheOriginal() throws {
        let original = try CodecChecks.originalWER.get()
        let speex = try CodecRoundTrip.corpusWER { try Self.decode(try Self.encode($0)) }
        print("WER original: \(original); through Speex wideband VBR q4 (default): \(speex)")
        // Speex WB q4 costs PocketSphinx about 6 WER points on 1 092 words of the long corpus (0.362
        // against 0.298, BENCHMARKS.md). On these 71 words a WER's sampling error alone is ±6 points
        // (one word is 1.4), so allow 15: a broken codec scores near 1.0.
        #expect(speex.rate <= original.rate + 0.15)
    }

    @Test func narrowbandWordErrorRateIsWithinFivePointsOfNarrowbandSpeech() throws {
        let narrowband = try CodecRoundTrip.corpusWER { try CodecRoundTrip.bandLimited($0, to: 8_000) }
        let speex = try CodecRoundTrip.corpusWER { audio in
            let bytes = try Self.encode(try CodecRoundTrip.bandLimited(audio, to: 8_000), .init(band: .narrowband))
            return try Self.decode(bytes, band: .narrowband)
        }
        print("WER band-limited to 8 kHz: \(narrowband); through Speex narrowband VBR q6 (default): \(speex)")
        #expect(speex.rate <= narrowband.rate + 0.05)
    }

    @Test func speexdecDecodesTheSameFramesRewrappedInOgg() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for band in SpeexBand.allCases {
            let audio = try CodecChecks.clips(rate: band.format.sampleRate)[0]
            let bytes = try Self.encode(audio, .init(band: band))
            let ours = try Self.decode(bytes, band: band)
            let ogg = try OggTestSupport.rewrapInOgg(Self.frames(of: bytes), band: band)
            let path = try directory.write(ogg, to: "rewrapped-\(band.rawValue).spx")
            let wav = directory.file("speexdec-\(band.rawValue).wav")
            let run = try ExternalTool.run(["speexdec", "--no-enh", path, wav])
            #expect(run.status == 0, "\(run.standardError)")
            let theirs = try CodecRoundTrip.readFile(wav)
            print(
                "speexdec on rewrapped \(band.rawValue) frames: \(theirs.frameCount) samples at \(theirs.format.sampleRate) Hz; ours \(ours.frameCount); input \(audio.frameCount)"
            )
            #expect(theirs.format == band.format)
            #expect(abs(theirs.frameCount - audio.frameCount) <= band.frameSize)
            // Same libspeex, enhancer off in both: the two decodes agree to the sample.
            #expect(theirs.frameCount == ours.frameCount)
            let identical = CodecChecks.int16(theirs.samples) == CodecChecks.int16(ours.samples)
            #expect(identical, "speexdec and our decoder differ")
        }
    }

    @Test func decodingOneByteAtATimeGivesTheSameSamples() throws {
        let audio = try CodecChecks.clips(rate: 16_000)[2]
        let bytes = try Self.encode(audio)
        let whole = try Self.decode(bytes, chunkSize: 512)
        let trickled = try Self.decode(bytes, chunkSize: 1)
        let identical = whole.samples == trickled.samples
        #expect(identical, "byte-at-a-time decoding differs")
        #expect(!whole.samples.isEmpty)
    }

    @Test func encoderEmitsAtMostOnePacketPerCallStampedWithItsFrames() throws {
        let encoder = try SpeexEncoder()
        var output = StageOutput<EncodedPacket>()
        var next = MediaTime.zero(sampleRate: 16_000)
        // 30 ms blocks: calls finish zero, one or two frames in turn.
        let blocks = Signal.blocks(of: Signal.sine(frequency: 300, seconds: 1.01, format: .wideband), frames: 480)
        for block in blocks {
            try encoder.process(block, into: &output)
            #expect(output.items.count <= 1)
            for packet in output.items {
                #expect(packet.start == next)
                #expect(Self.frames(of: packet.bytes).count * 320 == Int(packet.end.frame - packet.start.frame))
                next = packet.end
            }
            output.removeAll()
        }
        try encoder.finish(into: &output)
        #expect(output.items.count == 1)
        #expect(output.items.first?.start == next)
        #expect(output.items.first?.end == MediaTime(frame: 16_160, sampleRate: 16_000))
    }

    @Test func emptyStreamIsEmptyAndDecodesToNothing() throws {
        var encoder = try SpeexEncoder()
        let output = try encoder.finish()
        #expect(output.items.isEmpty)
        let decoded = try Self.decode([])
        #expect(decoded.frameCount == 0)
        #expect(decoded.format == .wideband)
    }

    @Test func lengthBytePromisingMoreThanTheStreamHoldsThrowsAtFinish() throws {
        let bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.2, format: .wideband))
        let frames = Self.frames(of: bytes)
        // Cut the stream 12 bytes into the last frame.
        let lastLengthByte = bytes.count - frames.last!.count - 1
        let cut = Array(bytes[..<(lastLengthByte + 13)])
        let error = try CodecChecks.decodingError(cut, try SpeexDecoder(name: "cut.speex"))
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message.contains(
                "length byte at byte \(lastLengthByte) promises \(frames.last!.count) bytes but the stream ends after 12"
            )
                == true, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("cut.speex:") == true)
    }

    @Test func zeroLengthByteThrowsAtOnce() throws {
        var bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.1, format: .wideband))
        let second = Int(bytes[0]) + 1
        bytes[second] = 0
        let error = try CodecChecks.processingError(bytes, try SpeexDecoder())
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("length byte is 0 at byte \(second)") == true, "\(String(describing: error))")
    }

    @Test func frameLibspeexRejectsIsCorrupt() throws {
        // Narrowband bit 0, then sub-mode 10 of 16: a mode libspeex has never defined.
        let error = try CodecChecks.processingError([1, 0b0101_0000], try SpeexDecoder())
        #expect(error?.code == .invalidInput)
        #expect(error?.message.contains("corrupt at byte 0") == true, "\(String(describing: error))")
    }
}
