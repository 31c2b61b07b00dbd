import EarshotCore

/// Cuts `bytes` into consecutive pieces of varying sizes (1 byte to 4 KiB), as a network delivers an
/// upload, so a streaming parser meets its boundaries everywhere. The cut points are drawn from the
/// input itself (its length and last byte seed the generator), so a fuzzer that changes the input
/// also changes where it is cut, and a saved input is always cut the same way when replayed.
/// Concatenated, the pieces are `bytes`; an empty input gives no piece.
public func inputPieces(_ bytes: [UInt8]) -> [[UInt8]] {
    guard let last = bytes.last else { return [] }
    var generator = SplitMix64(seed: UInt64(bytes.count) << 8 | UInt64(last))
    // The largest piece: 1 to 4 096 bytes, a power of two chosen per input.
    let largest = 1 << Int(generator.next() % 13)
    var pieces: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
        let size = Int.random(in: 1...largest, using: &generator)
        let end = min(start + size, bytes.count)
        pieces.append(Array(bytes[start..<end]))
        start = end
    }
    return pieces
}
