import EarshotCodecs
import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Raw big-endian 16-bit PCM (`audio/L16`), checked against sox reading it as raw audio.
@Suite(.computing) struct L16CodecTests {
    static func encode(_ audio: AudioBuffer) throws -> [UInt8] {
        var encoder = L16Encoder(inputFormat: audio.format)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], format: AudioFormat = .wideband, chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = L16Decoder(format: format, name: "speech.l16")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    @Test func contentTypeCarriesRateAndChannels() throws {
        #expect(L16Encoder(inputFormat: .wideband).contentType == "audio/L16;rate=16000")
        #expect(L16Encoder(inputFormat: .narrowband).contentType == "audio/L16;rate=8000")
        let stereo = try AudioFormat(sampleRate: 44_100, channelCount: 2)
        #expect(L16Encoder(inputFormat: stereo).contentType == "audio/L16;rate=44100;channels=2")
    }

    @Test func speechRoundTripIsBitExactAndBigEndian() throws {
        for audio in try CodecChecks.clips(rate: 16_000) {
            let bytes = try Self.encode(audio)
            #expect(bytes.count == 2 * audio.frameCount)
            let values = CodecChecks.int16(audio.samples)
            let first = try #require(
                values.firstIndex { $0 != 0 && UInt16(bitPattern: $0) >> 8 != UInt16(bitPattern: $0) & 0xFF })
            #expect(bytes[2 * first] == UInt8(UInt16(bitPattern: values[first]) >> 8), "high byte first")
            let decoded = try Self.decode(bytes)
            #expect(decoded.frameCount == audio.frameCount)
            #expect(decoded.samples == audio.samples)
        }
    }

    @Test func stereoRoundTripKeepsTheInterleaving() throws {
        let stereo = try AudioFormat(sampleRate: 8_000, channelCount: 2)
        let left = Signal.sine(frequency: 300, peakDBFS: -6, seconds: 0.5, format: .narrowband).samples
        let right = Signal.whiteNoise(amplitude: 0.3, seconds: 0.5, format: .narrowband).samples
        let interleaved = zip(left, right).flatMap { [PCM.float(PCM.int16($0)), PCM.float(PCM.int16($1))] }
        let audio = AudioBuffer(format: stereo, samples: interleaved)
        let bytes = try Self.encode(audio)
        #expect(try Self.decode(bytes, format: stereo, chunkSize: 3).samples == interleaved)
    }

    @Test func soxReadsItAsRawBigEndianPCM() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: 16_000)[1]
        let path = try directory.write(try Self.encode(audio), to: "speech.l16")
        let sox = try CodecChecks.sox(
            path, input: ["-t", "raw", "-e", "signed", "-b", "16", "-B", "-r", "16000", "-c", "1"])
        #expect(sox.status == 0, "\(sox.messages)")
        #expect(sox.samples == CodecChecks.int16(audio.samples))
    }

    @Test func oneByteAtATimeDecodesTheSameSamples() throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[4])
        let whole = try Self.decode(bytes)
        #expect(try Self.decode(bytes, chunkSize: 1).samples == whole.samples)
        #expect(!whole.samples.isEmpty)
    }

    @Test func packetsFollowTheInputsMediaTime() throws {
        var encoder = L16Encoder(inputFormat: .narrowband)
        let block = Signal.silence(seconds: 0.1, format: .narrowband, startFrame: 8_000)
        let packet = try #require(try encoder.process(block).items.first)
        #expect(packet.start == MediaTime(frame: 8_000, sampleRate: 8_000))
        #expect(packet.end == MediaTime(frame: 8_800, sampleRate: 8_000))
        #expect(packet.bytes.count == 1_600)
    }

    @Test func emptyStreamIsNoBytes() throws {
        #expect(try Self.encode(AudioBuffer(format: .wideband)).isEmpty)
        #expect(try Self.decode([]).frameCount == 0)
    }

    @Test func oddTrailingByteFailsAtFinish() throws {
        let bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.01, format: .wideband)) + [0x12]
        let error = try #require(try CodecChecks.decodingError(bytes, L16Decoder(format: .wideband, name: "body")))
        #expect(error.code == .invalidInput)
        #expect(
            error.message
                == "body: an odd trailing byte ends the L16 stream at byte 320; expected whole 16-bit samples (2 bytes each)"
        )
        let stereo = try AudioFormat(sampleRate: 16_000, channelCount: 2)
        let partial = try #require(
            try CodecChecks.decodingError([0, 1, 0, 2, 0, 3], L16Decoder(format: stereo, name: "body")))
        #expect(partial.message.contains("ends inside a sample frame after 2 of its 4 bytes at byte 4"))
    }

    @Test func encoderRefusesOtherFormats() throws {
        var encoder = L16Encoder(inputFormat: .wideband)
        let error = #expect(throws: EarshotError.self) {
            try encoder.process(Signal.silence(seconds: 0.1, format: .narrowband))
        }
        #expect(error?.code == .unsupportedFormat)
    }
}
