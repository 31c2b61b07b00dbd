#if canImport(Glibc)
    import Glibc
#endif

/// Where ``CTranslate2ModelFile`` reads a `model.bin`'s bytes from: an open file, read piece by piece
/// at each offset (`pread`), so loading a model holds its tensors and nothing of the file beside them
/// (the file's pages stay in the page cache, not in the process); or bytes in memory (tests, fuzzing).
enum ModelFileBytes {
    case memory(UnsafeRawBufferPointer)
    /// An open descriptor and the file's size when it was opened.
    case file(descriptor: Int32, size: Int)

    var count: Int {
        switch self {
        case .memory(let bytes): bytes.count
        case .file(_, let size): size
        }
    }

    /// Copies `count` bytes from `offset` to `destination`. The caller keeps the range inside
    /// ``count``; a file that has since become shorter, or fails to read, is refused at `offset`.
    func copy(
        from offset: Int, count: Int, into destination: UnsafeMutableRawPointer
    ) throws(CTranslate2ModelFile.Malformed) {
        precondition(offset >= 0 && count >= 0 && offset + count <= self.count, "a read past the model file")
        switch self {
        case .memory(let bytes):
            guard count > 0 else { return }
            destination.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        case .file(let descriptor, _):
            var done = 0
            while done < count {
                let got = pread(descriptor, destination + done, count - done, off_t(offset + done))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    let reason =
                        got == 0
                        ? "the file ends early (shortened while it was read?)"
                        : "the file could not be read (\(String(cString: strerror(errno))))"
                    throw CTranslate2ModelFile.Malformed(reason: reason, offset: offset + done)
                }
                done += got
            }
        }
    }

    /// `count` bytes from `offset`, read into a new array.
    func bytes(from offset: Int, count: Int) throws(CTranslate2ModelFile.Malformed) -> [UInt8] {
        var failure: CTranslate2ModelFile.Malformed?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(CTranslate2ModelFile.Malformed) {
                if count > 0 { try copy(from: offset, count: count, into: buffer.baseAddress!) }
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// A value of type `T` stored little-endian at `offset` (every machine this runs on is little-endian).
    func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) throws(CTranslate2ModelFile.Malformed) -> T {
        var value = T.zero
        try withUnsafeMutableBytes(of: &value) { (raw) throws(CTranslate2ModelFile.Malformed) in
            try copy(from: offset, count: MemoryLayout<T>.size, into: raw.baseAddress!)
        }
        return T(littleEndian: value)
    }
}
