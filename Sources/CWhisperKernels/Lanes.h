// What every twin does the portable kernels' way: the lanes' final sum, the store, and the exponential
// and erf for the values left after a vector's groups. Internal to
// CWhisperKernels (not in include/); included after `#pragma clang fp contract(off)`.
#ifndef EARSHOT_WHISPER_KERNELS_LANES_H
#define EARSHOT_WHISPER_KERNELS_LANES_H

#include <stdint.h>

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

/// WhisperKernels.exp for one value (the lanes left after a vector's groups).
static inline float exp1(float x) {
    const float clamped = x > 88.72283f ? 88.72283f : (x < -87.33654f ? -87.33654f : x);
    const float shifted = clamped * 1.44269504088896341f + 12582912.0f;
    const float n = shifted - 12582912.0f;
    const float r = clamped - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    uint32_t pattern;
    __builtin_memcpy(&pattern, &shifted, 4);
    pattern = (pattern - 0x4B400000u + 127u) << 23;
    float scale;
    __builtin_memcpy(&scale, &pattern, 4);
    return x < -87.33654f ? 0.0f : p * scale;
}

/// WhisperKernels.erf for one value.
static inline float erf1(float x) {
    uint32_t bits;
    __builtin_memcpy(&bits, &x, 4);
    const uint32_t absolute = bits & 0x7fffffffu;
    float a;
    __builtin_memcpy(&a, &absolute, 4);
    const float t = 1.0f / (1.0f + 0.3275911f * a);
    float p = 1.061405429f;
    p = p * t - 1.453152027f;
    p = p * t + 1.421413741f;
    p = p * t - 0.284496736f;
    p = p * t + 0.254829592f;
    const float magnitude = 1.0f - p * t * exp1(-a * a);
    uint32_t m;
    __builtin_memcpy(&m, &magnitude, 4);
    m |= bits & 0x80000000u;
    float result;
    __builtin_memcpy(&result, &m, 4);
    return result;
}

#endif
