/// The loaded values of a model's tensors, at the precision the kernels read them (``Storage``): a
/// weight matrix (a name ending in `/weight`) stays IEEE halves when the file stores float16, or int8
/// with one step per row when the file stores int8 or the user asks for int8; every other tensor
/// (biases, norms, positions, and the matrices held as floats) is widened to `Float` once. Three
/// allocations, owned here and never written after loading; ``WhisperWeights`` views them.
final class WhisperTensors {
    /// How a tensor is held.
    enum Storage {
        case float, half, int8
    }

    /// Where a tensor's values are: an offset into ``floats``, ``halves`` or ``bytes``; an int8
    /// matrix's steps (one `Float` per row: a value is `q · step`) are in ``floats``.
    enum Place {
        case float(Int)
        case half(Int)
        case int8(values: Int, steps: Int)
    }

    let floats: UnsafeMutablePointer<Float>
    let halves: UnsafeMutablePointer<UInt16>
    let bytes: UnsafeMutablePointer<Int8>
    let places: [String: Place]
    /// How many values each allocation holds.
    let floatCount: Int, halfCount: Int, int8Count: Int
    /// Bytes of the three allocations: what the weights occupy in memory.
    var byteCount: Int { 4 * floatCount + 2 * halfCount + int8Count }

    /// Whether a tensor is one of the weight matrices the kernels can read as halves or int8.
    static func isMatrix(_ name: String) -> Bool { name.hasSuffix("/weight") }

    /// Lays out `tensors` (name, shape and how each is held) and allocates their storage,
    /// uninitialized: the loader writes each tensor's values once.
    init(tensors: [(name: String, shape: [Int], storage: Storage)]) {
        var places: [String: Place] = [:]
        var (floatCount, halfCount, int8Count) = (0, 0, 0)
        for tensor in tensors {
            let count = tensor.shape.reduce(1, *)
            switch tensor.storage {
            case .float:
                places[tensor.name] = .float(floatCount)
                floatCount += count
            case .half:
                places[tensor.name] = .half(halfCount)
                halfCount += count
            case .int8:
                places[tensor.name] = .int8(values: int8Count, steps: floatCount)
                int8Count += count
                floatCount += tensor.shape.first ?? 1
            }
        }
        self.places = places
        (self.floatCount, self.halfCount, self.int8Count) = (floatCount, halfCount, int8Count)
        floats = .allocate(capacity: max(floatCount, 1))
        halves = .allocate(capacity: max(halfCount, 1))
        bytes = .allocate(capacity: max(int8Count, 1))
    }

    deinit {
        floats.deallocate()
        halves.deallocate()
        bytes.deallocate()
    }

    /// The values of a tensor widened to `Float` (one that is not a matrix kept as halves or int8).
    func values(_ name: String) -> UnsafePointer<Float> {
        guard case .float(let offset) = places[name] else { preconditionFailure("\(name) is not held as floats") }
        return UnsafePointer(floats + offset)
    }

    /// A weight matrix as it is held.
    func matrix(_ name: String) -> WhisperWeights.Matrix {
        switch places[name] {
        case .float(let offset): .float(UnsafePointer(floats + offset))
        case .half(let offset): .half(UnsafePointer(halves + offset))
        case .int8(let values, let steps): .int8(UnsafePointer(bytes + values), steps: UnsafePointer(floats + steps))
        case nil: preconditionFailure("\(name) was not loaded")
        }
    }
}
