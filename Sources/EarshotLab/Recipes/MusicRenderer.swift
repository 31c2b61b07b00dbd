import EarshotCore
import Foundation

/// Renders generated MIDI pieces to audio with fluidsynth and the TimGM6mb General MIDI sound font.
public enum MusicRenderer {
    /// Where Debian's `timgm6mb-soundfont` installs its sound font.
    public static let soundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    /// Renders `midi` to 16 kHz mono samples, using `scratch` (a folder) for the intermediate files.
    /// Reverb and chorus are off: they add nothing a detector cares about and are the parts of a
    /// synthesizer most likely to vary between versions.
    public static func render(_ midi: MIDIWriter, scratch: String, name: String) throws -> [Float] {
        guard FileManager.default.isReadableFile(atPath: soundFont) else {
            throw EarshotError(
                .invalidInput, "\(soundFont): sound font not found; install the Debian package timgm6mb-soundfont")
        }
        let midiPath = scratch + "/\(name).mid"
        let wavPath = scratch + "/\(name).wav"
        try Data(midi.bytes()).write(to: URL(fileURLWithPath: midiPath))
        try ExternalProgram.run(
            [
                "fluidsynth", "-n", "-i", "-q", "-R", "0", "-C", "0", "-g", "0.5", "-r", "16000", "-T", "wav",
                "-F", wavPath, soundFont, midiPath,
            ], package: "fluidsynth")
        defer {
            try? FileManager.default.removeItem(atPath: midiPath)
            try? FileManager.default.removeItem(atPath: wavPath)
        }
        return try RecipeAudio.load(wavPath)
    }
}
