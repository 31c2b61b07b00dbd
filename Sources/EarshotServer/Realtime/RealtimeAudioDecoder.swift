import EarshotCore

/// The Realtime API's input encodings into samples: PCM16 little-endian (`audio/pcm`), and G.711
/// μ-law (`audio/pcmu`) and A-law (`audio/pcma`) at 8 kHz, mono.
///
/// An `append` may split a 16-bit sample across two events (clients cut base64 where they like): the
/// odd byte is kept for the next. Stateless otherwise, and cheap: a table look-up or a shift a sample.
struct RealtimeAudioDecoder: Sendable {
    let format: RealtimeSessionSettings.Format
    private var carry: UInt8?

    init(format: RealtimeSessionSettings.Format) { self.format = format }

    /// The samples `bytes` hold, in [-1, 1).
    mutating func decode(_ bytes: [UInt8]) -> [Float] {
        switch format.encoding {
        case .pcm16:
            var samples: [Float] = []
            samples.reserveCapacity((bytes.count + 1) / 2)
            var index = 0
            if let low = carry, let high = bytes.first {
                samples.append(Float(Int16(bitPattern: UInt16(low) | UInt16(high) << 8)) / 32_768)
                carry = nil
                index = 1
            }
            while index + 1 < bytes.count {
                let value = Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                samples.append(Float(value) / 32_768)
                index += 2
            }
            if index < bytes.count { carry = bytes[index] }
            return samples
        case .pcmu: return bytes.map { Self.muLaw[Int($0)] }
        case .pcma: return bytes.map { Self.aLaw[Int($0)] }
        }
    }

    /// G.711 μ-law: the byte is inverted, then sign, a 3-bit exponent and a 4-bit mantissa, biased by 132.
    static let muLaw: [Float] = (0..<256).map { code in
        let byte = ~UInt8(code)
        let exponent = Int((byte >> 4) & 0x07)
        let mantissa = Int(byte & 0x0F)
        let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
        return Float((byte & 0x80) != 0 ? -magnitude : magnitude) / 32_768
    }

    /// G.711 A-law: the byte's even bits are inverted (XOR 0x55), then sign, exponent and mantissa.
    static let aLaw: [Float] = (0..<256).map { code in
        let byte = UInt8(code) ^ 0x55
        let exponent = Int((byte >> 4) & 0x07)
        let mantissa = Int(byte & 0x0F)
        let magnitude = exponent == 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1)
        return Float((byte & 0x80) != 0 ? magnitude : -magnitude) / 32_768
    }
}
