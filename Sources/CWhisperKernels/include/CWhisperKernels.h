#ifndef EARSHOT_WHISPER_KERNELS_H
#define EARSHOT_WHISPER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// AVX-512 twins of two of EarshotWhisper's products (WhisperKernels.multiplyFewRows and
/// multiplyHalfRows), for CPUs that have AVX-512 F, DQ, BW and VL; callers check first. Each keeps the
/// Swift kernel's arithmetic exactly: per output, four partial sums over every fourth product, a multiply
/// then an add (never fused), the four summed in order from -0. One 512-bit register holds four columns'
/// partial sums, so each gets the same bits as the portable kernel in a quarter of the instructions.

/// c[r][j] (+)= alpha · Σ_k a[r][k] · w[j][k] for r < rows ≤ 8, j < columns; depth a multiple of 4.
void earshot_whisper_few_rows_avx512(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate);

/// earshot_whisper_few_rows_avx512 (alpha 1, no accumulation) with w IEEE half floats, rows of depth:
/// widening a half is exact, so the result has the same bits as the float kernel on the widened matrix,
/// from half the bytes (the beam's logits are bound by reading the embedding).
void earshot_whisper_few_half_rows_avx512(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride);

/// c[j] = Σ_k a[k] · w[j][k] with w IEEE half floats (rows of depth), depth a multiple of 8.
void earshot_whisper_half_rows_avx512(
    const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c);

/// WhisperKernels.softmax: each of `rows` rows of `width` values (row stride `stride`) in place, with
/// WhisperKernels.exp's polynomial, the maximum and sum in the same lanes and order.
void earshot_whisper_softmax_avx512(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride);

/// WhisperKernels.gelu: ½x(1 + erf(x/√2)) in place, with WhisperKernels.erf and exp.
void earshot_whisper_gelu_avx512(float *x, ptrdiff_t count);

/// AVX2 twins (AVX2 and F16C, for CPUs without AVX-512) of earshot_whisper_few_rows_avx512,
/// earshot_whisper_few_half_rows_avx512 and earshot_whisper_half_rows_avx512: the same arguments, the
/// same bits. One 256-bit register holds two columns' four partial sums (one column's even and odd sums
/// for the single-row product).
void earshot_whisper_few_rows_avx2(
    const float *a, ptrdiff_t rows, ptrdiff_t aStride, const float *w, ptrdiff_t wStride, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride, float alpha, int accumulate);

void earshot_whisper_few_half_rows_avx2(
    const float *a, ptrdiff_t rows, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c,
    ptrdiff_t cStride);

void earshot_whisper_half_rows_avx2(
    const float *a, const uint16_t *w, ptrdiff_t columns, ptrdiff_t depth, float *c);

/// AVX2 twins of earshot_whisper_softmax_avx512 and earshot_whisper_gelu_avx512: eight lanes at a time,
/// the same bits.
void earshot_whisper_softmax_avx2(float *x, ptrdiff_t rows, ptrdiff_t width, ptrdiff_t stride);

void earshot_whisper_gelu_avx2(float *x, ptrdiff_t count);

/// The AVX2 twin of WhisperKernels.multiplyFewInt8RowsPortably: c[r][j] = (Σ_k a[r][k] · w[j][k]) ·
/// (aSteps[r] · wSteps[j]) for r < rows ≤ 8 and j < columns, a and w int8 (rows of depth, a multiple of
/// 32; values within −127…127), the sums in 32-bit integers, exact. The same bits as the Swift loop.
void earshot_whisper_few_int8_rows_avx2(
    const int8_t *a, ptrdiff_t rows, const float *aSteps, const int8_t *w, const float *wSteps, ptrdiff_t columns,
    ptrdiff_t depth, float *c, ptrdiff_t cStride);

#endif
