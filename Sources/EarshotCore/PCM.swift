/// Conversions between Earshot's float samples and integer PCM.
///
/// The convention is the one libsndfile uses when reading: an Int16 `x` is the float `x / 32768`, so
/// every 16-bit value maps to a distinct float and back exactly. Floats outside the representable
/// range saturate instead of wrapping.
public enum PCM {
    public static let int16Scale: Float = 32_768

    @inlinable
    public static func float(_ sample: Int16) -> Float { Float(sample) / int16Scale }

    @inlinable
    public static func int16(_ sample: Float) -> Int16 {
        let scaled = (sample * int16Scale).rounded()
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        return Int16(scaled)
    }

    /// Converts `source` into `destination`, which must be at least as long.
    @inlinable
    public static func convert(_ source: UnsafeBufferPointer<Float>, to destination: UnsafeMutableBufferPointer<Int16>)
    {
        precondition(destination.count >= source.count)
        for i in source.indices { destination[i] = int16(source[i]) }
    }

    /// Converts `source` into `destination`, which must be at least as long.
    @inlinable
    public static func convert(_ source: UnsafeBufferPointer<Int16>, to destination: UnsafeMutableBufferPointer<Float>)
    {
        precondition(destination.count >= source.count)
        for i in source.indices { destination[i] = float(source[i]) }
    }
}
