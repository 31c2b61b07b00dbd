import EarshotCodecs
import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// WAV streams put together chunk by chunk, for layouts our encoder never writes.
enum RIFF {
    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    static func le32(_ value: UInt32) -> [UInt8] { le16(Int(value & 0xFFFF)) + le16(Int(value >> 16)) }

    /// A chunk: id, size (the body's unless given), body, and the pad byte an odd body needs.
    static func chunk(_ id: String, _ body: [UInt8], size: UInt32? = nil) -> [UInt8] {
        Array(id.utf8) + le32(size ?? UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    static func wav(_ chunks: [UInt8]..., riffSize: UInt32 = 0xFFFF_FFFF) -> [UInt8] {
        Array("RIFF".utf8) + le32(riffSize) + Array("WAVE".utf8) + chunks.flatMap { $0 }
    }

    /// A `fmt ` body: tag, channels, rate, byte rate, block align, bits, then `extra`.
    static func format(tag: Int = 1, channels: Int = 1, rate: Int = 16_000, bits: Int = 16, extra: [UInt8] = [])
        -> [UInt8]
    {
        le16(tag) + le16(channels) + le32(UInt32(rate)) + le32(UInt32(rate * channels * bits / 8))
            + le16(channels * bits / 8) + le16(bits) + extra
    }

    static func littleEndian(_ samples: [Int16]) -> [UInt8] { samples.flatMap { le16(Int(UInt16(bitPattern: $0))) } }
}

/// Streaming WAV, as the Speech SDK sends it, through our encoder and decoder, ffmpeg and sox.
@Suite(.computing) struct WAVCodecTests {
    static func encode(_ audio: AudioBuffer) throws -> [UInt8] {
        var encoder = try WAVEncoder(inputFormat: audio.format)
        return try CodecRoundTrip.encode(audio, with: &encoder)
    }

    static func decode(_ bytes: [UInt8], chunkSize: Int = 512) throws -> AudioBuffer {
        var decoder = WAVDecoder(name: "speech.wav")
        return try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
    }

    @Test(arguments: [8_000, 16_000])
    func speechRoundTripIsBitExact(rate: Int) throws {
        for audio in try CodecChecks.clips(rate: rate) {
            let bytes = try Self.encode(audio)
            #expect(bytes.count == 44 + 2 * audio.frameCount)
            #expect(Array(bytes[0..<8]) == Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
            #expect(Array(bytes[36..<44]) == Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
            let decoded = try Self.decode(bytes)
            #expect(decoded.format == audio.format)
            #expect(decoded.frameCount == audio.frameCount)
            #expect(CodecChecks.int16(decoded.samples) == CodecChecks.int16(audio.samples))
            #expect(decoded.samples == CodecChecks.int16(audio.samples).map(PCM.float))
        }
    }

    @Test(arguments: [8_000, 16_000])
    func ffmpegAndSoxReadTheStreamingWAVToItsEnd(rate: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: rate)[2]
        let bytes = try Self.encode(audio)
        let path = try directory.write(bytes, to: "streaming.wav")
        let expected = CodecChecks.int16(audio.samples)
        let ffmpeg = try CodecChecks.ffmpeg(path)
        let sox = try CodecChecks.sox(path)
        // As the service would get it: through a pipe, with no file size to fall back on.
        let piped = try ExternalTool.run(
            ["sox", "-t", "wav", "-", "-t", "raw", "-e", "signed", "-b", "16", "-L", "-"], standardInput: Data(bytes))
        print(
            "streaming WAV at \(rate) Hz: ffmpeg said \(ffmpeg.messages.debugDescription); sox said \(sox.messages.debugDescription)"
        )
        #expect(ffmpeg.status == 0 && sox.status == 0 && piped.status == 0)
        #expect(ffmpeg.samples == expected)
        #expect(sox.samples == expected)
        #expect(piped.standardOutput.count == 2 * expected.count)
    }

    @Test func patchingTheFinalizedHeaderMakesAnExactFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let audio = try CodecChecks.clips(rate: 16_000)[3]
        var encoder = try WAVEncoder(inputFormat: .wideband)
        var bytes = try CodecRoundTrip.encode(audio, with: &encoder)
        let header = try #require(encoder.finalizedHeader())
        #expect(header.count == WAVEncoder.headerSize)
        #expect(encoder.dataByteCount == Int64(2 * audio.frameCount))
        bytes.replaceSubrange(0..<WAVEncoder.headerSize, with: header)
        #expect(Array(bytes[4..<8]) == RIFF.le32(UInt32(36 + 2 * audio.frameCount)))
        let path = try directory.write(bytes, to: "exact.wav")
        let sox = try CodecChecks.sox(path)
        #expect(sox.messages.isEmpty, "a complete header leaves sox nothing to warn about")
        #expect(sox.samples == CodecChecks.int16(audio.samples))
        let ffmpeg = try CodecChecks.ffmpeg(path)
        #expect(
            !ffmpeg.messages.contains("wav data size") && !ffmpeg.messages.contains("corrupt"), "\(ffmpeg.messages)")
        #expect(ffmpeg.samples.count == audio.frameCount)
        // libsndfile, through the file source, agrees too.
        #expect(try CodecRoundTrip.readFile(path).samples == audio.samples)
        var decoder = WAVDecoder(name: "exact.wav")
        _ = try CodecRoundTrip.decode(bytes, with: &decoder)
        #expect(decoder.declaredDataSize == Int64(2 * audio.frameCount))
    }

    @Test func oneByteAtATimeDecodesTheSameSamples() throws {
        let audio = try CodecChecks.clips(rate: 8_000)[4]
        let bytes = try Self.encode(audio)
        let whole = try Self.decode(bytes, chunkSize: 512)
        #expect(try Self.decode(bytes, chunkSize: 1).samples == whole.samples)
        #expect(try Self.decode(bytes, chunkSize: 3).samples == whole.samples)
        #expect(whole.frameCount == audio.frameCount)
    }

    @Test(arguments: [1, 7, 512])
    func chunksThatAreNotReadAreSkippedWithTheirPadding(chunkSize: Int) throws {
        let samples: [Int16] = [0, 1, -1, 32_767, -32_768, 1_000, -1_000, 12_345]
        let bytes = RIFF.wav(
            RIFF.chunk("LIST", Array("INFOx".utf8)),  // odd size: a pad byte follows
            RIFF.chunk("fmt ", RIFF.format(extra: [0, 0])),  // 18 bytes, with cbSize
            RIFF.chunk("fact", RIFF.le32(8)),
            RIFF.chunk("data", RIFF.littleEndian(samples)),
            RIFF.chunk("LIST", Array("trailing chunk, not audio".utf8)))
        var decoder = WAVDecoder(name: "layout.wav")
        let decoded = try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize)
        #expect(decoded.samples == samples.map(PCM.float))
        #expect(decoder.declaredDataSize == 16)
    }

    @Test func extensibleFormatWithThePCMSubformatIsRead() throws {
        let guid: [UInt8] = [1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
        let extra = RIFF.le16(22) + RIFF.le16(16) + RIFF.le32(3) + guid
        let samples: [Int16] = [100, -100, 200, -200, 300, -300]
        let bytes = RIFF.wav(
            RIFF.chunk("fmt ", RIFF.format(tag: 0xFFFE, channels: 2, rate: 8_000, extra: extra)),
            RIFF.chunk("data", RIFF.littleEndian(samples)))
        let decoded = try Self.decode(bytes, chunkSize: 5)
        #expect(decoded.format == (try AudioFormat(sampleRate: 8_000, channelCount: 2)))
        #expect(decoded.samples == samples.map(PCM.float))
    }

    @Test func readsWhatFFmpegWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try LibriVoxClips.load()[0]
        let path = directory.file("ffmpeg.wav")
        // ffmpeg adds a LIST/INFO chunk before the data.
        let result = try ExternalTool.run(["ffmpeg", "-nostdin", "-v", "error", "-i", clip.path, "-ac", "2", path])
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(String(decoding: bytes.prefix(256), as: UTF8.self).contains("LIST"))
        let decoded = try Self.decode(bytes)
        let reference = try CodecRoundTrip.readFile(path)
        #expect(decoded.format == reference.format)
        #expect(decoded.samples == reference.samples)
    }

    @Test func emptyStreamIsAHeaderThatEveryoneReadsAsEmpty() throws {
        let bytes = try Self.encode(AudioBuffer(format: .narrowband))
        #expect(bytes.count == 44)
        #expect(try Self.decode(bytes).frameCount == 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(bytes, to: "empty.wav")
        let ffmpeg = try CodecChecks.ffmpeg(path)
        let sox = try CodecChecks.sox(path)
        #expect(ffmpeg.status == 0 && ffmpeg.samples.isEmpty, "\(ffmpeg.messages)")
        #expect(sox.status == 0 && sox.samples.isEmpty, "\(sox.messages)")
    }

    // MARK: Bad input

    static func error(_ bytes: [UInt8], chunkSize: Int = 512) throws -> EarshotError {
        try #require(try CodecChecks.decodingError(bytes, WAVDecoder(name: "bad.wav"), chunkSize: chunkSize))
    }

    @Test func wrongMagicFailsWhereItIsWrong() throws {
        let rifx = try Self.error(Array("RIFX\u{0}\u{0}\u{0}\u{0}WAVE".utf8), chunkSize: 1)
        #expect(rifx.code == .invalidInput)
        #expect(rifx.message == "bad.wav: not a WAV stream: \"RIFX\" at byte 0; expected \"RIFF\"")
        let avi = try Self.error(Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8))
        #expect(avi.message.hasSuffix("at byte 8; expected \"WAVE\" after the RIFF size"))
    }

    @Test func dataChunkLongerThanTheStreamFailsAtFinish() throws {
        let bytes = RIFF.wav(
            RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", RIFF.littleEndian([1, 2, 3]), size: 1_000))
        let error = try Self.error(bytes)
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("the data chunk at byte 36 states 1000 bytes but the stream ends after 6"))
        #expect(error.message.hasSuffix("expected 994 more bytes (a truncated WAV)"))
    }

    @Test func floatingPointWAVIsNamedAndRefused() throws {
        let bytes = RIFF.wav(RIFF.chunk("fmt ", RIFF.format(tag: 3, bits: 32)), RIFF.chunk("data", [0, 0, 0, 0]))
        let error = try Self.error(bytes)
        #expect(error.code == .unsupportedFormat)
        #expect(
            error.message
                == "bad.wav: unsupported WAV encoding: format tag 3 (IEEE float) at byte 20; expected 16-bit PCM (format tag 1)"
        )
    }

    @Test func headerFieldsAreCheckedBeforeUse() throws {
        let short = try Self.error(RIFF.wav(RIFF.chunk("fmt ", Array(RIFF.format().prefix(12)))))
        #expect(short.message.contains("a fmt chunk of only 12 bytes at byte 16; expected at least 16 bytes"))
        let dataFirst = try Self.error(RIFF.wav(RIFF.chunk("data", [0, 0]), RIFF.chunk("fmt ", RIFF.format())))
        #expect(dataFirst.message.contains("a data chunk before the fmt chunk at byte 12"))
        let noChannels = try Self.error(RIFF.wav(RIFF.chunk("fmt ", RIFF.format(channels: 0))))
        #expect(noChannels.message.contains("0 channels at byte 22"))
        let eightBit = try Self.error(RIFF.wav(RIFF.chunk("fmt ", RIFF.format(bits: 8))))
        #expect(eightBit.code == .unsupportedFormat && eightBit.message.contains("8-bit PCM"))
        let noRate = try Self.error(RIFF.wav(RIFF.chunk("fmt ", RIFF.format(rate: 0))))
        #expect(noRate.code == .unsupportedFormat && noRate.message.contains("sample rate 0 Hz at byte 24"))
        let garbage = try Self.error(RIFF.wav([0x00, 0xFF, 0x10, 0x20, 1, 0, 0, 0]))
        #expect(garbage.message.contains("a chunk id that is not ASCII (00 FF 10 20) at byte 12"))
    }

    @Test func hugeChunkSizesAreSkippedNotBuffered() throws {
        // A 4 GB fmt chunk (its first 16 bytes valid) and a 4 GB LIST: nothing is allocated for either,
        // and the stream simply ends before any samples.
        let fmt = try Self.error(
            RIFF.wav(Array("fmt ".utf8) + RIFF.le32(0xFFFF_FFF0) + RIFF.format() + [UInt8](repeating: 7, count: 4_096)))
        #expect(fmt.message.contains("the stream ends before any samples at byte 4132"))
        let list = try Self.error(
            RIFF.wav(Array("LIST".utf8) + RIFF.le32(0xFFFF_FFFF) + [UInt8](repeating: 1, count: 100_000)))
        #expect(
            list.message.contains(
                "before any samples at byte 100020; expected a RIFF/WAVE header, a fmt chunk and a data chunk"))
    }

    @Test func oddTrailingByteFailsAtFinish() throws {
        let bytes = try Self.encode(Signal.sine(frequency: 440, seconds: 0.01, format: .narrowband)) + [0x7F]
        let error = try Self.error(bytes)
        #expect(
            error.message
                == "bad.wav: an odd trailing byte in 16-bit data at byte 204; expected whole 16-bit sample frames")
    }
}

/// What a writer on a pipe puts in the header: a guessed length, sox's 0x7FFFF000, RF64.
@Suite(.computing) struct WAVStreamLengthTests {
    static let samples: [Int16] = [100, -200, 300, -400, 500, -600]

    static func decode(_ bytes: [UInt8], lengths: WAVDecoder.Lengths) throws -> [Int16] {
        var decoder = WAVDecoder(name: "stdin", lengths: lengths)
        return CodecChecks.int16(try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: 5).samples)
    }

    @Test func aGuessedLengthIsReadToTheEndOfTheStreamAsAnEstimate() throws {
        let data = RIFF.littleEndian(Self.samples)
        let short = RIFF.wav(RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", data, size: 4), riffSize: 40)
        #expect(try Self.decode(short, lengths: .exact) == Array(Self.samples.prefix(2)))  // trusted: 4 bytes
        #expect(try Self.decode(short, lengths: .estimated) == Self.samples)
        let long = RIFF.wav(RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", data, size: 1_000), riffSize: 1_036)
        #expect(throws: EarshotError.self) { try Self.decode(long, lengths: .exact) }  // truncated
        #expect(try Self.decode(long, lengths: .estimated) == Self.samples)
        #expect(try Self.decode(long + [0x7F], lengths: .estimated) == Self.samples, "a cut last frame is dropped")
    }

    @Test func aStreamSecondsShortOfItsStatedLengthIsTruncatedEvenAsAnEstimate() throws {
        // Two seconds stated at 16 kHz, one second sent: no writer's rounding is that far out.
        let second = [Int16](repeating: 7, count: 16_000)
        let data = RIFF.littleEndian(second)
        let cut = RIFF.wav(RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", data, size: 64_000))
        #expect {
            try Self.decode(cut, lengths: .estimated)
        } throws: { error in
            "\(error)".contains("states 64000 bytes (2.0 s) but the stream ends after 32000 of them (1.0 s)")
        }
        // A quarter of a second short is within a guess.
        let close = RIFF.wav(RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", data, size: 40_000))
        #expect(try Self.decode(close, lengths: .estimated) == second)
    }

    @Test func soxsUnknownLengthAndRF64ReadToTheEnd() throws {
        let data = RIFF.littleEndian(Self.samples)
        let sox = RIFF.wav(RIFF.chunk("fmt ", RIFF.format()), RIFF.chunk("data", data, size: 0x7FFF_F000))
        #expect(try Self.decode(sox, lengths: .exact) == Self.samples)
        let riff = RIFF.wav(
            RIFF.chunk("ds64", [UInt8](repeating: 0, count: 28)), RIFF.chunk("fmt ", RIFF.format()),
            RIFF.chunk("data", data, size: 0xFFFF_FFFF))
        let rf64 = Array("RF64".utf8) + riff.dropFirst(4)
        #expect(CodecFormat.sniff(rf64) == .wav)
        #expect(try Self.decode(rf64, lengths: .exact) == Self.samples)
        let bogus = Array("RF6F".utf8) + riff.dropFirst(4)
        #expect(throws: EarshotError.self) { try Self.decode(bogus, lengths: .exact) }
    }
}
