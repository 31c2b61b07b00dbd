/// The containers Earshot reads through FFmpeg (libavformat and libavcodec, ``MediaFileSource``):
/// those libsndfile does not read (MP4/M4A, WebM/Matroska, ADTS AAC), and, for the service, MP3 and
/// the Ogg streams its own decoders do not take (Vorbis), which it reads whole once uploaded rather
/// than as they stream in. The command line leaves MP3 and Ogg to libsndfile.
///
/// Each is recognised from its first bytes and opened with its own demuxer only: FFmpeg is never
/// asked to guess, so a hostile file cannot reach a demuxer that opens other files or URLs (a
/// playlist, a concat list).
public enum MediaContainer: String, Sendable, CaseIterable {
    /// ISO base media files: MP4, M4A, MOV, 3GP (AAC, ALAC, Opus, MP3 inside).
    case mp4
    /// Matroska and WebM (Opus, Vorbis, AAC inside).
    case matroska
    /// Raw AAC in ADTS frames (`.aac`).
    case adts
    /// MPEG audio (MP3), with or without an ID3v2 tag.
    case mp3
    /// Ogg (Vorbis, and the Opus and Speex that Earshot's own decoders read as they arrive).
    case ogg

    /// The containers the command line reads through FFmpeg: those libsndfile does not read.
    public static let beyondSndFile: Set<MediaContainer> = [.mp4, .matroska, .adts]

    /// A human name, for messages and ``InputDescription``.
    public var displayName: String {
        switch self {
        case .mp4: "MP4/M4A"
        case .matroska: "WebM/Matroska"
        case .adts: "AAC (ADTS)"
        case .mp3: "MP3"
        case .ogg: "Ogg"
        }
    }

    /// libavformat's name for the demuxer that reads it.
    var demuxerName: String {
        switch self {
        case .mp4: "mov"
        case .matroska: "matroska"
        case .adts: "aac"
        case .mp3: "mp3"
        case .ogg: "ogg"
        }
    }

    /// The container `prefix` (a file's first bytes) starts, if any: an ISO `ftyp` (or QuickTime
    /// `moov`) box at offset 4, the EBML magic 1A 45 DF A3, an ADTS sync word (12 bits set, layer 00),
    /// an ID3v2 tag or an MPEG audio frame header, an Ogg page.
    public static func sniff(_ prefix: some Collection<UInt8>) -> MediaContainer? {
        let bytes = Array(prefix.prefix(16))
        guard bytes.count >= 4 else { return nil }
        if bytes.count >= 8, [Array("ftyp".utf8), Array("moov".utf8)].contains(Array(bytes[4..<8])) { return .mp4 }
        if bytes[0..<4] == [0x1A, 0x45, 0xDF, 0xA3] { return .matroska }
        if bytes[0] == 0xFF, bytes[1] & 0xF6 == 0xF0 { return .adts }
        if bytes[0..<3] == Array("ID3".utf8)[...] { return .mp3 }
        if bytes[0..<4] == Array("OggS".utf8)[...] { return .ogg }
        let frame = bytes.withUnsafeBytes { MP3FrameCheck.Header($0, at: 0) }
        return frame == nil ? nil : .mp3
    }
}
