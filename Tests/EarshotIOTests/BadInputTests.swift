import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Opens and reads `path`, returning the error that fails it.
private func openingError(_ path: String, raw: RawPCMFormat? = nil) throws -> EarshotError? {
    try thrownEarshotError {
        var source = try AudioInput.open(path: path, raw: raw)
        while try source.read() != nil {}
    }
}

@Suite(.computing) struct BadInputTests {
    @Test func missingFile() throws {
        let error = try #require(try openingError("/nonexistent/speech.wav"))
        #expect(error.code == .invalidInput)
        #expect(
            error.message == "/nonexistent/speech.wav: cannot open (No such file or directory); expected an audio file")
    }

    @Test func directory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = try #require(try openingError(directory.path))
        #expect(error.message == "\(directory.path): is a directory; expected an audio file")
    }

    @Test func zeroLengthFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write([], to: "empty.wav")
        let error = try #require(try openingError(path))
        #expect(error.message == "\(path): is empty (0 bytes); expected audio")
    }

    @Test func textFileNamedWav() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(Array("these are not the samples you are looking for\n".utf8), to: "notes.wav")
        let error = try #require(try openingError(path))
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix("\(path): not a readable audio file ("))
        #expect(error.message.contains("expected WAV, FLAC, Ogg, AIFF"))
        #expect(error.message.contains("ffmpeg -i IN -ar 16000 -ac 1 OUT.wav"), "a way out for other formats")
    }

    @Test(arguments: [4, 12, 20, 36, 43])
    func truncatedWavHeader(keptBytes: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let full = directory.file("full.wav")
        let writer = try AudioFileWriter(path: full, format: .wideband, fileType: .wav)
        try writer.write(Signal.sine(frequency: 1_000, seconds: 0.1, format: .wideband))
        try writer.finish()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: full)).prefix(keptBytes))
        let path = try directory.write(bytes, to: "truncated.wav")
        let error = try #require(try openingError(path))
        #expect(error.code == .invalidInput)
        #expect(error.message.hasPrefix("\(path): "))
    }

    @Test func wavWithAnImpossibleSampleRate() throws {
        // A hand-made header claiming 1 Hz: rejected by our check, never handed on to a stage.
        var header: [UInt8] = Array("RIFF".utf8) + le32(36 + 4) + Array("WAVEfmt ".utf8) + le32(16)
        header += le16(1) + le16(1) + le32(1) + le32(2) + le16(2) + le16(16)
        header += Array("data".utf8) + le32(4) + [0, 0, 0, 0]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(header, to: "slow.wav")
        let error = try #require(try openingError(path))
        #expect(error.code == .unsupportedFormat)
        #expect(error.message.hasPrefix("\(path): unsupported sample rate 1 Hz; expected 1000–384000 Hz"))
    }

    @Test func rawInputEndingMidFrame() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write([1, 0, 2, 0, 3], to: "odd.raw")
        let error = try #require(try openingError(path, raw: RawPCMFormat(format: .wideband, encoding: .s16le)))
        #expect(error.message.contains("\(path): input ends mid-frame at byte 5 (1 stray bytes)"))
    }

    @Test func rawFloatThatIsNotANumber() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nan = Float.nan.bitPattern.littleEndian
        let bytes =
            withUnsafeBytes(of: Float(0.5).bitPattern.littleEndian, Array.init) + withUnsafeBytes(of: nan, Array.init)
        let path = try directory.write(bytes, to: "nan.f32")
        let error = try #require(try openingError(path, raw: RawPCMFormat(format: .wideband, encoding: .f32le)))
        #expect(error.message.hasPrefix("\(path): sample 1 is not a finite number"))
    }
}

@Suite(.computing) struct RawPCMSourceTests {
    @Test(arguments: RawPCMFormat.Encoding.allCases)
    func readsInterleavedLittleEndian(encoding: RawPCMFormat.Encoding) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let values: [Int16] = [0, 16_384, -16_384, 32_767, -32_768, 1]
        let bytes: [UInt8] = values.flatMap { value -> [UInt8] in
            switch encoding {
            case .s16le: return le16(UInt16(bitPattern: value))
            case .f32le: return le32(PCM.float(value).bitPattern)
            }
        }
        let path = try directory.write(bytes, to: "stereo.raw")
        let format = try AudioFormat(sampleRate: 22_050, channelCount: 2)
        var source = try RawPCMSource(path: path, raw: RawPCMFormat(format: format, encoding: encoding), blockFrames: 2)
        let all = try readAll(&source)
        #expect(all.format == format)
        #expect(all.frameCount == 3)
        #expect(all.samples == values.map(PCM.float))
    }
}

private func le16<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, Array.init)
}
private func le32<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, Array.init)
}
