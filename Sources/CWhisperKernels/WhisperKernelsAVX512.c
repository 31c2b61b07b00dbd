// AVX-512 twins of WhisperKernels.multiplyFewRows and multiplyHalfRows (see the header). Only the
// functions marked with the target attribute use AVX-512; callers check the CPU first.
#include "CWhisperKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Products and sums stay separate operations, as in the Swift kernels: a fused multiply-add rounds once
// where they round twice, and the parity test expects CTranslate2's tokens to the bit.
#pragma clang fp contract(off)
#include "Lanes.h"  // after the pragma: its sums and stores must not fuse either

#define AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,f16c")))

/// One column the portable way, for the columns left over after groups of four.
AVX512 static void one_column(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *row, ptrdiff_t depth, float *c,
    ptrdiff_t cStride, float alpha, int accumulate) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        __m128 sum = _mm_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 4) {
            sum = _mm_add_ps(sum, _mm_mul_ps(_mm_loadu_ps(row + k), _mm_loadu_ps(a + r * aStride + k)));
        }
        float lanes[4];
        _mm_storeu_ps(lanes, sum);
        store(c + r * cStride, alpha, sum_in_order(lanes), accumulate);
    }
}

/// Four columns at once, `rows` a constant where it is inlined, so the sums stay in registers.
AVX512 static inline __attribute__((always_inline)) void four_columns(
    const float *a, const ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t depth,
    float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    __m512 sums[8];
    for (ptrdiff_t r = 0; r < rows; r++) sums[r] = _mm512_setzero_ps();
    const float *w0 = w, *w1 = w + wStride, *w2 = w + 2 * wStride, *w3 = w + 3 * wStride;
    for (ptrdiff_t k = 0; k < depth; k += 4) {
        __m512 weights = _mm512_castps128_ps512(_mm_loadu_ps(w0 + k));
        weights = _mm512_insertf32x4(weights, _mm_loadu_ps(w1 + k), 1);
        weights = _mm512_insertf32x4(weights, _mm_loadu_ps(w2 + k), 2);
        weights = _mm512_insertf32x4(weights, _mm_loadu_ps(w3 + k), 3);
        for (ptrdiff_t r = 0; r < rows; r++) {
            const __m512 x = _mm512_broadcast_f32x4(_mm_loadu_ps(a + r * aStride + k));
            sums[r] = _mm512_add_ps(sums[r], _mm512_mul_ps(weights, x));
        }
    }
    for (ptrdiff_t r = 0; r < rows; r++) {
        float lanes[16];
        _mm512_storeu_ps(lanes, sums[r]);
        for (int q = 0; q < 4; q++) store(c + r * cStride + q, alpha, sum_in_order(lanes + 4 * q), accumulate);
    }
}

#define FOUR_COLUMNS(ROWS) \
    for (; j + 4 <= columns; j += 4) \
        four_columns(a, ROWS, aStride, w + j * wStride, wStride, depth, c + j, cStride, alpha, accumulate); \
    break

AVX512 void earshot_whisper_few_rows_avx512(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    ptrdiff_t j = 0;
    switch (rows) {
    case 1: FOUR_COLUMNS(1);
    case 2: FOUR_COLUMNS(2);
    case 3: FOUR_COLUMNS(3);
    case 4: FOUR_COLUMNS(4);
    case 5: FOUR_COLUMNS(5);
    case 6: FOUR_COLUMNS(6);
    case 7: FOUR_COLUMNS(7);
    case 8: FOUR_COLUMNS(8);
    default: return;
    }
    for (; j < columns; j++) one_column(a, rows, aStride, w + j * wStride, depth, c + j, cStride, alpha, accumulate);
}

/// four_columns reading halves: four rows of halves widened into one register per step.
AVX512 static inline __attribute__((always_inline)) void four_half_columns(
    const float *a, const ptrdiff_t rows, const uint16_t *w, ptrdiff_t depth, float *c, ptrdiff_t cStride) {
    __m512 sums[8];
    for (ptrdiff_t r = 0; r < rows; r++) sums[r] = _mm512_setzero_ps();
    const uint16_t *w0 = w, *w1 = w + depth, *w2 = w + 2 * depth, *w3 = w + 3 * depth;
    for (ptrdiff_t k = 0; k < depth; k += 4) {
        __m256i halves = _mm256_castsi128_si256(_mm_unpacklo_epi64(
            _mm_loadl_epi64((const __m128i *)(w0 + k)), _mm_loadl_epi64((const __m128i *)(w1 + k))));
        halves = _mm256_inserti128_si256(
            halves,
            _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(w2 + k)), _mm_loadl_epi64((const __m128i *)(w3 + k))),
            1);
        const __m512 weights = _mm512_cvtph_ps(halves);
        for (ptrdiff_t r = 0; r < rows; r++) {
            const __m512 x = _mm512_broadcast_f32x4(_mm_loadu_ps(a + r * depth + k));
            sums[r] = _mm512_add_ps(sums[r], _mm512_mul_ps(weights, x));
        }
    }
    for (ptrdiff_t r = 0; r < rows; r++) {
        float lanes[16];
        _mm512_storeu_ps(lanes, sums[r]);
        for (int q = 0; q < 4; q++) c[r * cStride + q] = sum_in_order(lanes + 4 * q);
    }
}

#define FOUR_HALF_COLUMNS(ROWS) \
    for (; j + 4 <= columns; j += 4) four_half_columns(a, ROWS, w + j * depth, depth, c + j, cStride); \
    break

AVX512 void earshot_whisper_few_half_rows_avx512(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride) {
    ptrdiff_t j = 0;
    switch (rows) {
    case 1: FOUR_HALF_COLUMNS(1);
    case 2: FOUR_HALF_COLUMNS(2);
    case 3: FOUR_HALF_COLUMNS(3);
    case 4: FOUR_HALF_COLUMNS(4);
    case 5: FOUR_HALF_COLUMNS(5);
    case 6: FOUR_HALF_COLUMNS(6);
    case 7: FOUR_HALF_COLUMNS(7);
    case 8: FOUR_HALF_COLUMNS(8);
    default: return;
    }
    for (; j < columns; j++) {
        const uint16_t *row = w + j * depth;
        for (ptrdiff_t r = 0; r < rows; r++) {
            __m128 sum = _mm_setzero_ps();
            for (ptrdiff_t k = 0; k < depth; k += 4) {
                const __m128 weights = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(row + k)));
                sum = _mm_add_ps(sum, _mm_mul_ps(weights, _mm_loadu_ps(a + r * depth + k)));
            }
            float lanes[4];
            _mm_storeu_ps(lanes, sum);
            c[r * cStride + j] = sum_in_order(lanes);
        }
    }
}

AVX512 void earshot_whisper_half_rows_avx512(
    const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c) {
    ptrdiff_t j = 0;
    // Two columns per register: [column j's even four, its odd four, column j+1's even, its odd]. The
    // portable kernel keeps an "even" and an "odd" partial sum per column (halves 8k…8k+3 and
    // 8k+4…8k+7), added lane by lane at the end; so do these.
    for (; j + 4 <= columns; j += 4) {
        const uint16_t *r0 = w + j * depth, *r1 = r0 + depth, *r2 = r1 + depth, *r3 = r2 + depth;
        __m512 s01 = _mm512_setzero_ps(), s23 = _mm512_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 8) {
            const __m256 x8 = _mm256_loadu_ps(a + k);
            const __m512 x = _mm512_insertf32x8(_mm512_castps256_ps512(x8), x8, 1);
            __m256i h01 = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(r0 + k)));
            h01 = _mm256_inserti128_si256(h01, _mm_loadu_si128((const __m128i *)(r1 + k)), 1);
            __m256i h23 = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(r2 + k)));
            h23 = _mm256_inserti128_si256(h23, _mm_loadu_si128((const __m128i *)(r3 + k)), 1);
            s01 = _mm512_add_ps(s01, _mm512_mul_ps(_mm512_cvtph_ps(h01), x));
            s23 = _mm512_add_ps(s23, _mm512_mul_ps(_mm512_cvtph_ps(h23), x));
        }
        float lanes[32];
        _mm512_storeu_ps(lanes, s01);
        _mm512_storeu_ps(lanes + 16, s23);
        for (int q = 0; q < 4; q++) {
            const float *even = lanes + 8 * q, *odd = even + 4;
            float both[4];
            for (int i = 0; i < 4; i++) both[i] = even[i] + odd[i];
            c[j + q] = sum_in_order(both);
        }
    }
    for (; j < columns; j++) {
        const uint16_t *row = w + j * depth;
        __m128 even = _mm_setzero_ps(), odd = _mm_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 8) {
            const __m256 halves = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + k)));
            even = _mm_add_ps(even, _mm_mul_ps(_mm256_castps256_ps128(halves), _mm_loadu_ps(a + k)));
            odd = _mm_add_ps(odd, _mm_mul_ps(_mm256_extractf128_ps(halves, 1), _mm_loadu_ps(a + k + 4)));
        }
        float lanes[4];
        _mm_storeu_ps(lanes, _mm_add_ps(even, odd));
        c[j] = sum_in_order(lanes);
    }
}

/// WhisperKernels.exp, sixteen lanes: the same operations in the same order, lane by lane.
AVX512 static inline __m512 exp16(__m512 x) {
    const __m512 high = _mm512_set1_ps(88.72283f), low = _mm512_set1_ps(-87.33654f);
    const __m512 clamped = _mm512_max_ps(_mm512_min_ps(x, high), low);
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    const __m512 shifted = _mm512_add_ps(_mm512_mul_ps(clamped, _mm512_set1_ps(1.44269504088896341f)), magic);
    const __m512 n = _mm512_sub_ps(shifted, magic);
    const __m512 r = _mm512_add_ps(
        _mm512_sub_ps(clamped, _mm512_mul_ps(n, _mm512_set1_ps(0.693359375f))),
        _mm512_mul_ps(n, _mm512_set1_ps(2.12194440e-4f)));
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(p, r), r), r), _mm512_set1_ps(1.0f));
    const __m512i bits = _mm512_slli_epi32(
        _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_set1_epi32(0x4B400000)),
                         _mm512_set1_epi32(127)),
        23);
    const __m512 value = _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
    const __mmask16 under = _mm512_cmp_ps_mask(x, low, _CMP_LT_OQ);
    return _mm512_mask_blend_ps(under, value, _mm512_setzero_ps());
}

AVX512 void earshot_whisper_softmax_avx512(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride) {
    for (ptrdiff_t row = 0; row < rows; row++) {
        float *values = x + row * stride;
        // The maximum: the same value whatever the order.
        __m512 lanes = _mm512_set1_ps(-__builtin_inff());
        ptrdiff_t i = 0;
        for (; i + 16 <= width; i += 16) lanes = _mm512_max_ps(lanes, _mm512_loadu_ps(values + i));
        float maximum = _mm512_reduce_max_ps(lanes);
        for (; i < width; i++) maximum = values[i] > maximum ? values[i] : maximum;
        const __m512 m = _mm512_set1_ps(maximum);
        for (i = 0; i + 16 <= width; i += 16) {
            _mm512_storeu_ps(values + i, exp16(_mm512_sub_ps(_mm512_loadu_ps(values + i), m)));
        }
        for (; i < width; i++) values[i] = exp1(values[i] - maximum);
        // The sum in WhisperKernels.sum's order: four lanes, paired, then the rest one by one.
        __m128 four = _mm_setzero_ps();
        for (i = 0; i + 4 <= width; i += 4) four = _mm_add_ps(four, _mm_loadu_ps(values + i));
        float l[4];
        _mm_storeu_ps(l, four);
        float sum = (l[0] + l[1]) + (l[2] + l[3]);
        for (; i < width; i++) sum += values[i];
        const float inverse = 1.0f / sum;
        const __m512 scale = _mm512_set1_ps(inverse);
        for (i = 0; i + 16 <= width; i += 16) _mm512_storeu_ps(values + i, _mm512_mul_ps(_mm512_loadu_ps(values + i), scale));
        for (; i < width; i++) values[i] *= inverse;
    }
}

/// WhisperKernels.erf, sixteen lanes.
AVX512 static inline __m512 erf16(__m512 x) {
    const __m512i signBit = _mm512_set1_epi32((int)0x80000000u);
    const __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(signBit, _mm512_castps_si512(x)));
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 t = _mm512_div_ps(one, _mm512_add_ps(one, _mm512_mul_ps(_mm512_set1_ps(0.3275911f), a)));
    __m512 p = _mm512_set1_ps(1.061405429f);
    p = _mm512_sub_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(1.453152027f));
    p = _mm512_add_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(1.421413741f));
    p = _mm512_sub_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(0.284496736f));
    p = _mm512_add_ps(_mm512_mul_ps(p, t), _mm512_set1_ps(0.254829592f));
    const __m512 negated = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), signBit));
    const __m512 magnitude = _mm512_sub_ps(one, _mm512_mul_ps(_mm512_mul_ps(p, t), exp16(_mm512_mul_ps(negated, a))));
    return _mm512_castsi512_ps(_mm512_or_si512(
        _mm512_castps_si512(magnitude), _mm512_and_si512(_mm512_castps_si512(x), signBit)));
}

AVX512 void earshot_whisper_gelu_avx512(float *x, ptrdiff_t count) {
    const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), root = _mm512_set1_ps(0.70710678118654752f);
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 value = _mm512_loadu_ps(x + i);
        const __m512 e = erf16(_mm512_mul_ps(value, root));
        _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_mul_ps(half, value), _mm512_add_ps(one, e)));
    }
    for (; i < count; i++) {
        const float value = x[i];
        x[i] = 0.5f * value * (1.0f + erf1(value * 0.70710678118654752f));
    }
}

#else

void earshot_whisper_few_rows_avx512(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    (void)a, (void)rows, (void)aStride, (void)w, (void)wStride, (void)columns, (void)depth, (void)c,
        (void)cStride, (void)alpha, (void)accumulate;
    __builtin_trap();  // never called: only x86-64 has AVX-512
}

void earshot_whisper_half_rows_avx512(
    const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c) {
    (void)a, (void)w, (void)columns, (void)depth, (void)c;
    __builtin_trap();
}

void earshot_whisper_few_half_rows_avx512(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride) {
    (void)a, (void)rows, (void)w, (void)columns, (void)depth, (void)c, (void)cStride;
    __builtin_trap();
}

void earshot_whisper_softmax_avx512(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride) {
    (void)x, (void)rows, (void)width, (void)stride;
    __builtin_trap();
}

void earshot_whisper_gelu_avx512(float *x, ptrdiff_t count) {
    (void)x, (void)count;
    __builtin_trap();
}

#endif
