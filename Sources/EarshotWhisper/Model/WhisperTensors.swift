/// The loaded values of a model's tensors, at the precision the kernels read them: each weight matrix
/// (a name ending in `/weight`) that the file stores as float16 stays IEEE halves — its exact values in
/// half the bytes, widened inside the kernels — and every other tensor (biases, norms, positions, and
/// matrices stored as float32, bfloat16 or int8) is widened to `Float` once. Two allocations, owned here
/// and never written after loading; ``WhisperWeights`` views them.
final class WhisperTensors {
    /// Where a tensor's values are: an offset into ``floats`` or into ``halves``.
    enum Place {
        case float(Int)
        case half(Int)
    }

    let floats: UnsafeMutablePointer<Float>
    let halves: UnsafeMutablePointer<UInt16>
    let places: [String: Place]
    /// How many values each allocation holds.
    let floatCount: Int, halfCount: Int
    /// Bytes of the two allocations: what the weights occupy in memory.
    var byteCount: Int { 4 * floatCount + 2 * halfCount }

    /// Whether a tensor is one of the weight matrices the kernels can read as halves.
    static func isMatrix(_ name: String) -> Bool { name.hasSuffix("/weight") }

    /// Lays out `tensors` (name and shape; `half` for those kept as halves) and allocates their storage,
    /// uninitialized: the loader writes each tensor's values once.
    init(tensors: [(name: String, shape: [Int], half: Bool)]) {
        var places: [String: Place] = [:]
        var (floatCount, halfCount) = (0, 0)
        for tensor in tensors {
            let count = tensor.shape.reduce(1, *)
            if tensor.half {
                places[tensor.name] = .half(halfCount)
                halfCount += count
            } else {
                places[tensor.name] = .float(floatCount)
                floatCount += count
            }
        }
        self.places = places
        (self.floatCount, self.halfCount) = (floatCount, halfCount)
        floats = .allocate(capacity: max(floatCount, 1))
        halves = .allocate(capacity: max(halfCount, 1))
    }

    deinit {
        floats.deallocate()
        halves.deallocate()
    }

    /// The values of a tensor widened to `Float` (one that is not a matrix kept as halves).
    func values(_ name: String) -> UnsafePointer<Float> {
        guard case .float(let offset) = places[name] else { preconditionFailure("\(name) is not held as floats") }
        return UnsafePointer(floats + offset)
    }

    /// A weight matrix as it is held.
    func matrix(_ name: String) -> WhisperWeights.Matrix {
        switch places[name] {
        case .float(let offset): .float(UnsafePointer(floats + offset))
        case .half(let offset): .half(UnsafePointer(halves + offset))
        case nil: preconditionFailure("\(name) was not loaded")
        }
    }
}
