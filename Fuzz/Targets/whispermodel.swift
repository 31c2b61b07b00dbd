import EarshotTesting

/// libFuzzer entry for `whispermodel`: the bytes as a CTranslate2 `model.bin`, read and loaded as a
/// Whisper model (see WhisperModelFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try WhisperModelFuzzEntry.run(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
