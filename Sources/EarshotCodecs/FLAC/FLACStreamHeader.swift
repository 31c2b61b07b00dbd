import EarshotCore

/// The front of a native FLAC stream, parsed as its bytes arrive: the `fLaC` marker, STREAMINFO
/// (validated before any decoder or buffer is sized from it), and the other metadata blocks, skipped
/// unread so that a large PICTURE or PADDING block costs no memory.
///
/// Layout per the FLAC format specification (RFC 9639 §8): each metadata block has a 4-byte header
/// (last-block flag, 7-bit type, 24-bit length); STREAMINFO comes first and is 34 bytes.
struct FLACStreamHeader {
    static let marker: [UInt8] = Array("fLaC".utf8)
    /// `fLaC`, a block header and STREAMINFO.
    static let streamInfoEnd = 42
    /// Bit depths converted to float (FLAC allows 4–32).
    static let supportedBitDepths = 8...24

    private enum State {
        case marker, blockHeader, streamInfo, skipping(remaining: Int), complete
    }

    private var state = State.marker
    private var gathered: [UInt8] = []
    private var isFirstBlock = true
    private var isLastBlock = false
    /// Bytes consumed so far: once complete, where the first audio frame starts.
    private(set) var byteCount = 0
    /// `fLaC` and STREAMINFO, with the last-block flag set, to hand libFLAC in place of the real metadata.
    private(set) var streamInfoBlock: [UInt8] = []
    private(set) var format: AudioFormat?
    private(set) var bitsPerSample = 0

    var isComplete: Bool { if case .complete = state { true } else { false } }

    /// Consumes bytes from `index` until the header is complete or the input runs out.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>, from index: inout Int, name: String) throws {
        while index < bytes.count {
            switch state {
            case .marker:
                let byte = bytes[index]
                guard byte == Self.marker[byteCount] else {
                    throw EarshotError.malformedStream(
                        name, at: 0,
                        "not a FLAC stream: byte \(byteCount) is 0x\(String(byte, radix: 16, uppercase: true))",
                        expected: "the marker \"fLaC\"")
                }
                streamInfoBlock.append(byte)
                advance(&index, by: 1)
                if byteCount == 4 { state = .blockHeader }
            case .blockHeader:
                guard gather(bytes, &index, count: 4) else { return }
                try readBlockHeader(name: name)
            case .streamInfo:
                guard gather(bytes, &index, count: 34) else { return }
                try readStreamInfo(name: name)
                finishBlock(skipping: 0)
            case .skipping(let remaining):
                let taken = min(remaining, bytes.count - index)
                advance(&index, by: taken)
                finishBlock(skipping: remaining - taken)
            case .complete:
                return
            }
        }
    }

    private mutating func advance(_ index: inout Int, by count: Int) {
        index += count
        byteCount += count
    }

    private mutating func gather(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, count: Int) -> Bool {
        let taken = min(count - gathered.count, bytes.count - index)
        gathered.append(contentsOf: bytes[index..<index + taken])
        advance(&index, by: taken)
        return gathered.count == count
    }

    private mutating func readBlockHeader(name: String) throws {
        let at = byteCount - 4
        let type = Int(gathered[0] & 0x7F)
        let length = Int(gathered[1]) << 16 | Int(gathered[2]) << 8 | Int(gathered[3])
        isLastBlock = gathered[0] & 0x80 != 0
        let header = gathered
        gathered.removeAll(keepingCapacity: true)
        if isFirstBlock {
            guard type == 0, length == 34 else {
                throw EarshotError.malformedStream(
                    name, at: at, "the first metadata block has type \(type) and length \(length)",
                    expected: "STREAMINFO (type 0, 34 bytes)")
            }
            isFirstBlock = false
            // libFLAC gets STREAMINFO as the only metadata block: the rest never reaches it.
            streamInfoBlock.append(header[0] | 0x80)
            streamInfoBlock.append(contentsOf: header[1...])
            state = .streamInfo
            return
        }
        guard type != 0, type != 127 else {
            throw EarshotError.malformedStream(
                name, at: at, type == 0 ? "a second STREAMINFO block" : "metadata block type 127 (forbidden)",
                expected: "a metadata block of type 1–126")
        }
        finishBlock(skipping: length)
    }

    /// Validates STREAMINFO: block sizes, rate, channels and bit depth, each named with its byte offset.
    private mutating func readStreamInfo(name: String) throws {
        let info = gathered
        gathered.removeAll(keepingCapacity: true)
        streamInfoBlock.append(contentsOf: info)
        let body = 8  // stream offset of the STREAMINFO body
        let minBlock = Int(info[0]) << 8 | Int(info[1])
        let maxBlock = Int(info[2]) << 8 | Int(info[3])
        let rate = Int(info[10]) << 12 | Int(info[11]) << 4 | Int(info[12] >> 4)
        let channels = Int((info[12] >> 1) & 0x07) + 1
        let bits = Int((info[12] & 0x01) << 4 | info[13] >> 4) + 1
        guard minBlock >= 16, maxBlock >= minBlock else {
            throw EarshotError.malformedStream(
                name, at: body, "STREAMINFO block sizes \(minBlock)–\(maxBlock)",
                expected: "a minimum of at least 16 samples, no larger than the maximum")
        }
        guard Self.supportedBitDepths.contains(bits) else {
            throw EarshotError(
                .unsupportedFormat,
                "\(name): \(bits)-bit FLAC at byte \(body + 12); expected \(Self.supportedBitDepths.lowerBound)–\(Self.supportedBitDepths.upperBound) bits per sample"
            )
        }
        // AudioFormat checks rate and channels against what every stage supports, naming the offset.
        format = try AudioFormat(
            sampleRate: rate, channelCount: channels, origin: "\(name): FLAC STREAMINFO at byte \(body + 10)")
        bitsPerSample = bits
    }

    private mutating func finishBlock(skipping remaining: Int) {
        if remaining > 0 {
            state = .skipping(remaining: remaining)
        } else {
            state = isLastBlock ? .complete : .blockHeader
        }
    }
}
