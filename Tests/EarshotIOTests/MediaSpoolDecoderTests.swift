import EarshotCore
import EarshotIO
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// A spooled container comes out one block at a time once the body has ended, each block at most
/// `maxBlockSamples` samples whatever the channel count, so a caller that takes each block on before
/// asking for the next never holds the file's audio whole.
@Suite(.computing) struct MediaSpoolDecoderTests {
    /// One second of 64-channel 192 kHz silence in Ogg Vorbis: 12.3 M samples, 47 MiB as Float32.
    static func wideVorbis(in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file("wide.ogg")
        let run = try ExternalTool.run([
            "sh", "-c",
            "sox -q -n -r 192000 -c 64 -b 16 -t wav - trim 0 1 | ffmpeg -loglevel error -y -f wav -i - "
                + "-c:a libvorbis -q:a 0 \(path)",
        ])
        try #require(run.status == 0, "\(run.standardError)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Feeds `body` in 8 KiB chunks, as a request's body arrives.
    static func spool(_ body: [UInt8], maxDuration: Double) throws -> MediaSpoolDecoder {
        let decoder = try MediaSpoolDecoder(container: .ogg, name: "request body (Ogg)", maxDuration: maxDuration)
        var output = StageOutput<AudioBuffer>()
        var offset = 0
        while offset < body.count {
            try decoder.process(Array(body[offset..<min(offset + 8_192, body.count)]), into: &output)
            offset += 8_192
        }
        #expect(output.items.isEmpty, "nothing is decoded before the body ends")
        return decoder
    }

    @Test func sixtyFourChannelsComeOutInSmallBlocks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let decoder = try Self.spool(try Self.wideVorbis(in: directory), maxDuration: 60)
        var block = StageOutput<AudioBuffer>()
        var frames: Int64 = 0
        var blocks = 0
        while try decoder.decodeNextBlock(into: &block) {
            let buffer = try #require(block.items.first)
            #expect(block.items.count == 1)
            #expect(buffer.format.channelCount == 64 && buffer.format.sampleRate == 192_000)
            #expect(buffer.samples.count <= MediaSpoolDecoder.maxBlockSamples, "block \(blocks)")
            #expect(buffer.startFrame == frames, "blocks carry their media time")
            frames += Int64(buffer.frameCount)
            blocks += 1
            block.removeAll()
        }
        #expect(frames == 192_000, "one second at 192 kHz")
        #expect(blocks >= 192_000 * 64 / MediaSpoolDecoder.maxBlockSamples)
        try decoder.finish(into: &block)
        #expect(block.items.isEmpty, "finish after the last block emits nothing")
    }

    /// Decoding stops once the audio has run past the caller's limit (which then refuses it), within
    /// a block.
    @Test func decodingStopsPastTheDurationLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let decoder = try Self.spool(try Self.wideVorbis(in: directory), maxDuration: 0.25)
        var output = StageOutput<AudioBuffer>()
        try decoder.finish(into: &output)
        let frames = output.items.reduce(0) { $0 + $1.frameCount }
        #expect(frames > 48_000 && frames <= 48_000 + MediaSpoolDecoder.maxBlockSamples / 64, "\(frames) frames")
    }

    @Test func anEmptyBodyIsRefused() throws {
        let decoder = try Self.spool([], maxDuration: 60)
        var output = StageOutput<AudioBuffer>()
        let error = try #require(try thrownEarshotError { _ = try decoder.decodeNextBlock(into: &output) })
        #expect(error.message == "request body (Ogg): is empty (0 bytes); expected audio")
    }
}
