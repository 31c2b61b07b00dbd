import EarshotCore
import Foundation

/// Draws used by the recipes, computed from ``SplitMix64``'s raw bits with our own arithmetic, so a
/// corpus depends only on its seed and never on how a standard library maps bits to ranges.
extension SplitMix64 {
    /// Uniform in [0, 1), from the top 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// Uniform integer in `range` (the tiny modulo bias is irrelevant for choosing corpus parameters).
    mutating func integer(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// One element of `items`, which must not be empty.
    mutating func pick<T>(_ items: [T]) -> T { items[integer(0...items.count - 1)] }

    /// `items` in a random order (Fisher–Yates).
    mutating func shuffled<T>(_ items: [T]) -> [T] {
        var out = items
        for index in stride(from: out.count - 1, to: 0, by: -1) {
            out.swapAt(index, integer(0...index))
        }
        return out
    }

    /// A standard normal draw (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-300)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * unit())
    }
}
