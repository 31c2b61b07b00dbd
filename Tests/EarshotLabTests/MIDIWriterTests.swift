import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotLab

@Suite(.computing) struct MIDIWriterTests {
    @Test func variableLengthQuantities() {
        #expect(MIDIWriter.variableLength(0) == [0x00])
        #expect(MIDIWriter.variableLength(0x7F) == [0x7F])
        #expect(MIDIWriter.variableLength(0x80) == [0x81, 0x00])
        #expect(MIDIWriter.variableLength(0x0FFF_FFFF) == [0xFF, 0xFF, 0xFF, 0x7F])
    }

    @Test func oneNoteFile() {
        var midi = MIDIWriter()
        midi.programs = [0: 0]
        midi.notes = [.init(start: 0, length: 480, channel: 0, key: 60, velocity: 100)]
        let track: [UInt8] = [
            0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,  // tempo 500 000 µs
            0x00, 0xC0, 0x00,  // program 0
            0x00, 0x90, 60, 100,  // note on
            0x83, 0x60, 0x80, 60, 0,  // 480 ticks later, note off
            0x00, 0xFF, 0x2F, 0x00,
        ]
        let header: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        #expect(midi.bytes() == header + Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track)
    }

    @Test func composedPiecesDependOnlyOnTheSeed() {
        var a = SplitMix64(seed: 8)
        var b = SplitMix64(seed: 8)
        let piece = MusicComposer.piece(seconds: 10, using: &a)
        #expect(piece.bytes() == MusicComposer.piece(seconds: 10, using: &b).bytes())
        #expect(piece.notes.count > 10)
    }
}
