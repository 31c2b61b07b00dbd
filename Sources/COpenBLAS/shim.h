#include <cblas.h>
#include <cpuid.h>

/// The widest x86 vector extension this CPU has and the kernel lets programs use: 0 none of these,
/// 1 AVX, 2 AVX2 with FMA, 3 AVX-512 (F, DQ, BW, VL). From CPUID leaves 1 and 7 and XCR0 (the OS
/// saves the YMM, and for AVX-512 the opmask and ZMM, registers), as Intel's SDM prescribes.
static inline int earshot_x86_vector_level(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 1;
    const int avx2 = (b >> 5) & 1;
    const int avx512 = ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);
    if (avx512 && (xcr0_low & 0xe0) == 0xe0) return 3;
    return avx2 && fma ? 2 : 1;
}

#include <dlfcn.h>

/// Leaves OpenBLAS one thread and stops the workers it started when it loaded (one per core, each
/// spinning for about 0.1 s of CPU before it sleeps): Earshot runs every product on the calling
/// thread. `blas_thread_shutdown_` is the pthread build's; another build has none, and keeps its own.
static inline void earshot_openblas_single_thread(void) {
    openblas_set_num_threads(1);
    int (*shutdown)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
    if (shutdown) shutdown();
}
