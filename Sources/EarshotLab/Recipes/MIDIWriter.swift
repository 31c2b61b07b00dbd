public import EarshotCore
import Foundation

/// A minimal Standard MIDI File (format 0, one track) writer: enough to describe the background
/// music of the noisy corpus, which fluidsynth then renders with a General MIDI sound font.
public struct MIDIWriter {
    /// One note: when it starts and how long it lasts, in ticks.
    public struct Note: Sendable, Equatable {
        public var start: Int
        public var length: Int
        public var channel: UInt8
        public var key: UInt8
        public var velocity: UInt8
        public init(start: Int, length: Int, channel: UInt8, key: UInt8, velocity: UInt8) {
            self.start = start
            self.length = length
            self.channel = channel
            self.key = key
            self.velocity = velocity
        }
    }

    /// Ticks per quarter note.
    public var ticksPerQuarter: Int = 480
    /// Tempo in microseconds per quarter note (500 000 is 120 beats per minute).
    public var microsecondsPerQuarter: Int = 500_000
    /// General MIDI program (instrument) per channel.
    public var programs: [UInt8: UInt8] = [:]
    public var notes: [Note] = []

    public init() {}

    /// The file's bytes.
    public func bytes() -> [UInt8] {
        var events: [(tick: Int, order: Int, data: [UInt8])] = []
        let tempo = microsecondsPerQuarter
        events.append(
            (0, 0, [0xFF, 0x51, 0x03, UInt8(tempo >> 16 & 0xFF), UInt8(tempo >> 8 & 0xFF), UInt8(tempo & 0xFF)]))
        for (channel, program) in programs.sorted(by: { $0.key < $1.key }) {
            events.append((0, 1, [0xC0 | channel, program]))
        }
        for note in notes {
            // Offs sort before ons at the same tick, so a repeated key is released before it is struck again.
            events.append((note.start + note.length, 2, [0x80 | note.channel, note.key, 0]))
            events.append((note.start, 3, [0x90 | note.channel, note.key, note.velocity]))
        }
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        var track: [UInt8] = []
        var previous = 0
        for event in events {
            track += Self.variableLength(event.tick - previous) + event.data
            previous = event.tick
        }
        track += [0x00, 0xFF, 0x2F, 0x00]  // end of track
        var out: [UInt8] = Array("MThd".utf8) + Self.bigEndian(6, bytes: 4)
        out += Self.bigEndian(0, bytes: 2) + Self.bigEndian(1, bytes: 2) + Self.bigEndian(ticksPerQuarter, bytes: 2)
        out += Array("MTrk".utf8) + Self.bigEndian(track.count, bytes: 4) + track
        return out
    }

    /// MIDI's variable-length quantity: 7 bits per byte, most significant first, high bit on all but the last.
    static func variableLength(_ value: Int) -> [UInt8] {
        var remaining = value >> 7
        var out: [UInt8] = [UInt8(value & 0x7F)]
        while remaining > 0 {
            out.insert(UInt8(remaining & 0x7F) | 0x80, at: 0)
            remaining >>= 7
        }
        return out
    }

    static func bigEndian(_ value: Int, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) }
    }
}

/// Random but deterministic pieces: a chord progression on a pad or piano and a melody over it.
public enum MusicComposer {
    /// General MIDI programs that sound like typical background music (piano, guitar, strings, organ…).
    static let accompaniment: [UInt8] = [0, 4, 24, 48, 19, 88]
    static let lead: [UInt8] = [0, 11, 40, 56, 65, 73]

    /// A piece of about `seconds`, in a random major or minor key, tempo 80–140 BPM.
    public static func piece(seconds: Double, using random: inout SplitMix64) -> MIDIWriter {
        var midi = MIDIWriter()
        let bpm = random.integer(80...140)
        midi.microsecondsPerQuarter = 60_000_000 / bpm
        midi.programs = [0: random.pick(accompaniment), 1: random.pick(lead)]
        let quarter = midi.ticksPerQuarter
        let bars = Int((seconds * Double(bpm) / 60 / 4).rounded(.up))
        let tonic = random.integer(48...59)
        let minor = random.unit() < 0.5
        let scale = minor ? [0, 2, 3, 5, 7, 8, 10] : [0, 2, 4, 5, 7, 9, 11]
        let degrees = [0, 3, 4, 5, 1, 2, 6]
        for bar in 0..<bars {
            let root = bar % 4 == 0 ? 0 : random.pick(degrees)
            let chord = [0, 2, 4].map { step -> Int in
                let index = root + step
                return tonic + scale[index % 7] + 12 * (index / 7)
            }
            for key in chord {
                midi.notes.append(
                    .init(start: bar * 4 * quarter, length: 4 * quarter - 10, channel: 0, key: UInt8(key), velocity: 70)
                )
            }
            var beat = 0
            while beat < 8 {  // eighth notes
                let length = random.pick([1, 1, 2, 2, 3, 4])
                if random.unit() < 0.85 {
                    let index = root + random.integer(0...7)
                    let key = tonic + 12 + scale[index % 7] + 12 * (index / 7)
                    midi.notes.append(
                        .init(
                            start: bar * 4 * quarter + beat * quarter / 2, length: length * quarter / 2 - 10,
                            channel: 1, key: UInt8(key), velocity: UInt8(random.integer(70...105))))
                }
                beat += length
            }
        }
        return midi
    }
}
