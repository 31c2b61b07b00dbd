import EarshotCodecs
import EarshotCore
import EarshotLab
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// AMR-NB through opencore-amrnb, on the LibriVox speech at 8 kHz, checked by ffmpeg and sox.
@Suite(.computing) struct AMRCodecTests {
    static let magic = Array("#!AMR\n".utf8)

    static func encode(_ audio: AudioBuffer, configuration: AMREncoder.Configuration = .init()) throws -> [UInt8] {
        var encoder = try AMREncoder(configuration: configuration)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = try AMRDecoder(name: "speech.amr")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    @Test func speechRoundTripKeepsLengthAtTwelvePointTwoKilobits() throws {
        var speechBytes = 0
        var seconds = 0.0
        var correlations: [Double] = []
        for audio in try CodecChecks.clips(rate: 8_000) {
            let bytes = try Self.encode(audio)
            #expect(Array(bytes.prefix(6)) == Self.magic)
            let frames = (audio.frameCount + 159) / 160
            // Every MR122 frame is a TOC byte (FT 7, Q 1) and 31 bytes of speech bits.
            #expect(bytes.count == 6 + 32 * frames)
            #expect(stride(from: 6, to: bytes.count, by: 32).allSatisfy { bytes[$0] == 0x3C })
            let decoded = try Self.decode(bytes)
            #expect(decoded.format == .narrowband)
            #expect(decoded.frameCount == 160 * frames)
            #expect(decoded.frameCount - audio.frameCount < 160)
            // ACELP keeps the spectral envelope, not the waveform: compare loudness frame by frame, after
            // the 40-sample (5 ms look-ahead) delay the codec puts between input and output.
            let correlation = Self.envelopeCorrelation(audio.samples, decoded.samples, delay: 40)
            #expect(correlation > 0.9, "20 ms energy envelope correlation \(correlation)")
            correlations.append(correlation)
            speechBytes += bytes.count - 6
            seconds += Double(160 * frames) / 8_000
        }
        let bitRate = Double(speechBytes * 8) / seconds
        print(
            "AMR-NB MR122 measured bit rate: \(bitRate) bit/s (12 200 speech + TOC byte and padding); envelope correlations \(correlations)"
        )
        #expect(abs(bitRate - 12_800) < 1e-6)
    }

    @Test func wordErrorRateIsWithinFivePointsOfNarrowbandSpeech() throws {
        let narrowband = try CodecRoundTrip.corpusWER { try CodecRoundTrip.bandLimited($0, to: 8_000) }
        let amr = try CodecRoundTrip.corpusWER { audio in
            let bytes = try Self.encode(try CodecRoundTrip.bandLimited(audio, to: 8_000))
            return try Self.decode(bytes)
        }
        print("WER, speech band-limited to 8 kHz: \(narrowband); through AMR-NB 12.2: \(amr)")
        #expect(amr.rate <= narrowband.rate + 0.05)
    }

    @Test func ffmpegAndSoxDecodeOurFilesToTheSameLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: 8_000)[1]
        let bytes = try Self.encode(audio)
        let path = try directory.write(bytes, to: "speech.amr")
        let ours = try Self.decode(bytes)
        let ffmpeg = try CodecChecks.ffmpeg(path)
        #expect(ffmpeg.status == 0, "\(ffmpeg.messages)")
        #expect(abs(ffmpeg.samples.count - ours.frameCount) <= 160)
        let sox = try CodecChecks.sox(path)
        #expect(sox.status == 0, "\(sox.messages)")
        #expect(abs(sox.samples.count - ours.frameCount) <= 160)
        // sox wraps opencore-amrnb too, so it must agree to the sample; ffmpeg has its own decoder.
        let mine = CodecChecks.int16(ours.samples)
        #expect(sox.samples == mine)
        let agreement = Self.signalToNoise(ffmpeg.samples.map(Float.init), mine.map(Float.init))
        print(
            "AMR: ffmpeg decoded \(ffmpeg.samples.count) samples, sox \(sox.samples.count), ours \(ours.frameCount); ffmpeg's native decoder is \(agreement) dB from ours"
        )
        #expect(agreement > 25)
    }

    /// Ratio of the energy of `reference` to that of its difference from `other`, in dB.
    static func signalToNoise(_ reference: [Float], _ other: [Float]) -> Double {
        var signal = 0.0
        var noise = 0.0
        for (x, y) in zip(reference, other) {
            signal += Double(x) * Double(x)
            noise += Double(x - y) * Double(x - y)
        }
        return 10 * log10(signal / max(noise, .leastNormalMagnitude))
    }

    /// Correlation of the 20 ms energy envelopes (in dB) of `input` and `decoded` shifted back by `delay`.
    static func envelopeCorrelation(_ input: [Float], _ decoded: [Float], delay: Int) -> Double {
        func envelope(_ samples: ArraySlice<Float>) -> [Double] {
            stride(from: samples.startIndex, to: samples.endIndex - 159, by: 160).map { start in
                let energy = samples[start..<start + 160].reduce(0.0) { $0 + Double($1) * Double($1) } / 160
                return 10 * log10(energy + 1e-9)
            }
        }
        let a = envelope(input[...])
        let b = envelope(decoded.dropFirst(delay))
        let n = min(a.count, b.count)
        let meanA = a.prefix(n).reduce(0, +) / Double(n)
        let meanB = b.prefix(n).reduce(0, +) / Double(n)
        var product = 0.0
        var squareA = 0.0
        var squareB = 0.0
        for k in 0..<n {
            product += (a[k] - meanA) * (b[k] - meanB)
            squareA += (a[k] - meanA) * (a[k] - meanA)
            squareB += (b[k] - meanB) * (b[k] - meanB)
        }
        return product / (squareA * squareB).squareRoot()
    }

    @Test func oneByteAtATimeDecodesTheSameSamples() throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 8_000)[0])
        let whole = try Self.decode(bytes, chunkSize: 512)
        let trickled = try Self.decode(bytes, chunkSize: 1)
        #expect(trickled.samples == whole.samples)
        #expect(!whole.samples.isEmpty)
    }

    @Test func packetsAreContiguousAndTheMagicComesFirst() throws {
        let audio = Signal.whiteNoise(seconds: 1, format: .narrowband)
        let encoder = try AMREncoder()
        var output = StageOutput<EncodedPacket>()
        var packets: [EncodedPacket] = []
        for block in Signal.blocks(of: audio, frames: 250) {
            try encoder.process(block, into: &output)
            #expect(output.items.count <= 1)
            packets += output.items
            output.removeAll()
        }
        try encoder.finish(into: &output)
        packets += output.items
        #expect(Array(packets[0].bytes.prefix(6)) == Self.magic)
        // 250 frames in: one 160-sample frame the first time, then one or two, each packet stamped with them.
        #expect(packets[0].start == .zero(sampleRate: 8_000))
        #expect(packets[0].end == MediaTime(frame: 160, sampleRate: 8_000))
        for (previous, next) in zip(packets, packets.dropFirst()) { #expect(previous.end == next.start) }
        #expect(packets.last?.end == MediaTime(frame: 8_000, sampleRate: 8_000))
        #expect(packets.reduce(0) { $0 + $1.bytes.count } == 6 + 50 * 32)
    }

    @Test(arguments: AMRMode.allCases)
    func everyModeWritesFramesOfItsSize(mode: AMRMode) throws {
        let audio = try CodecChecks.clips(rate: 8_000)[0]
        let bytes = try Self.encode(audio, configuration: .init(mode: mode))
        let frames = (audio.frameCount + 159) / 160
        #expect(bytes.count == 6 + mode.frameByteCount * frames)
        #expect(Int(bytes[6] >> 3) == mode.rawValue)
        #expect(try Self.decode(bytes).frameCount == 160 * frames)
    }

    @Test func discontinuousTransmissionSendsSmallFramesInSilence() throws {
        let silence = Signal.silence(seconds: 2, format: .narrowband)
        let bytes = try Self.encode(silence, configuration: .init(discontinuousTransmission: true))
        // 100 frames of silence: after the first few speech frames, SID (6 bytes) and NO_DATA (1 byte) ones.
        #expect(bytes.count < 6 + 100 * 32 / 4)
        #expect(try Self.decode(bytes).frameCount == 16_000)
    }

    @Test func emptyStreamIsJustTheMagic() throws {
        let bytes = try Self.encode(AudioBuffer(format: .narrowband))
        #expect(bytes == Self.magic)
        #expect(try Self.decode(bytes).frameCount == 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ffmpeg = try CodecChecks.ffmpeg(try directory.write(bytes, to: "empty.amr"))
        print("ffmpeg on an empty AMR file: status \(ffmpeg.status), \(ffmpeg.messages)")
        #expect(ffmpeg.samples.isEmpty)
        #expect(ffmpeg.status == 0)
    }

    @Test func encoderRefusesWidebandInput() throws {
        let atCreation = #expect(throws: EarshotError.self) { try AMREncoder(inputFormat: .wideband) }
        #expect(atCreation?.code == .unsupportedFormat)
        #expect(atCreation?.message.contains("expected 8000 Hz mono") == true)
        var encoder = try AMREncoder()
        let perBuffer = #expect(throws: EarshotError.self) {
            try encoder.process(Signal.silence(seconds: 0.1, format: .wideband))
        }
        #expect(perBuffer?.code == .unsupportedFormat)
    }

    @Test func wrongMagicFailsAtByteZero() throws {
        let error = try #require(
            try CodecChecks.processingError(Array("RIFF....WAVEfmt ".utf8), try AMRDecoder(name: "x.amr")))
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix("x.amr: not an AMR-NB file"))
        #expect(error.message.contains("at byte 0; expected the magic \"#!AMR\\n\""))
        let wideband = try #require(
            try CodecChecks.processingError(Array("#!AMR-WB\n".utf8), try AMRDecoder(name: "x.amr")))
        #expect(wideband.message.contains("AMR-WB"))
    }

    @Test func invalidFrameTypeFailsAtItsOffset() throws {
        var bytes = try Self.encode(Signal.whiteNoise(seconds: 0.04, format: .narrowband))
        #expect(bytes.count == 6 + 2 * 32)
        bytes[6 + 32] = 9 << 3 | 0x04  // a GSM-EFR SID frame type, which no AMR-NB file holds
        let error = try #require(try CodecChecks.decodingError(bytes, try AMRDecoder(name: "x.amr"), chunkSize: 7))
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("invalid AMR-NB frame type 9 (GSM-EFR SID)"))
        #expect(error.message.contains("at byte 38;"))
    }

    @Test func truncatedLastFrameFailsAtFinish() throws {
        let bytes = try Self.encode(Signal.whiteNoise(seconds: 0.1, format: .narrowband))
        var decoder = try AMRDecoder(name: "cut.amr")
        var output = try decoder.process(Array(bytes.dropLast(5)))
        #expect(output.items.first?.frameCount == 4 * 160)
        let error = #expect(throws: EarshotError.self) { try decoder.finish(into: &output) }
        #expect(error?.message.contains("at byte \(6 + 4 * 32);") == true)
        #expect(error?.message.contains("after 27 of its 32 bytes") == true)
        #expect(try CodecChecks.decodingError(Array(Self.magic.prefix(3)), try AMRDecoder(name: "cut.amr")) != nil)
    }
}
