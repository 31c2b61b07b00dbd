import EarshotCodecs
import EarshotTestTraits
import Testing

@Suite(.computing) struct CodecFormatTests {
    @Test func contentTypesAreTheSpeechAPIs() {
        #expect(CodecFormat.speexWideband.contentType() == "audio/x-speex-with-header-byte;rate=16000")
        #expect(CodecFormat.speexNarrowband.contentType() == "audio/x-speex-with-header-byte;rate=8000")
        #expect(CodecFormat.amr.contentType() == "audio/amr")
        #expect(CodecFormat.wav.contentType() == "audio/wav")
        #expect(CodecFormat.l16.contentType(sampleRate: 8_000) == "audio/L16;rate=8000")
        #expect(CodecFormat.l16.contentType(sampleRate: 16_000, channelCount: 2) == "audio/L16;rate=16000;channels=2")
        #expect(CodecFormat.opus.contentType() == "audio/ogg;codecs=opus")
    }

    @Test func sniffsSelfDescribingFormatsByTheirMagic() {
        #expect(CodecFormat.sniff(Array("#!AMR\n".utf8) + [0x3C]) == .amr)
        #expect(CodecFormat.sniff(Array("fLaC".utf8) + [0, 0, 0, 34]) == .flac)
        #expect(CodecFormat.sniff(Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVEfmt ".utf8)) == .wav)
        let oggPage: ([UInt8]) -> [UInt8] = { packet in
            Array("OggS".utf8) + [UInt8](repeating: 0, count: 22) + [1, UInt8(packet.count)] + packet
        }
        #expect(CodecFormat.sniff(oggPage(Array("OpusHead".utf8) + [1, 1])) == .opus)
        #expect(CodecFormat.sniff(oggPage(Array("Speex   1.2".utf8))) == .oggSpeex)
        #expect(CodecFormat.sniff(oggPage(Array("\u{1}vorbis".utf8))) == nil)
        #expect(CodecFormat.sniff(Array("hello".utf8)) == nil)
        #expect(CodecFormat.sniff([UInt8]()) == nil)
    }

    @Test func everyFormatRoundTripsItsCommandLineName() {
        for format in CodecFormat.allCases {
            #expect(CodecFormat(rawValue: format.rawValue) == format)
        }
        #expect(CodecFormat(fileExtension: "SPX") == .oggSpeex)
        #expect(CodecFormat(fileExtension: "mp3") == nil)
    }
}
