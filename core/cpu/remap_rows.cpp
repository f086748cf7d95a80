// Highway's dynamic dispatch, as colour_rows.cpp: compiled once per SIMD target, the best one
// chosen at run time. On x86 a vector of map values is scaled, clamped and converted in one
// instruction each (the processor's conversion is cvRound's: half to even, NaN and values past
// int's range to INT_MIN, the top clamped first as cvRound's caller does); other targets take the
// scalar definition.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/remap_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "cpu/pixel_lanes-inl.h"
#include "cpu/remap_rows.h"

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RemapPositions(const float* HWY_RESTRICT mx, const float* HWY_RESTRICT my, std::size_t n, int bits,
                    int* HWY_RESTRICT xy) {
    std::size_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
    using lanes::D32;
    using lanes::DF;
    using lanes::V32;
    using lanes::VF;
    const D32 d;
    const DF df;
    const std::size_t N = hn::Lanes(d);
    const VF unit = hn::Set(df, static_cast<float>(1 << bits)), top = hn::Set(df, 2147483520.0f);
    const V32 lo = hn::Set(d, -32768), hi = hn::Set(d, 32767), fraction = hn::Set(d, (1 << bits) - 1);
    const auto position = [&](VF v) {
        // x86's min returns its second operand where either is NaN: a NaN stays one, and converts
        // to INT_MIN as remapPosition's does; below int's range the conversion gives INT_MIN too.
        const V32 r = lanes::roundInRange(hn::Min(top, hn::Mul(v, unit)));
        if (bits == 0) return hn::Min(hn::Max(r, lo), hi);
        const V32 whole = hn::Min(hn::Max(hn::ShiftRightSame(r, bits), lo), hi);
        return hn::Add(hn::ShiftLeftSame(whole, bits), hn::And(r, fraction));
    };
    for (; i + N <= n; i += N)
        hn::StoreInterleaved2(position(hn::LoadU(df, mx + i)), position(hn::LoadU(df, my + i)), d, xy + 2 * i);
#endif
    for (; i < n; ++i) {
        xy[2 * i] = remapPosition(mx[i], bits);
        xy[2 * i + 1] = remapPosition(my[i], bits);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(RemapPositions);

void remapPositions(const float* mx, const float* my, std::size_t n, int bits, int* xy) {
    HWY_DYNAMIC_DISPATCH(RemapPositions)(mx, my, n, bits, xy);
}

}  // namespace auglab::cpu
#endif
