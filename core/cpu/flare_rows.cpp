// Highway's dynamic dispatch, as colour_rows.cpp: compiled once per SIMD target, the best one chosen
// at run time. A pixel's lanes hold its overlay and its result per channel as 32-bit integers; a
// blend converts both to float, and the products and their sum are separate operations (no fused
// multiply-add), as in the scalar code.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/flare_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "cpu/flare_rows.h"

#if HWY_ONCE
namespace auglab::cpu {

void flareOverlayRowScalar(std::uint8_t* row, int channels, int lo, int hi, const FlareDiscs& d) {
    const auto blend = [](int over, int out, float a, float b) {
        const float v = static_cast<float>(over) * a + static_cast<float>(out) * b;
        return static_cast<int>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
    };
    for (int x = lo; x <= hi; ++x) {
        std::uint8_t* px = row + static_cast<std::size_t>(x) * static_cast<std::size_t>(channels);
        int over[3] = {px[0], px[1], px[2]}, out[3] = {px[0], px[1], px[2]};
        for (std::size_t i = 0; i < d.count; ++i) {
            if (i == d.restart) std::copy(out, out + 3, over);
            if (d.x0[i] <= x && x <= d.x1[i]) {
                over[0] = d.r[i];
                over[1] = d.g[i];
                over[2] = d.b[i];
            }
            if (over[0] != out[0] || over[1] != out[1] || over[2] != out[2])
                for (int k = 0; k < 3; ++k) out[k] = blend(over[k], out[k], d.alpha[i], d.beta[i]);
        }
        for (int k = 0; k < 3; ++k) px[k] = static_cast<std::uint8_t>(out[k]);
    }
}

}  // namespace auglab::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int CN>
void FlareImpl(std::uint8_t* HWY_RESTRICT row, int lo, int hi, const FlareDiscs& d) {
    int x = lo;
#if HWY_TARGET != HWY_SCALAR
    using D32 = hn::ScalableTag<std::int32_t>;
    using DF = hn::Rebind<float, D32>;
    using D8 = hn::Rebind<std::uint8_t, D32>;
    const D32 d32;
    const DF df;
    const D8 d8;
    const int N = static_cast<int>(hn::Lanes(d32));
    const auto zero = hn::Zero(df), top = hn::Set(df, 255.0f);
    for (; x + N - 1 <= hi; x += N) {
        std::uint8_t* p = row + static_cast<std::size_t>(x) * CN;
        hn::Vec<D8> r8, g8, b8, a8;
        if constexpr (CN == 3)
            hn::LoadInterleaved3(d8, p, r8, g8, b8);
        else
            hn::LoadInterleaved4(d8, p, r8, g8, b8, a8);
        auto outR = hn::PromoteTo(d32, r8), outG = hn::PromoteTo(d32, g8), outB = hn::PromoteTo(d32, b8);
        auto overR = outR, overG = outG, overB = outB;
        const auto xs = hn::Iota(d32, x);
        for (std::size_t i = 0; i < d.count; ++i) {
            if (i == d.restart) overR = outR, overG = outG, overB = outB;
            // x0 <= x <= x1 as x > x0 - 1 and x < x1 + 1 (Highway 1.0.3 compares integers with Lt, Gt).
            const auto covered =
                hn::And(hn::Gt(xs, hn::Set(d32, d.x0[i] - 1)), hn::Lt(xs, hn::Set(d32, d.x1[i] + 1)));
            overR = hn::IfThenElse(covered, hn::Set(d32, d.r[i]), overR);
            overG = hn::IfThenElse(covered, hn::Set(d32, d.g[i]), overG);
            overB = hn::IfThenElse(covered, hn::Set(d32, d.b[i]), overB);
            const auto differ = hn::Or(hn::Or(hn::Ne(overR, outR), hn::Ne(overG, outG)), hn::Ne(overB, outB));
            if (hn::AllFalse(d32, differ)) continue;
            const auto a = hn::Set(df, d.alpha[i]), b = hn::Set(df, d.beta[i]);
            const auto blend = [&](hn::Vec<D32> over, hn::Vec<D32> out) {
                const auto v =
                    hn::Add(hn::Mul(hn::ConvertTo(df, over), a), hn::Mul(hn::ConvertTo(df, out), b));
                return hn::IfThenElse(differ, hn::ConvertTo(d32, hn::Min(hn::Max(hn::Round(v), zero), top)),
                                      out);
            };
            outR = blend(overR, outR);
            outG = blend(overG, outG);
            outB = blend(overB, outB);
        }
        const auto narrow = [&](hn::Vec<D32> v) { return hn::DemoteTo(d8, v); };
        if constexpr (CN == 3)
            hn::StoreInterleaved3(narrow(outR), narrow(outG), narrow(outB), d8, p);
        else
            hn::StoreInterleaved4(narrow(outR), narrow(outG), narrow(outB), a8, d8, p);
    }
#endif
    if (x <= hi) flareOverlayRowScalar(row, CN, x, hi, d);
}

void Flare(std::uint8_t* HWY_RESTRICT row, int channels, int lo, int hi, const FlareDiscs& d) {
    if (channels == 4)
        FlareImpl<4>(row, lo, hi, d);
    else
        FlareImpl<3>(row, lo, hi, d);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(Flare);

void flareOverlayRow(std::uint8_t* row, int channels, int lo, int hi, const FlareDiscs& discs) {
    HWY_DYNAMIC_DISPATCH(Flare)(row, channels, lo, hi, discs);
}

}  // namespace auglab::cpu
#endif
