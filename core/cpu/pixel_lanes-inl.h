// Pixels in 32-bit lanes, for the kernels of core/cpu (colour_rows.cpp, lab_rows.cpp,
// noise_rows.cpp): the bytes of N pixels (N the 32-bit lanes of a vector) loaded de-interleaved
// into quarter-width vectors, widened to 32 bits, narrowed back with saturation, stored interleaved
// (alpha kept).
// Highway's per-target header: included once per SIMD target by a file that foreach_target.h
// compiles for each (hence the toggled guard, as Highway's own -inl.h headers have).

#if defined(AUGLAB_CPU_PIXEL_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef AUGLAB_CPU_PIXEL_LANES_INL_H_
#undef AUGLAB_CPU_PIXEL_LANES_INL_H_
#else
#define AUGLAB_CPU_PIXEL_LANES_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace lanes {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using D32 = hn::ScalableTag<std::int32_t>;
using D8 = hn::Rebind<std::uint8_t, D32>;
using V8 = hn::Vec<D8>;
using V32 = hn::Vec<D32>;

/// N pixels of CN (3 or 4) channels at p, one channel a vector (alpha: a copy of red at 3 channels).
template <int CN>
HWY_INLINE void loadPixels(const std::uint8_t* p, V8& r, V8& g, V8& b, V8& a) {
    const D8 d8;
    if constexpr (CN == 3) {
        hn::LoadInterleaved3(d8, p, r, g, b);
        a = r;
    } else {
        hn::LoadInterleaved4(d8, p, r, g, b, a);
    }
}

/// The same pixels back (alpha written at 4 channels only).
template <int CN>
HWY_INLINE void storePixels(std::uint8_t* p, V8 r, V8 g, V8 b, V8 a) {
    const D8 d8;
    if constexpr (CN == 3)
        hn::StoreInterleaved3(r, g, b, d8, p);
    else
        hn::StoreInterleaved4(r, g, b, a, d8, p);
}

using DF = hn::Rebind<float, D32>;
using VF = hn::Vec<DF>;

/// float to int32 for values known to lie inside int32's range (pixel arithmetic): truncated toward
/// zero, and rounded to nearest with ties to even (the processor's default rounding mode, which
/// AugLab never changes). One instruction each on x86 (vcvttps2dq, vcvtps2dq), where Highway 1.0's
/// ConvertTo adds a three-instruction fix-up for values outside the range and Round a vrndscaleps:
/// in a colour kernel that converts six times per vector, a fifth of its instructions.
HWY_INLINE V32 truncInRange(VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    return V32{_mm512_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
    return V32{_mm256_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
    return V32{_mm_cvttps_epi32(v.raw)};
#else
    return hn::ConvertTo(D32(), v);
#endif
}
HWY_INLINE V32 roundInRange(VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    return V32{_mm512_cvtps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
    return V32{_mm256_cvtps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
    return V32{_mm_cvtps_epi32(v.raw)};
#else
    return hn::ConvertTo(D32(), hn::Round(v));
#endif
}

HWY_INLINE V32 wide(V8 v) {
    return hn::PromoteTo(D32(), v);
}
HWY_INLINE V8 narrow(V32 v) {  // saturated to 0..255
    return hn::DemoteTo(D8(), v);
}
#endif

}  // namespace lanes
}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#endif  // AUGLAB_CPU_PIXEL_LANES_INL_H_
