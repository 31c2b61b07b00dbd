// What every twin does the portable kernels' way: the lanes' final sum and the store. Internal to
// CWhisperKernels (not in include/); included after `#pragma clang fp contract(off)`.
#ifndef EARSHOT_WHISPER_KERNELS_LANES_H
#define EARSHOT_WHISPER_KERNELS_LANES_H

/// Four lanes summed in order from -0, as Swift's SIMD4<Float>.sum() does.
static inline float sum_in_order(const float *lanes) {
    float total = -0.0f;
    for (int i = 0; i < 4; i++) total += lanes[i];
    return total;
}

/// `c = c + alpha · total` when accumulating, else `c = alpha · total`, as the Swift kernel stores.
static inline void store(float *c, float alpha, float total, int accumulate) {
    if (accumulate) {
        *c = *c + alpha * total;
    } else {
        *c = alpha * total;
    }
}

#endif
