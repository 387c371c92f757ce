// The AVX2 and AVX-512 copies of the kernels of simd.cpp, in a translation unit of their own so
// that a build compiles them beside the other targets' copies (simd.cpp says how the two files
// share the targets).
#define UPSAMPLE_SIMD_AVX_COPY 1
#include "cpu/simd.cpp"  // IWYU pragma: keep
