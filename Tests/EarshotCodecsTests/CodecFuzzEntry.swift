import EarshotCore
import EarshotTesting

@testable import EarshotCodecs

/// What the codec fuzz targets (`Fuzz/Targets/`) run on each input, shared with
/// `CodecFuzzRegressionTests`, which replays the seeds and every saved crash through the same code.
///
/// The decoders read untrusted upload bodies delivered in arbitrary pieces, so each input is decoded
/// twice: whole, and cut into pieces by `inputPieces`. Malformed input must end in an `EarshotError`;
/// both readings must agree on whether it was accepted and, when it was, on every sample and on
/// contiguous media time. Anything else is a ``FuzzFinding``.
enum CodecFuzzEntry {
    /// The streaming WAV decoder (`audio/wav`, streaming headers included), trusting the header's
    /// lengths (an upload) and taking them as estimates (standard input): each reading agrees whole
    /// and in pieces, and a stream read with exact lengths is read with estimates too, to at least
    /// as many samples (estimates read to the end of the stream).
    static func wav(_ bytes: [UInt8]) throws {
        let exact = try decodeBothWays(.wav, bytes)
        let estimated = try decodeBothWays(.wav, bytes) { WAVDecoder(name: "fuzz input", lengths: .estimated) }
        if case .success(let trusted) = exact {
            guard case .success(let guessed) = estimated, guessed.count >= trusted.count,
                Array(guessed.prefix(trusted.count)) == trusted
            else {
                throw FuzzFinding("wav: read with exact lengths but not as a prefix with estimated ones")
            }
        }
    }

    /// The AMR-NB file decoder: magic, then frames sized by their TOC byte.
    static func amr(_ bytes: [UInt8]) throws { try decodeBothWays(.amr, bytes) }

    /// Speex with a length byte before each frame: the stream names no band, so both are tried.
    static func speex(_ bytes: [UInt8]) throws {
        try decodeBothWays(.speexWideband, bytes)
        try decodeBothWays(.speexNarrowband, bytes)
    }

    /// The Ogg page reader on its own (every packet's bytes are read, so a bad pointer or length shows
    /// under ASan), then the Ogg decoder the first page names, if any.
    static func ogg(_ bytes: [UInt8]) throws {
        try readOggPages(bytes)
        let head = bytes.prefix(128)
        if head.firstRange(of: Array("OpusHead".utf8)) != nil {
            try decodeBothWays(.opus, bytes)
        } else if head.firstRange(of: Array("Speex   ".utf8)) != nil {
            try decodeBothWays(.oggSpeex, bytes)
        }
    }

    private static func readOggPages(_ bytes: [UInt8]) throws {
        let reader = OggPacketReader(name: "fuzz input")
        var checksum: UInt8 = 0
        do {
            for piece in inputPieces(bytes) {
                try reader.feed(piece)
                while try reader.nextPage() != nil {
                    while let packet = try reader.nextPacket() {
                        guard packet.offset >= 0, packet.offset < bytes.count else {
                            throw FuzzFinding(
                                "a packet starts at byte \(packet.offset) of a \(bytes.count)-byte stream")
                        }
                        for byte in packet.bytes { checksum ^= byte }
                    }
                }
            }
            try reader.finish()
        } catch is EarshotError {
            return
        }
        _ = checksum
    }

    /// Decodes `bytes` whole and in pieces and compares the two readings.
    /// Decodes `bytes` whole and in pieces with `format`'s decoder (or the one `make` gives) and
    /// returns the common outcome; a disagreement is a finding.
    @discardableResult
    private static func decodeBothWays(
        _ format: CodecFormat, _ bytes: [UInt8], make: (() throws -> any AudioDecoder)? = nil
    ) throws -> Result<[Float], EarshotError> {
        let make = make ?? { try format.makeDecoder(name: "fuzz input") }
        let whole = try decode(format, bytes.isEmpty ? [] : [bytes], make: make)
        let pieces = try decode(format, inputPieces(bytes), make: make)
        switch (whole, pieces) {
        case (.success(let a), .success(let b)):
            guard a == b else {
                throw FuzzFinding(
                    "\(format): \(a.count) samples read whole but \(b.count) in pieces, or different samples")
            }
            return whole
        case (.failure, .failure):
            return whole
        case (.success, .failure(let error)):
            throw FuzzFinding("\(format): accepted whole but refused in pieces: \(error)")
        case (.failure(let error), .success):
            throw FuzzFinding("\(format): accepted in pieces but refused whole: \(error)")
        }
    }

    /// Every sample the decoder gives for `pieces`, or the `EarshotError` it refused them with; any
    /// other error, or a buffer whose media time does not follow on from the one before, is a finding.
    private static func decode(
        _ format: CodecFormat, _ pieces: [[UInt8]], make: () throws -> any AudioDecoder
    ) throws -> Result<[Float], EarshotError> {
        var decoder = try make()
        var output = StageOutput<AudioBuffer>()
        var samples: [Float] = []
        var frames: Int64 = 0
        func collect() throws {
            for buffer in output.items {
                guard buffer.startFrame == frames else {
                    throw FuzzFinding("\(format): a buffer starts at frame \(buffer.startFrame), expected \(frames)")
                }
                frames += Int64(buffer.frameCount)
                samples += buffer.samples
            }
            output.removeAll()
        }
        do {
            for piece in pieces {
                try decoder.process(piece, into: &output)
                try collect()
            }
            try decoder.finish(into: &output)
            try collect()
        } catch let error as EarshotError {
            return .failure(error)
        }
        return .success(samples)
    }
}
