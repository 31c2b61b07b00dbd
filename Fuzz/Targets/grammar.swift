import EarshotTesting

/// libFuzzer entry for `grammar`: an SRGS grammar expanded to JSGF, and a PLS lexicon (see GrammarFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try GrammarFuzzEntry.run(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
