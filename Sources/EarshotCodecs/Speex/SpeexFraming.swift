extension CodecFormat {
    /// Whether `prefix` is Speex with a length byte before each frame (the Speech API's
    /// `audio/x-speex-with-header-byte`, what `earshot encode --format speex-wb|speex-nb` writes), and
    /// which band: the format has no header, so its frames are read. Each narrowband frame starts with a
    /// 0 bit and its 4-bit mode, which fixes its size in bits (43 for mode 1 … 492 for mode 7, from the
    /// Speex manual's table); a narrowband stream's frame is that many bits rounded up to bytes, and a
    /// wideband stream's frame goes on with the high band, whose first bit is 1. Every frame of the
    /// prefix (at least three) must agree, so other data is not taken for Speex.
    public static func sniffHeaderByteSpeex(_ prefix: some Collection<UInt8>) -> CodecFormat? {
        let bytes = Array(prefix.prefix(4096))
        // Bits of each narrowband mode, header included; mode 0 (silence) and 15 (terminator) are short.
        let modeBits = [5, 43, 119, 160, 220, 300, 364, 492, 79]
        var offset = 0
        var frames = 0
        var band: CodecFormat?
        while offset < bytes.count {
            let length = Int(bytes[offset])
            guard length > 0 else { return nil }
            guard offset + 1 + length <= bytes.count else { break }  // the prefix ends inside this frame
            let frame = bytes[(offset + 1)..<(offset + 1 + length)]
            let first = frame[frame.startIndex]
            guard first & 0x80 == 0 else { return nil }  // a narrowband layer comes first
            let mode = Int((first >> 3) & 0x0f)
            guard mode < modeBits.count else { return nil }
            let nbBits = modeBits[mode]
            let frameBand: CodecFormat
            if length == (nbBits + 7) / 8 {
                frameBand = .speexNarrowband
            } else if length * 8 >= nbBits + 36 {
                let bit = frame[frame.startIndex + nbBits / 8] >> (7 - UInt8(nbBits % 8)) & 1
                guard bit == 1 else { return nil }
                frameBand = .speexWideband
            } else {
                return nil
            }
            if let band, band != frameBand { return nil }
            band = frameBand
            frames += 1
            offset += 1 + length
        }
        return frames >= 3 ? band : nil
    }
}
