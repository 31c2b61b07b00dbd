/// Little-endian integers and magic strings in Ogg codec header packets (Speex, Opus).
enum OggHeaderBytes {
    /// Appends `value` least significant byte first.
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The little-endian integer at `offset`; the caller has checked the packet is long enough.
    static func read<T: FixedWidthInteger>(_: T.Type, in packet: UnsafeRawBufferPointer, at offset: Int) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= packet.count)
        var value = T.zero
        withUnsafeMutableBytes(of: &value) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[offset..<offset + MemoryLayout<T>.size]))
        }
        return T(littleEndian: value)
    }

    /// Whether `packet` starts with `magic`.
    static func starts(_ packet: UnsafeRawBufferPointer, with magic: String) -> Bool {
        let magic = Array(magic.utf8)
        return packet.count >= magic.count && zip(packet, magic).allSatisfy { $0 == $1 }
    }

    /// The first `count` bytes of `packet`, printable, for error messages.
    static func quoted(_ packet: UnsafeRawBufferPointer, count: Int) -> String {
        let text = packet.prefix(count).map {
            (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16)
        }
        return "\"" + text.joined() + "\""
    }
}
