import EarshotCore

/// Packing floats into 16-bit PCM bytes, for the WAV (little-endian) and L16 (big-endian) encoders.
enum PCM16Bytes {
    /// Appends `samples` as 16-bit integers (``PCM/int16(_:)``: x × 32768, rounded, saturated) in the
    /// given byte order. Grows `bytes` in place, so a reused array with enough capacity allocates nothing.
    static func append(_ samples: UnsafeBufferPointer<Float>, bigEndian: Bool, to bytes: inout [UInt8]) {
        guard !samples.isEmpty else { return }
        let base = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: samples.count * 2))
        bytes.withUnsafeMutableBufferPointer { out in
            let (first, second) = bigEndian ? (0, 1) : (1, 0)
            for i in samples.indices {
                let value = UInt16(bitPattern: PCM.int16(samples[i]))
                out[base + 2 * i + first] = UInt8(truncatingIfNeeded: value >> 8)
                out[base + 2 * i + second] = UInt8(truncatingIfNeeded: value)
            }
        }
    }
}

/// Turns 16-bit PCM bytes split anywhere into float samples (x / 32768, ``PCM/float(_:)``), carrying
/// an incomplete sample frame (at most `2 × channels − 1` bytes) from one call to the next.
struct PCM16Unpacker: Sendable {
    let bigEndian: Bool
    /// Bytes per sample frame: two per channel.
    let frameByteCount: Int
    private var carry: [UInt8]

    init(channelCount: Int, bigEndian: Bool) {
        self.bigEndian = bigEndian
        frameByteCount = 2 * channelCount
        carry = []
        carry.reserveCapacity(frameByteCount)
    }

    /// Bytes of an incomplete sample frame waiting for the rest of it.
    var pendingByteCount: Int { carry.count }

    /// Converts every complete sample frame of the carried bytes followed by `bytes`, appending the
    /// samples to `samples`, and carries what is left over.
    mutating func unpack(_ bytes: UnsafeBufferPointer<UInt8>, into samples: inout [Float]) {
        var index = 0
        if !carry.isEmpty {
            let take = min(frameByteCount - carry.count, bytes.count)
            carry.append(contentsOf: bytes[0..<take])
            index = take
            guard carry.count == frameByteCount else { return }
            carry.withUnsafeBufferPointer { convert($0, into: &samples) }
            carry.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - index) / frameByteCount * frameByteCount
        if whole > 0 {
            convert(UnsafeBufferPointer(rebasing: bytes[index..<index + whole]), into: &samples)
        }
        carry.append(contentsOf: bytes[(index + whole)...])
    }

    private func convert(_ bytes: UnsafeBufferPointer<UInt8>, into samples: inout [Float]) {
        let count = bytes.count / 2
        let base = samples.count
        samples.append(contentsOf: repeatElement(0, count: count))
        let (high, low) = bigEndian ? (0, 1) : (1, 0)
        samples.withUnsafeMutableBufferPointer { out in
            for i in 0..<count {
                let value = UInt16(bytes[2 * i + high]) << 8 | UInt16(bytes[2 * i + low])
                out[base + i] = PCM.float(Int16(bitPattern: value))
            }
        }
    }
}
