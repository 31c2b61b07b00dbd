import CSpeex
public import EarshotCore

/// The Speex mode a stream is coded in: narrowband (8 kHz, 160-sample frames) or wideband (16 kHz,
/// 320-sample frames, the Speech SDK's default). Both code 20 ms per frame.
public enum SpeexBand: String, Sendable, Hashable, CaseIterable {
    /// 8 kHz, `speex_nb_mode`.
    case narrowband
    /// 16 kHz, `speex_wb_mode` (sub-band CELP over the narrowband coder).
    case wideband

    /// The audio format the band codes.
    public var format: AudioFormat {
        switch self {
        case .narrowband: .narrowband
        case .wideband: .wideband
        }
    }

    /// Samples per channel in one 20 ms frame.
    public var frameSize: Int {
        switch self {
        case .narrowband: 160
        case .wideband: 320
        }
    }

    /// libspeex's mode id (`SPEEX_MODEID_NB`, `SPEEX_MODEID_WB`), also the `mode` field of an Ogg
    /// Speex header.
    var modeID: Int32 {
        switch self {
        case .narrowband: SPEEX_MODEID_NB
        case .wideband: SPEEX_MODEID_WB
        }
    }

    /// libspeex's static mode table. The pointer is what the library keeps; taking the address of
    /// the imported `speex_wb_mode` global could hand it a temporary copy instead.
    var mode: UnsafePointer<SpeexMode> { speex_lib_get_mode(modeID) }

    /// The band an Ogg Speex header's `mode` field names, if Earshot decodes it.
    init?(modeID: Int32) {
        switch modeID {
        case SPEEX_MODEID_NB: self = .narrowband
        case SPEEX_MODEID_WB: self = .wideband
        default: return nil
        }
    }
}
