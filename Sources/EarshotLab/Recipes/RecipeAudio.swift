public import EarshotCore
import EarshotDSP
public import EarshotIO
import Foundation

/// Reading and writing the audio of corpora: everything is 16 kHz mono 16-bit WAV.
public enum RecipeAudio {
    /// The corpus rate: PocketSphinx's and every detector's working rate.
    public static let sampleRate = 16_000
    public static let format = AudioFormat.wideband

    /// Reads any audio file (or headerless PCM with `raw`) as 16 kHz mono samples.
    public static func load(_ path: String, raw: RawPCMFormat? = nil) throws -> [Float] {
        var source = try AudioInput.open(path: path, raw: raw)
        var resampler = try Resampler(inputFormat: source.format)
        var samples: [Float] = []
        try Pipeline.run(&source, through: &resampler) { output in
            for buffer in output.items { samples.append(contentsOf: buffer.samples) }
        }
        return samples
    }

    /// `buffers` (one stream, in order) resampled as ``load(_:raw:)`` resamples a file.
    public static func resampled(_ buffers: [AudioBuffer]) throws -> [Float] {
        guard let first = buffers.first else { return [] }
        var resampler = try Resampler(inputFormat: first.format)
        var samples: [Float] = []
        try Pipeline.run(buffers, through: &resampler) { output in
            for buffer in output.items { samples.append(contentsOf: buffer.samples) }
        }
        return samples
    }

    /// Writes `samples` as a 16-bit WAV at 16 kHz, atomically, creating the folder if needed.
    public static func write(_ samples: [Float], to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let writer = try AudioFileWriter(path: path, format: format, fileType: .wav, encoding: .pcm16)
        try writer.write(AudioBuffer(format: format, samples: samples))
        try writer.finish()
    }

    /// Samples as the 16-bit file will hold them, so labels and mixes are computed on what is written.
    public static func quantized(_ samples: [Float]) -> [Float] {
        samples.map { Float(PCM.int16($0)) / 32768 }
    }

    /// Root mean square of `samples` (0 for none).
    public static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return (sum / Double(samples.count)).squareRoot()
    }

    /// Seconds to a sample count at 16 kHz.
    public static func frames(_ seconds: Double) -> Int { Int((seconds * Double(sampleRate)).rounded()) }
    /// A sample count to seconds at 16 kHz.
    public static func seconds(_ frames: Int) -> Double { Double(frames) / Double(sampleRate) }
}
