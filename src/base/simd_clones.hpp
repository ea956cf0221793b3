// GRUNDY_SIMD_CLONES: a function whose loops the compiler vectorises, built three times (for any
// x86-64, for AVX2 machines and for AVX-512 ones) with the one that fits the CPU picked when the
// program or module is loaded (GCC's target_clones). The library is built for any x86-64, where
// such loops get 128-bit vectors without 64-bit multiplies; the mex kernels have their own
// dispatch (kernel_dispatch.cpp). Only for functions called per row or per segment, not per
// cell: each call goes through a pointer and none is inlined.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define GRUNDY_SIMD_CLONES \
    __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define GRUNDY_SIMD_CLONES
#endif

// GCC 12 takes the self-initialised "undefined" vector inside several AVX-512 intrinsics
// (unpacks, shuffles, extracts, reductions) for an uninitialised one (GCC bug 105593, fixed in
// 13): code that uses them lies between these two.
#if defined(__GNUC__) && !defined(__clang__)
#define GRUNDY_AVX512_INTRINSICS_BEGIN                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
        _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define GRUNDY_AVX512_INTRINSICS_END _Pragma("GCC diagnostic pop")
#else
#define GRUNDY_AVX512_INTRINSICS_BEGIN
#define GRUNDY_AVX512_INTRINSICS_END
#endif

// GRUNDY_AVX512_CODE: where the loops that carry code of their own for AVX-512 (the chunks'
// byte planes, Fletcher-32, the run-length encoder's parse and counts) or AVX2 (the mirror's
// byte planes) build it, with <immintrin.h> included; and what this CPU has of AVX2 and AVX-512
// (and BMI, which the mex kernels' builds use), asked once, for them and the kernels to pick.
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define GRUNDY_AVX512_CODE 1
#endif

namespace grundy::base {
#ifdef GRUNDY_AVX512_CODE
inline bool cpu_has_bmi1_bmi2() {
    static const bool has = __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    return has;
}
inline bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
inline bool cpu_has_avx512f() {
    static const bool has = __builtin_cpu_supports("avx512f");
    return has;
}
inline bool cpu_has_avx512bw() {
    static const bool has = cpu_has_avx512f() && __builtin_cpu_supports("avx512bw");
    return has;
}
inline bool cpu_has_avx512vbmi() {
    static const bool has = cpu_has_avx512bw() && __builtin_cpu_supports("avx512vbmi");
    return has;
}
inline bool cpu_has_avx512vbmi2() {  // and VBMI, which every CPU with VBMI2 has
    static const bool has = cpu_has_avx512vbmi() && __builtin_cpu_supports("avx512vbmi2");
    return has;
}
#else
inline bool cpu_has_bmi1_bmi2() {
    return false;
}
inline bool cpu_has_avx2() {
    return false;
}
inline bool cpu_has_avx512f() {
    return false;
}
inline bool cpu_has_avx512bw() {
    return false;
}
inline bool cpu_has_avx512vbmi() {
    return false;
}
inline bool cpu_has_avx512vbmi2() {
    return false;
}
#endif
}  // namespace grundy::base
