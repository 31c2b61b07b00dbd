import EarshotTesting

/// libFuzzer entry for `secrets`: a secrets file (--credentials, --api-keys, --token-key) (see SecretsFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try SecretsFuzzEntry.secretsFile(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
