import EarshotCodecs
import EarshotCore
import EarshotTesting
import Foundation
import Testing

/// Checks shared by the AMR, WAV, L16 and FLAC tests: the speech clips at a rate, external decoders,
/// and catching a decoder's error.
enum CodecChecks {
    /// The five LibriVox clips at `rate` (read and resampled on each call).
    static func clips(rate: Int) throws -> [AudioBuffer] {
        try LibriVoxClips.load().map { try CodecRoundTrip.speech($0, rate: rate) }
    }

    /// The corpus word error rate of the clips as they are, computed once for every suite that compares with it.
    static let originalWER = Result { try CodecRoundTrip.corpusWER { $0 } }

    /// `samples` as the 16-bit values an encoder stores (``PCM/int16(_:)``).
    static func int16(_ samples: [Float]) -> [Int16] { samples.map(PCM.int16) }

    /// Feeds `bytes` to `decoder` in `chunkSize` pieces and finishes it, returning the error thrown.
    static func decodingError<D: AudioDecoder>(_ bytes: [UInt8], _ decoder: D, chunkSize: Int = 512) throws
        -> EarshotError?
    {
        var decoder = decoder
        return try thrownEarshotError { _ = try CodecRoundTrip.decode(bytes, with: &decoder, chunkSize: chunkSize) }
    }

    /// Feeds `bytes` to `decoder` without finishing, returning the error `process` throws.
    static func processingError<D: AudioDecoder>(_ bytes: [UInt8], _ decoder: D) throws -> EarshotError? {
        var decoder = decoder
        return try thrownEarshotError { _ = try decoder.process(bytes) }
    }

    /// What an external tool decoded a file to: 16-bit native-endian samples and its warnings.
    struct Decoded {
        var samples: [Int16]
        var status: Int32
        var messages: String
    }

    /// `ffmpeg` decoding `path` to signed 16-bit mono or `channels`, at the file's own rate.
    static func ffmpeg(_ path: String, channels: Int = 1, inputFormat: String? = nil) throws -> Decoded {
        let format = inputFormat.map { ["-f", $0] } ?? []
        let result = try ExternalTool.run(
            ["ffmpeg", "-nostdin", "-v", "warning"] + format + ["-i", path, "-f", "s16le", "-ac", "\(channels)", "-"])
        return Decoded(samples: int16s(result.standardOutput), status: result.status, messages: result.standardError)
    }

    /// `sox` decoding `path` (or reading it as `arguments` say) to signed 16-bit little-endian.
    static func sox(_ path: String, input arguments: [String] = []) throws -> Decoded {
        let result = try ExternalTool.run(
            ["sox"] + arguments + [path, "-t", "raw", "-e", "signed", "-b", "16", "-L", "-"])
        return Decoded(samples: int16s(result.standardOutput), status: result.status, messages: result.standardError)
    }

    private static func int16s(_ data: Data) -> [Int16] {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }
}
