// The AVX2 twin of WhisperKernels.multiplyFewInt8RowsPortably (see the header): int8 activations against
// int8 weights, the integer sums exact, so the lanes' order does not change a bit.
#include "CWhisperKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#pragma clang fp contract(off)

#define AVX2 __attribute__((target("avx2")))

/// The eight 32-bit lanes of `v` summed (exact: integers).
AVX2 static inline int32_t lanes_total(__m256i v) {
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(sum);
}

/// 32 products of a row of `a` with two weight rows, added to their sums: `_mm256_maddubs_epi16` multiplies
/// unsigned by signed bytes, so |a| goes unsigned and a's sign moves onto the weights
/// (`_mm256_sign_epi8`); a pair's sum is at most 2 · 127 · 127 < 2¹⁵, never saturating, and
/// `_mm256_madd_epi16` by ones widens the pairs to 32 bits.
#define PRODUCTS(x, w, sum)                                                                                       \
    sum = _mm256_add_epi32(                                                                                       \
        sum, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(x), _mm256_sign_epi8(w, x)), ones))

/// Two columns (j and j+1) for `rows` rows, `rows` a constant where this is inlined, so the sums stay in
/// registers; the weights' next lines are asked for ahead, as the float twins do.
AVX2 static inline void two_columns(
    const int8_t *a, ptrdiff_t rows, const float *aSteps, const int8_t *w0, const int8_t *w1, float step0,
    float step1, ptrdiff_t depth, float *c, ptrdiff_t cStride) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i sums[2][8];
    for (ptrdiff_t r = 0; r < rows; r++) sums[0][r] = sums[1][r] = _mm256_setzero_si256();
    for (ptrdiff_t k = 0; k < depth; k += 32) {
        if ((k & 63) == 0) {
            _mm_prefetch((const char *)(w0 + k + 4 * depth), _MM_HINT_T0);
            _mm_prefetch((const char *)(w1 + k + 4 * depth), _MM_HINT_T0);
        }
        const __m256i first = _mm256_loadu_si256((const __m256i *)(w0 + k));
        const __m256i second = _mm256_loadu_si256((const __m256i *)(w1 + k));
        for (ptrdiff_t r = 0; r < rows; r++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(a + r * depth + k));
            PRODUCTS(x, first, sums[0][r]);
            PRODUCTS(x, second, sums[1][r]);
        }
    }
    for (ptrdiff_t r = 0; r < rows; r++) {
        c[r * cStride] = (float)lanes_total(sums[0][r]) * (aSteps[r] * step0);
        c[r * cStride + 1] = (float)lanes_total(sums[1][r]) * (aSteps[r] * step1);
    }
}

/// One column, for an odd count's last.
AVX2 static inline void one_column(
    const int8_t *a, ptrdiff_t rows, const float *aSteps, const int8_t *w0, float step0, ptrdiff_t depth, float *c,
    ptrdiff_t cStride) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i sums[8];
    for (ptrdiff_t r = 0; r < rows; r++) sums[r] = _mm256_setzero_si256();
    for (ptrdiff_t k = 0; k < depth; k += 32) {
        const __m256i first = _mm256_loadu_si256((const __m256i *)(w0 + k));
        for (ptrdiff_t r = 0; r < rows; r++) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(a + r * depth + k));
            PRODUCTS(x, first, sums[r]);
        }
    }
    for (ptrdiff_t r = 0; r < rows; r++) c[r * cStride] = (float)lanes_total(sums[r]) * (aSteps[r] * step0);
}

#define ROWS_CASE(ROWS)                                                                                           \
    case ROWS:                                                                                                    \
        for (; j + 2 <= columns; j += 2)                                                                          \
            two_columns(a, ROWS, aSteps, w + j * depth, w + (j + 1) * depth, wSteps[j], wSteps[j + 1], depth,     \
                        c + j, cStride);                                                                          \
        break;

AVX2 void earshot_whisper_few_int8_rows_avx2(
    const int8_t *a, ptrdiff_t rows, const float *aSteps, const int8_t *w, const float *wSteps, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride) {
    ptrdiff_t j = 0;
    switch (rows) {
        ROWS_CASE(1)
        ROWS_CASE(2)
        ROWS_CASE(3)
        ROWS_CASE(4)
        ROWS_CASE(5)
        ROWS_CASE(6)
        ROWS_CASE(7)
        ROWS_CASE(8)
    default: return;
    }
    if (j < columns) one_column(a, rows, aSteps, w + j * depth, wSteps[j], depth, c + j, cStride);
}

#endif
