import EarshotTesting

/// libFuzzer entry for `token`: a signed token's text (see SecretsFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try SecretsFuzzEntry.signedToken(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
