import COpus

/// libopus's integer encoder controls. Swift cannot call the variadic `opus_encoder_ctl`, so these go
/// through fixed-signature wrappers in the COpus shim header.
enum OpusControl {
    /// Sets an integer option (`OPUS_SET_*_REQUEST`); returns libopus's status (`OPUS_OK` is 0).
    static func set(_ encoder: OpaquePointer, _ request: Int32, _ value: Int32) -> Int32 {
        earshot_opus_encoder_set_int(encoder, request, value)
    }

    /// Reads an integer option (`OPUS_GET_*_REQUEST`).
    static func get(_ encoder: OpaquePointer, _ request: Int32) -> Int32? {
        var value: Int32 = 0
        return earshot_opus_encoder_get_int(encoder, request, &value) == OPUS_OK ? value : nil
    }
}
