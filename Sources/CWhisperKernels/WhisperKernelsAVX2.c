// AVX2 twins of WhisperKernels.multiplyFewRows, multiplyHalfRows, softmax and gelu (see the header), for CPUs with
// AVX2 and F16C but no AVX-512. Only the functions marked with the target attribute use them; callers
// check the CPU first.
#include "CWhisperKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

// Products and sums stay separate operations, as in the Swift kernels (no fused multiply-add: the
// target list leaves FMA out, and contraction is off).
#pragma clang fp contract(off)
#include "Lanes.h"  // after the pragma: its sums and stores must not fuse either

#define AVX2 __attribute__((target("avx2,f16c")))

/// Eight float weights, columns j and j+1 at depth k…k+3: [w0[k…k+3], w1[k…k+3]].
AVX2 static inline __m256 two_columns(const float *w0, const float *w1, ptrdiff_t k) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(w0 + k)), _mm_loadu_ps(w1 + k), 1);
}

/// The same from halves, widened exactly.
AVX2 static inline __m256 two_half_columns(const uint16_t *w0, const uint16_t *w1, ptrdiff_t k) {
    return _mm256_cvtph_ps(
        _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(w0 + k)), _mm_loadl_epi64((const __m128i *)(w1 + k))));
}

/// Asks for the cache line at `k` of the rows eight below `w0`…`w3` once per line (`line` weights):
/// the hardware's prefetcher does not follow four interleaved rows far enough ahead, and the products
/// wait on memory without this (measured: 5 rows × 51 864 × 384, 8.4 → 5.5 ms for floats, 8.0 → 4.2 ms
/// for halves, on a 2-core AMD EPYC).
#define PREFETCH_AHEAD(k, line)                                                                                   \
    if (((k) & ((line) - 1)) == 0) {                                                                              \
        _mm_prefetch((const char *)(w0 + (k) + 8 * wStride), _MM_HINT_T0);                                        \
        _mm_prefetch((const char *)(w1 + (k) + 8 * wStride), _MM_HINT_T0);                                        \
        _mm_prefetch((const char *)(w2 + (k) + 8 * wStride), _MM_HINT_T0);                                        \
        _mm_prefetch((const char *)(w3 + (k) + 8 * wStride), _MM_HINT_T0);                                        \
    }

/// `pairs` pairs of columns (1 or 2) at once, `rows` and `pairs` constants where it is inlined, so the
/// sums stay in registers: lanes 0–3 of a sum are one column's four partial sums, lanes 4–7 the next's,
/// each the portable kernel's SIMD4 to the bit. `LOAD` widens halves where `w` holds them.
#define COLUMNS_BODY(LOAD, W_T, LINE)                                                                             \
    __m256 sums[2][8];                                                                                            \
    for (ptrdiff_t r = 0; r < rows; r++) sums[0][r] = sums[1][r] = _mm256_setzero_ps();                           \
    const W_T *w0 = w, *w1 = w + wStride, *w2 = w + 2 * wStride, *w3 = w + 3 * wStride;                           \
    for (ptrdiff_t k = 0; k < depth; k += 4) {                                                                    \
        PREFETCH_AHEAD(k, LINE)                                                                                   \
        const __m256 first = LOAD(w0, w1, k);                                                                     \
        const __m256 second = pairs == 2 ? LOAD(w2, w3, k) : first;                                              \
        for (ptrdiff_t r = 0; r < rows; r++) {                                                                    \
            const __m256 x = _mm256_broadcast_ps((const __m128 *)(a + r * aStride + k));                         \
            sums[0][r] = _mm256_add_ps(sums[0][r], _mm256_mul_ps(first, x));                                      \
            if (pairs == 2) sums[1][r] = _mm256_add_ps(sums[1][r], _mm256_mul_ps(second, x));                     \
        }                                                                                                         \
    }                                                                                                             \
    for (ptrdiff_t r = 0; r < rows; r++) {                                                                        \
        for (int p = 0; p < pairs; p++) {                                                                         \
            float lanes[8];                                                                                       \
            _mm256_storeu_ps(lanes, sums[p][r]);                                                                  \
            store(c + r * cStride + 2 * p, alpha, sum_in_order(lanes), accumulate);                               \
            store(c + r * cStride + 2 * p + 1, alpha, sum_in_order(lanes + 4), accumulate);                       \
        }                                                                                                         \
    }

AVX2 static inline __attribute__((always_inline)) void float_columns(
    const float *a, const ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t depth,
    float *c, ptrdiff_t cStride, float alpha, int accumulate, const int pairs) {
    COLUMNS_BODY(two_columns, float, 16)
}

AVX2 static inline __attribute__((always_inline)) void half_columns(
    const float *a, const ptrdiff_t rows, ptrdiff_t aStride, const uint16_t *w, ptrdiff_t wStride, ptrdiff_t depth,
    float *c, ptrdiff_t cStride, float alpha, int accumulate, const int pairs) {
    COLUMNS_BODY(two_half_columns, uint16_t, 32)
}

/// One column the portable way, for a column left over after the pairs.
AVX2 static void one_column(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *row, const uint16_t *halfRow, ptrdiff_t depth,
    float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    for (ptrdiff_t r = 0; r < rows; r++) {
        __m128 sum = _mm_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 4) {
            const __m128 weights =
                row ? _mm_loadu_ps(row + k) : _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(halfRow + k)));
            sum = _mm_add_ps(sum, _mm_mul_ps(weights, _mm_loadu_ps(a + r * aStride + k)));
        }
        float lanes[4];
        _mm_storeu_ps(lanes, sum);
        store(c + r * cStride, alpha, sum_in_order(lanes), accumulate);
    }
}

// Four columns at a time while two sums per row fit the sixteen registers with the weights and the
// row's values (up to six rows), two columns at a time beyond.
#define FEW_ROWS(KIND, ROWS)                                                                                      \
    for (; j + 4 <= columns && ROWS <= 6; j += 4)                                                                 \
        KIND(a, ROWS, aStride, w + j * wStride, wStride, depth, c + j, cStride, alpha, accumulate, 2);            \
    for (; j + 2 <= columns; j += 2)                                                                              \
        KIND(a, ROWS, aStride, w + j * wStride, wStride, depth, c + j, cStride, alpha, accumulate, 1);            \
    break

#define SWITCH_ROWS(KIND)                                                                                         \
    switch (rows) {                                                                                               \
    case 1: FEW_ROWS(KIND, 1);                                                                                    \
    case 2: FEW_ROWS(KIND, 2);                                                                                    \
    case 3: FEW_ROWS(KIND, 3);                                                                                    \
    case 4: FEW_ROWS(KIND, 4);                                                                                    \
    case 5: FEW_ROWS(KIND, 5);                                                                                    \
    case 6: FEW_ROWS(KIND, 6);                                                                                    \
    case 7: FEW_ROWS(KIND, 7);                                                                                    \
    case 8: FEW_ROWS(KIND, 8);                                                                                    \
    default: return;                                                                                              \
    }

AVX2 void earshot_whisper_few_rows_avx2(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    ptrdiff_t j = 0;
    SWITCH_ROWS(float_columns)
    for (; j < columns; j++)
        one_column(a, rows, aStride, w + j * wStride, NULL, depth, c + j, cStride, alpha, accumulate);
}

AVX2 void earshot_whisper_few_half_rows_avx2(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride) {
    const ptrdiff_t aStride = depth, wStride = depth;
    const float alpha = 1;
    const int accumulate = 0;
    ptrdiff_t j = 0;
    SWITCH_ROWS(half_columns)
    for (; j < columns; j++) one_column(a, rows, aStride, NULL, w + j * wStride, depth, c + j, cStride, alpha, accumulate);
}

/// Column `j`'s even and odd partial sums, lane by lane, then its four lanes in order.
static inline float even_plus_odd(const float *lanes) {
    float both[4];
    for (int i = 0; i < 4; i++) both[i] = lanes[i] + lanes[4 + i];
    return sum_in_order(both);
}

AVX2 static inline __m256 eight_halves(const uint16_t *row, ptrdiff_t k) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + k)));
}

AVX2 void earshot_whisper_half_rows_avx2(
    const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c) {
    // One column per register: [its even four, its odd four]. The portable kernel keeps an "even" and
    // an "odd" partial sum per column (halves 8k…8k+3 and 8k+4…8k+7), added lane by lane at the end; so
    // do these. Four columns at a time, so consecutive additions do not wait for each other.
    ptrdiff_t j = 0;
    float lanes[8];
    for (; j + 4 <= columns; j += 4) {
        const uint16_t *w0 = w + j * depth, *w1 = w0 + depth, *w2 = w1 + depth, *w3 = w2 + depth;
        const ptrdiff_t wStride = depth;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 8) {
            PREFETCH_AHEAD(k, 32)
            const __m256 x = _mm256_loadu_ps(a + k);
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(eight_halves(w0, k), x));
            s1 = _mm256_add_ps(s1, _mm256_mul_ps(eight_halves(w1, k), x));
            s2 = _mm256_add_ps(s2, _mm256_mul_ps(eight_halves(w2, k), x));
            s3 = _mm256_add_ps(s3, _mm256_mul_ps(eight_halves(w3, k), x));
        }
        _mm256_storeu_ps(lanes, s0);
        c[j] = even_plus_odd(lanes);
        _mm256_storeu_ps(lanes, s1);
        c[j + 1] = even_plus_odd(lanes);
        _mm256_storeu_ps(lanes, s2);
        c[j + 2] = even_plus_odd(lanes);
        _mm256_storeu_ps(lanes, s3);
        c[j + 3] = even_plus_odd(lanes);
    }
    for (; j < columns; j++) {
        const uint16_t *row = w + j * depth;
        __m256 sum = _mm256_setzero_ps();
        for (ptrdiff_t k = 0; k < depth; k += 8) sum = _mm256_add_ps(sum, _mm256_mul_ps(eight_halves(row, k), _mm256_loadu_ps(a + k)));
        _mm256_storeu_ps(lanes, sum);
        c[j] = even_plus_odd(lanes);
    }
}

/// WhisperKernels.exp, eight lanes: the same operations in the same order, lane by lane.
AVX2 static inline __m256 exp8(__m256 x) {
    const __m256 high = _mm256_set1_ps(88.72283f), low = _mm256_set1_ps(-87.33654f);
    const __m256 clamped = _mm256_max_ps(_mm256_min_ps(x, high), low);
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    const __m256 shifted = _mm256_add_ps(_mm256_mul_ps(clamped, _mm256_set1_ps(1.44269504088896341f)), magic);
    const __m256 n = _mm256_sub_ps(shifted, magic);
    const __m256 r = _mm256_add_ps(
        _mm256_sub_ps(clamped, _mm256_mul_ps(n, _mm256_set1_ps(0.693359375f))),
        _mm256_mul_ps(n, _mm256_set1_ps(2.12194440e-4f)));
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r), _mm256_set1_ps(1.0f));
    const __m256i bits = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000)),
                         _mm256_set1_epi32(127)),
        23);
    const __m256 value = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
    const __m256 under = _mm256_cmp_ps(x, low, _CMP_LT_OQ);
    return _mm256_blendv_ps(value, _mm256_setzero_ps(), under);
}

AVX2 void earshot_whisper_softmax_avx2(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride) {
    for (ptrdiff_t row = 0; row < rows; row++) {
        float *values = x + row * stride;
        // The maximum: the same value whatever the order.
        __m256 lanes = _mm256_set1_ps(-__builtin_inff());
        ptrdiff_t i = 0;
        for (; i + 8 <= width; i += 8) lanes = _mm256_max_ps(lanes, _mm256_loadu_ps(values + i));
        float eight[8];
        _mm256_storeu_ps(eight, lanes);
        float maximum = eight[0];
        for (int q = 1; q < 8; q++) maximum = eight[q] > maximum ? eight[q] : maximum;
        for (; i < width; i++) maximum = values[i] > maximum ? values[i] : maximum;
        const __m256 m = _mm256_set1_ps(maximum);
        for (i = 0; i + 8 <= width; i += 8) {
            _mm256_storeu_ps(values + i, exp8(_mm256_sub_ps(_mm256_loadu_ps(values + i), m)));
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
        const __m256 scale = _mm256_set1_ps(inverse);
        for (i = 0; i + 8 <= width; i += 8) _mm256_storeu_ps(values + i, _mm256_mul_ps(_mm256_loadu_ps(values + i), scale));
        for (; i < width; i++) values[i] *= inverse;
    }
}

/// WhisperKernels.erf, eight lanes.
AVX2 static inline __m256 erf8(__m256 x) {
    const __m256i signBit = _mm256_set1_epi32((int)0x80000000u);
    const __m256 a = _mm256_castsi256_ps(_mm256_andnot_si256(signBit, _mm256_castps_si256(x)));
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = _mm256_div_ps(one, _mm256_add_ps(one, _mm256_mul_ps(_mm256_set1_ps(0.3275911f), a)));
    __m256 p = _mm256_set1_ps(1.061405429f);
    p = _mm256_sub_ps(_mm256_mul_ps(p, t), _mm256_set1_ps(1.453152027f));
    p = _mm256_add_ps(_mm256_mul_ps(p, t), _mm256_set1_ps(1.421413741f));
    p = _mm256_sub_ps(_mm256_mul_ps(p, t), _mm256_set1_ps(0.284496736f));
    p = _mm256_add_ps(_mm256_mul_ps(p, t), _mm256_set1_ps(0.254829592f));
    const __m256 negated = _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(a), signBit));
    const __m256 magnitude = _mm256_sub_ps(one, _mm256_mul_ps(_mm256_mul_ps(p, t), exp8(_mm256_mul_ps(negated, a))));
    return _mm256_castsi256_ps(
        _mm256_or_si256(_mm256_castps_si256(magnitude), _mm256_and_si256(_mm256_castps_si256(x), signBit)));
}

AVX2 void earshot_whisper_gelu_avx2(float *x, ptrdiff_t count) {
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), root = _mm256_set1_ps(0.70710678118654752f);
    ptrdiff_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 value = _mm256_loadu_ps(x + i);
        const __m256 e = erf8(_mm256_mul_ps(value, root));
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(half, value), _mm256_add_ps(one, e)));
    }
    for (; i < count; i++) {
        const float value = x[i];
        x[i] = 0.5f * value * (1.0f + erf1(value * 0.70710678118654752f));
    }
}

#else

void earshot_whisper_few_rows_avx2(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate) {
    (void)a, (void)rows, (void)aStride, (void)w, (void)wStride, (void)columns, (void)depth, (void)c,
        (void)cStride, (void)alpha, (void)accumulate;
    __builtin_trap();  // never called: only x86-64 has AVX2
}

void earshot_whisper_few_half_rows_avx2(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride) {
    (void)a, (void)rows, (void)w, (void)columns, (void)depth, (void)c, (void)cStride;
    __builtin_trap();
}

void earshot_whisper_half_rows_avx2(const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c) {
    (void)a, (void)w, (void)columns, (void)depth, (void)c;
    __builtin_trap();
}

void earshot_whisper_softmax_avx2(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride) {
    (void)x, (void)rows, (void)width, (void)stride;
    __builtin_trap();
}

void earshot_whisper_gelu_avx2(float *x, ptrdiff_t count) {
    (void)x, (void)count;
    __builtin_trap();
}

#endif
