/// Reading a weight matrix into int8 with one step per row (``WhisperTensors/Storage/int8``): an int8
/// variable as it is stored, or a floating-point one quantized row by row as CTranslate2 quantizes
/// (``WhisperKernels/quantize(_:count:into:)``), a block of rows at a time so loading never holds a
/// matrix's floats whole.
extension CTranslate2ModelFile {
    /// Copies an int8 variable's values as stored, and each row's step: a value is `q / scale`, so the
    /// step is the scale's inverse, as widening computes it. Returns false if a value is −128 (outside
    /// the −127…127 CTranslate2 writes, and the products' sign trick needs) or a scale is not a positive
    /// finite number.
    func copyInt8(
        _ variable: Variable, scales: [Float], into output: UnsafeMutablePointer<Int8>,
        steps: UnsafeMutablePointer<Float>
    ) throws(Malformed) -> Bool {
        precondition(variable.type == .int8)
        try source.copy(from: variable.offset, count: variable.byteCount, into: output)
        var valid = true
        for i in 0..<variable.count where output[i] == -128 { valid = false }
        for (row, scale) in scales.enumerated() {
            steps[row] = 1 / scale
            if !(scale.isFinite && scale > 0) { valid = false }
        }
        return valid
    }

    /// Quantizes a float32, float16 or bfloat16 matrix (rows of its shape's first dimension) into `output`,
    /// each row's step into `steps`; returns false if any value is not finite.
    func quantize(
        _ variable: Variable, into output: UnsafeMutablePointer<Int8>, steps: UnsafeMutablePointer<Float>
    ) throws(Malformed) -> Bool {
        precondition([.float32, .float16, .bfloat16].contains(variable.type))
        let rows = variable.shape.first ?? 1
        let columns = rows > 0 ? variable.count / rows : 0
        let rowBytes = columns * variable.type.size
        // About 1 MB of the file at a time.
        let block = max(1, min(rows, (1 << 20) / max(rowBytes, 1)))
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: block * columns)
        defer { floats.deallocate() }
        var allFinite = true
        var first = 0
        while first < rows {
            let count = min(block, rows - first)
            let piece = Variable(
                name: variable.name, shape: [count, columns], type: variable.type,
                offset: variable.offset + first * rowBytes, byteCount: count * rowBytes)
            if try !widen(piece, into: floats) { allFinite = false }
            for row in 0..<count {
                steps[first + row] = WhisperKernels.quantize(
                    floats + row * columns, count: columns, into: output + (first + row) * columns)
            }
            first += count
        }
        return allFinite
    }
}
