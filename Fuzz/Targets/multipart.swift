import EarshotTesting

/// libFuzzer entry for `multipart`: a multipart/x-srgs-audio body, read whole and in pieces (see ServerFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try ServerFuzzEntry.multipart(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
