import EarshotTesting

/// libFuzzer entry for `wav`: a WAV stream through the streaming decoder, whole and in pieces, and the
/// file checks that guard libsndfile: WAV chunks, MP3 frames, Ogg pages (see CodecFuzzEntry, WAVHeaderCheckFuzzEntry).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try CodecFuzzEntry.wav(bytes)
        try WAVHeaderCheckFuzzEntry.run(bytes)
    } catch {
        // A contract broken without a crash: trap, so libFuzzer saves the input.
        fatalError("\(error)")
    }
    return 0
}
