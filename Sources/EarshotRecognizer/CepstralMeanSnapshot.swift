import CPocketSphinx

/// A copy of a decoder's cepstral-mean normalisation state, to return it to how it was when loaded.
///
/// PocketSphinx updates the mean at the end of every utterance and never resets it. sphinxbase's
/// `cmn_live_set` seeds a mean but not the running sum and frame count that follow it, so a decoder
/// reset with it still decodes differently from a fresh one (measured on the LibriVox clips); copying
/// all three fields of `cmn_t`, which sphinxbase's public header defines, restores it exactly.
struct CepstralMeanSnapshot {
    private let mean: [mfcc_t]
    private let sum: [mfcc_t]
    private let frameCount: Int32

    /// Snapshots `decoder`'s state, or nil when its model does no cepstral-mean normalisation.
    init?(decoder: OpaquePointer) {
        guard let state = Self.state(of: decoder) else { return nil }
        let length = Int(state.pointee.veclen)
        mean = Array(UnsafeBufferPointer(start: state.pointee.cmn_mean, count: length))
        sum = Array(UnsafeBufferPointer(start: state.pointee.sum, count: length))
        frameCount = state.pointee.nframe
    }

    /// Puts the snapshot back into `decoder`, which must be the one it was taken from.
    func restore(into decoder: OpaquePointer) {
        guard let state = Self.state(of: decoder), Int(state.pointee.veclen) == mean.count else { return }
        state.pointee.cmn_mean.update(from: mean, count: mean.count)
        state.pointee.sum.update(from: sum, count: sum.count)
        state.pointee.nframe = frameCount
    }

    private static func state(of decoder: OpaquePointer) -> UnsafeMutablePointer<cmn_t>? {
        guard let features = ps_get_feat(decoder), let state = features.pointee.cmn_struct,
            state.pointee.cmn_mean != nil, state.pointee.sum != nil
        else { return nil }
        return state
    }
}
