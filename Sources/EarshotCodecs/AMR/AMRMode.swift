/// The eight AMR-NB speech codec modes (3GPP TS 26.071), named by bit rate.
///
/// The raw value is the frame type (FT) written in each frame's table-of-contents byte, so a mode
/// and its frame type are the same number.
public enum AMRMode: Int, CaseIterable, Sendable, CustomStringConvertible {
    case mr475 = 0, mr515, mr59, mr67, mr74, mr795, mr102, mr122

    /// Speech bits per second (the TOC byte and padding come on top: 12.8 kbit/s on the wire for MR122).
    public var bitRate: Int { [4_750, 5_150, 5_900, 6_700, 7_400, 7_950, 10_200, 12_200][rawValue] }

    /// Bytes of one 20 ms frame in the RFC 4867 storage format, TOC byte included.
    public var frameByteCount: Int { AMRFrameType.byteCount(ofType: rawValue)! }

    public var description: String {
        let kbps = Double(bitRate) / 1000
        return "AMR-NB \(kbps) kbit/s"
    }
}

/// Frame types of the RFC 4867 §5.3 storage format: what each TOC byte announces.
enum AMRFrameType {
    /// `#!AMR\n`, the magic number that opens a single-channel AMR-NB file (RFC 4867 §5.1).
    static let magic: [UInt8] = Array("#!AMR\n".utf8)
    /// Samples per frame: 20 ms at 8 kHz.
    static let samplesPerFrame = 160
    /// The largest frame, MR122's 31 payload bytes plus the TOC byte.
    static let maxByteCount = 32
    /// The comfort-noise frame DTX sends in silence.
    static let sid = 8
    /// A frame with nothing in it (DTX between SID updates, or a lost frame).
    static let noData = 15

    /// Bytes of a frame of type `type`, TOC byte included, or `nil` for the types an AMR-NB file
    /// cannot hold: 9–11 are the SID frames of other codecs (GSM-EFR, TDMA-EFR, PDC-EFR) and 12–14 are
    /// reserved. The payload sizes are the class A+B+C bit counts of 3GPP TS 26.101 table 1a (95, 103,
    /// 118, 134, 148, 159, 204, 244 speech bits; 39 for SID) rounded up to whole bytes.
    static func byteCount(ofType type: Int) -> Int? {
        switch type {
        case 0...7: [13, 14, 16, 18, 20, 21, 27, 32][type]
        case sid: 6
        case noData: 1
        default: nil
        }
    }

    /// The frame type a TOC byte announces: bits 6–3 (`P FT FT FT FT Q P P`).
    @inline(__always)
    static func type(ofTOC toc: UInt8) -> Int { Int((toc >> 3) & 0x0F) }

    /// A name for a frame type an error message can show.
    static func describe(_ type: Int) -> String {
        switch type {
        case 9: "9 (GSM-EFR SID)"
        case 10: "10 (TDMA-EFR SID)"
        case 11: "11 (PDC-EFR SID)"
        default: "\(type) (reserved)"
        }
    }
}
