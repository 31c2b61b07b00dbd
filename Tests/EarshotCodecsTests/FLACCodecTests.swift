import EarshotCodecs
import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// FLAC through libFLAC, streamed both ways, checked against ffmpeg's and sox's FLAC.
@Suite(.computing) struct FLACCodecTests {
    static func encode(_ audio: AudioBuffer, configuration: FLACEncoder.Configuration = .init()) throws -> [UInt8] {
        var encoder = try FLACEncoder(inputFormat: audio.format, configuration: configuration)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = try FLACDecoder(name: "speech.flac")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    @Test(arguments: [8_000, 16_000])
    func speechRoundTripIsBitExact(rate: Int) throws {
        var encodedBytes = 0
        var rawBytes = 0
        for audio in try CodecChecks.clips(rate: rate) {
            let bytes = try Self.encode(audio)
            #expect(Array(bytes.prefix(4)) == Array("fLaC".utf8))
            let decoded = try Self.decode(bytes)
            #expect(decoded.format == audio.format)
            #expect(decoded.frameCount == audio.frameCount)
            #expect(decoded.samples == CodecChecks.int16(audio.samples).map(PCM.float))
            encodedBytes += bytes.count
            rawBytes += 2 * audio.frameCount
        }
        print(
            "FLAC level 5 at \(rate) Hz: \(encodedBytes) bytes for \(rawBytes) of 16-bit PCM (\(Double(encodedBytes) / Double(rawBytes)))"
        )
        #expect(encodedBytes < rawBytes)
    }

    @Test func ffmpegAndSoxDecodeOurStreamBitExactly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: 16_000)[0]
        let path = try directory.write(try Self.encode(audio), to: "speech.flac")
        let expected = CodecChecks.int16(audio.samples)
        let ffmpeg = try CodecChecks.ffmpeg(path)
        let sox = try CodecChecks.sox(path)
        print(
            "FLAC with unknown length: ffmpeg said \(ffmpeg.messages.debugDescription); sox said \(sox.messages.debugDescription)"
        )
        #expect(ffmpeg.status == 0 && sox.status == 0)
        #expect(ffmpeg.samples == expected)
        #expect(sox.samples == expected)
    }

    @Test(arguments: [1, 7, 4_096, 1 << 20])
    func anyChunkingDecodesTheSameSamples(chunkSize: Int) throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[4])
        let reference = try Self.decode(bytes, chunkSize: 512)
        #expect(try Self.decode(bytes, chunkSize: chunkSize).samples == reference.samples)
        #expect(!reference.samples.isEmpty)
    }

    @Test(arguments: [
        ["sox", "<in>", "-b", "16", "<out>"],
        ["ffmpeg", "-nostdin", "-v", "error", "-i", "<in>", "<out>"],
        ["sox", "<in>", "-b", "24", "<out>"],
    ])
    func decodesOtherEncodersFiles(command: [String]) throws {
        // sox writes a SEEKTABLE and PADDING, ffmpeg its own encoder's frames and a VORBIS_COMMENT:
        // blocks skipped unread, a bit depth other than 16, frames libFLAC did not make.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try LibriVoxClips.load()[2]
        let path = directory.file("other.flac")
        let result = try ExternalTool.run(command.map { $0 == "<in>" ? clip.path : $0 == "<out>" ? path : $0 })
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let decoded = try Self.decode(bytes, chunkSize: 333)
        let original = try CodecRoundTrip.readFile(clip.path)
        // 24-bit values are the 16-bit ones shifted left by 8: the same floats.
        #expect(decoded.samples == original.samples)
    }

    @Test func emptyStreamIsJustTheMetadata() throws {
        let bytes = try Self.encode(AudioBuffer(format: .wideband))
        #expect(Array(bytes.prefix(4)) == Array("fLaC".utf8))
        #expect(try Self.decode(bytes).frameCount == 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ffmpeg = try CodecChecks.ffmpeg(try directory.write(bytes, to: "empty.flac"))
        print("ffmpeg on an empty FLAC stream: status \(ffmpeg.status), \(ffmpeg.messages.debugDescription)")
        #expect(ffmpeg.samples.isEmpty)
        #expect(ffmpeg.status == 0)
    }

    @Test func compressionLevelsAndBlockSizesStayLossless() throws {
        let audio = try CodecChecks.clips(rate: 16_000)[1]
        let expected = CodecChecks.int16(audio.samples).map(PCM.float)
        var sizes: [Int] = []
        for configuration in [
            FLACEncoder.Configuration(compressionLevel: 0), .init(compressionLevel: 8), .init(blockSize: 320),
        ] {
            let bytes = try Self.encode(audio, configuration: configuration)
            #expect(try Self.decode(bytes, chunkSize: 100).samples == expected)
            sizes.append(bytes.count)
        }
        #expect(sizes[1] < sizes[0])
        let error = #expect(throws: EarshotError.self) {
            try FLACEncoder(inputFormat: .wideband, configuration: .init(compressionLevel: 9))
        }
        #expect(error?.code == .invalidParameter)
    }

    @Test func packetsCarryWholeFramesAndTheirMediaTime() throws {
        let encoder = try FLACEncoder(inputFormat: .wideband, configuration: .init(blockSize: 1_600))
        var output = StageOutput<EncodedPacket>()
        var packets: [EncodedPacket] = []
        for block in Signal.blocks(of: Signal.whiteNoise(seconds: 1, format: .wideband), frames: 1_000) {
            try encoder.process(block, into: &output)
            #expect(output.items.count <= 1)
            packets += output.items
            output.removeAll()
        }
        try encoder.finish(into: &output)
        packets += output.items
        // The metadata alone first (no frame is done after 1000 samples), then 1600-sample frames.
        #expect(packets[0].start == packets[0].end)
        #expect(Array(packets[0].bytes.prefix(4)) == Array("fLaC".utf8))
        for (previous, next) in zip(packets, packets.dropFirst()) { #expect(previous.end == next.start) }
        #expect(packets.dropFirst().allSatisfy { ($0.end.frame - $0.start.frame) % 1_600 == 0 })
        #expect(packets.last?.end == MediaTime(frame: 16_000, sampleRate: 16_000))
    }

    @Test func framesAreDecodedInTheCallThatCompletesThem() throws {
        // Fed the encoder's packets as they come out (whole frames each, as an upload delivers them when
        // chunks are not cut), the decoder has every sample of a packet by the end of the call that
        // brought it: no frame waits for the next one, not even a tiny frame of silence after speech.
        let speech = try CodecChecks.clips(rate: 16_000)[0]
        let audio = AudioBuffer(
            format: .wideband, samples: speech.samples + Signal.silence(seconds: 1, format: .wideband).samples)
        let encoder = try FLACEncoder(inputFormat: .wideband, configuration: .init(blockSize: 1_024))
        let decoder = try FLACDecoder(name: "live.flac")
        var packets = StageOutput<EncodedPacket>()
        var decoded = StageOutput<AudioBuffer>()
        var samples = 0
        for block in Signal.blocks(of: audio, frames: 1_600) {
            try encoder.process(block, into: &packets)
            for packet in packets.items {
                try decoder.process(packet.bytes, into: &decoded)
                samples += decoded.items.reduce(0) { $0 + $1.frameCount }
                decoded.removeAll()
                #expect(samples == Int(packet.end.frame))
            }
            packets.removeAll()
        }
        try encoder.finish(into: &packets)
        for packet in packets.items { try decoder.process(packet.bytes, into: &decoded) }
        try decoder.finish(into: &decoded)
        samples += decoded.items.reduce(0) { $0 + $1.frameCount }
        #expect(samples == audio.frameCount)
    }

    // MARK: Bad input

    static func error(_ bytes: [UInt8], chunkSize: Int = 512) throws -> EarshotError {
        try #require(try CodecChecks.decodingError(bytes, try FLACDecoder(name: "bad.flac"), chunkSize: chunkSize))
    }

    @Test func wrongMagicFailsAtByteZero() throws {
        let error = try Self.error(Array("OggS\u{0}\u{2}".utf8))
        #expect(error.code == .invalidInput)
        #expect(error.message == "bad.flac: not a FLAC stream: byte 0 is 0x4F at byte 0; expected the marker \"fLaC\"")
    }

    @Test(arguments: [1, 512])
    func truncatedStreamFailsAtFinish(chunkSize: Int) throws {
        let bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[3])
        let cut = try Self.error(Array(bytes.dropLast(100)), chunkSize: chunkSize)
        #expect(cut.code == .invalidInput)
        #expect(cut.message.contains("the stream ends inside a frame"))
        #expect(cut.message.hasSuffix("expected the rest of the frame (a truncated FLAC stream)"))
        let header = try Self.error(Array(bytes.prefix(20)), chunkSize: chunkSize)
        #expect(
            header.message
                == "bad.flac: the stream ends inside the FLAC header at byte 20; expected the rest of the metadata blocks"
        )
    }

    @Test func corruptFrameFailsAtItsOffset() throws {
        var bytes = try Self.encode(try CodecChecks.clips(rate: 16_000)[3])
        bytes[bytes.count / 2] ^= 0x55
        let error = try Self.error(bytes)
        #expect(error.code == .invalidInput)
        print("corrupt FLAC frame: \(error.message)")
        #expect(error.message.contains("expected a valid FLAC frame"))
        let good = try Self.encode(Signal.sine(frequency: 440, seconds: 0.5, format: .wideband))
        let trailing = try Self.error(good + Array("ID3 tag, not a frame".utf8))
        #expect(
            trailing.message
                == "bad.flac: bytes that are not a FLAC frame (lost sync) at byte \(good.count); expected a valid FLAC frame"
        )
    }

    @Test func streamInfoIsValidatedBeforeUse() throws {
        var bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.5, format: .wideband))
        // Bits per sample − 1 is the low bit of byte 20 and the high nibble of byte 21: make it 32.
        bytes[20] |= 0x01
        bytes[21] |= 0xF0
        let deep = try Self.error(bytes)
        #expect(deep.code == .unsupportedFormat)
        #expect(deep.message == "bad.flac: 32-bit FLAC at byte 20; expected 8–24 bits per sample")
        var notFirst = bytes
        notFirst[4] = 0x04  // a VORBIS_COMMENT where STREAMINFO must be
        let order = try Self.error(notFirst)
        #expect(order.message.contains("the first metadata block has type 4 and length 34 at byte 4"))
    }
}
