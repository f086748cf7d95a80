// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. The pixels are
// loaded de-interleaved into 8-bit vectors of a quarter width and widened to 32-bit lanes, where the
// fixed-point and float maths of the definitions run as they are.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/colour_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "colour.h"
#include "cpu/colour_rows.h"
#include "cpu/pixel_lanes-inl.h"
#include "plan.h"

// The x86 SIMD targets (SSSE3 up), whose vectors are the intrinsics' types: the wide matrix path
// uses packssdw/packuswb directly. Not Highway's emulated 128-bit target, which clang builds too.
#define AUGLAB_X86_SIMD (HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3)

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using D32 = hn::ScalableTag<std::int32_t>;
using DF = hn::ScalableTag<float>;
using D8 = hn::Rebind<std::uint8_t, D32>;
using V8 = hn::Vec<D8>;
using V32 = hn::Vec<D32>;

using lanes::loadPixels;
using lanes::narrow;
using lanes::roundInRange;
using lanes::truncInRange;
using lanes::storePixels;
using lanes::wide;

// Each 32-bit lane of `pair` holds two 16-bit values (low, high), as does each of `coefficients`:
// low * low + high * high in 32 bits (one pmaddwd), exactly.
HWY_INLINE V32 pairDot(V32 pair, V32 coefficients) {
    const D32 d;
    const hn::Repartition<std::int16_t, D32> d16;
    V32 odd = hn::Zero(d);
    const V32 even =
        hn::ReorderWidenMulAccumulate(d, hn::BitCast(d16, pair), hn::BitCast(d16, coefficients), hn::Zero(d), odd);
    return hn::RearrangeToOddPlusEven(even, odd);
}

// Two 16-bit values in a lane (low, high), as pairDot reads them.
HWY_INLINE V32 pairOf(V32 low, V32 high) {
    return hn::Or(low, hn::ShiftLeft<16>(high));
}
HWY_INLINE std::int32_t pairOf(std::int32_t low, std::int32_t high) {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(low) & 0xFFFFu) | (static_cast<std::uint32_t>(high) << 16));
}

#if AUGLAB_X86_SIMD
// packssdw / packuswb of a and b: per 128-bit block, a's four (eight) values then b's, saturated.
template <class D16, class V32>
HWY_INLINE hn::Vec<D16> packBlocks(D16, V32 a, V32 b) {
#if HWY_TARGET <= HWY_AVX3
    return hn::Vec<D16>{_mm512_packs_epi32(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX2
    return hn::Vec<D16>{_mm256_packs_epi32(a.raw, b.raw)};
#else
    return hn::Vec<D16>{_mm_packs_epi32(a.raw, b.raw)};
#endif
}
template <class D8, class V16>
HWY_INLINE hn::Vec<D8> packBytesBlocks(D8, V16 a, V16 b) {
#if HWY_TARGET <= HWY_AVX3
    return hn::Vec<D8>{_mm512_packus_epi16(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX2
    return hn::Vec<D8>{_mm256_packus_epi16(a.raw, b.raw)};
#else
    return hn::Vec<D8>{_mm_packus_epi16(a.raw, b.raw)};
#endif
}

// Whole vectors of pixels (64 on AVX-512) through `outputs` rows of a 3 x 3 fixed-point matrix:
// output c = ((rg[c] . (R, G)) + (b1[c] . (B, 1))) >> shift, saturated to 0..255, each dot one
// pmaddwd of 16-bit pairs (the coefficients and the rounding term in pairOf form). Every step works
// within 128-bit blocks (bytes widened by unpacking with zero, pairs made by unpacking, sums
// narrowed by packssdw and packuswb), whose orders undo each other: the pixels come out in their
// order with no lane crossing. Returns the pixels done (a multiple of the vector).
template <int CN, int kShift, std::size_t kOutputs>
std::size_t matrixRowsWide(const std::uint8_t* src, std::uint8_t* dst, std::size_t n,
                           const std::array<std::int32_t, kOutputs>& rg, const std::array<std::int32_t, kOutputs>& b1) {
    const hn::ScalableTag<std::uint8_t> d8;
    const hn::Repartition<std::int16_t, decltype(d8)> d16;
    const hn::Repartition<std::int32_t, decltype(d8)> d32;
    const std::size_t N = hn::Lanes(d8);
    const auto one = hn::Set(d16, 1);
    const auto zero = hn::Zero(d8);
    std::array<hn::Vec<decltype(d16)>, kOutputs> rgK, b1K;
    for (std::size_t c = 0; c < kOutputs; ++c) {
        rgK[c] = hn::BitCast(d16, hn::Set(d32, rg[c]));
        b1K[c] = hn::BitCast(d16, hn::Set(d32, b1[c]));
    }
    const auto dot = [&](hn::Vec<decltype(d16)> pairs, hn::Vec<decltype(d16)> coefficients) {
        auto odd = hn::Zero(d32);
        const auto even = hn::ReorderWidenMulAccumulate(d32, pairs, coefficients, hn::Zero(d32), odd);
        return hn::RearrangeToOddPlusEven(even, odd);
    };
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
        hn::Vec<decltype(d8)> r, g, b, a;
        if constexpr (CN == 3)
            hn::LoadInterleaved3(d8, src + CN * i, r, g, b);
        else
            hn::LoadInterleaved4(d8, src + CN * i, r, g, b, a);
        std::array<hn::Vec<decltype(d16)>, 2 * kOutputs> words;  // per output: bytes 0-7, 8-15 of each block
        for (int h = 0; h < 2; ++h) {
            const auto widen = [&](hn::Vec<decltype(d8)> v) {
                return hn::BitCast(d16, h ? hn::InterleaveUpper(d8, v, zero) : hn::InterleaveLower(d8, v, zero));
            };
            const auto r16 = widen(r), g16 = widen(g), b16 = widen(b);
            const auto rgLo = hn::InterleaveLower(d16, r16, g16), rgHi = hn::InterleaveUpper(d16, r16, g16);
            const auto bLo = hn::InterleaveLower(d16, b16, one), bHi = hn::InterleaveUpper(d16, b16, one);
            for (std::size_t c = 0; c < kOutputs; ++c) {
                const auto lo = hn::ShiftRight<kShift>(hn::Add(dot(rgLo, rgK[c]), dot(bLo, b1K[c])));
                const auto hi = hn::ShiftRight<kShift>(hn::Add(dot(rgHi, rgK[c]), dot(bHi, b1K[c])));
                words[2 * c + std::size_t(h)] = packBlocks(d16, lo, hi);
            }
        }
        std::array<hn::Vec<decltype(d8)>, kOutputs> out;
        for (std::size_t c = 0; c < kOutputs; ++c) out[c] = packBytesBlocks(d8, words[2 * c], words[2 * c + 1]);
        const auto& o1 = out[kOutputs > 1 ? 1 : 0];
        const auto& o2 = out[kOutputs > 2 ? 2 : 0];
        if constexpr (CN == 3)
            hn::StoreInterleaved3(out[0], o1, o2, d8, dst + CN * i);
        else
            hn::StoreInterleaved4(out[0], o1, o2, a, d8, dst + CN * i);
    }
    return i;
}
#endif

// cv2's RGB2GRAY (grayOf) of 32-bit lanes: (9798 R + 19235 G) + (3735 B + 2^14 x 1), two pmaddwd.
HWY_INLINE V32 gray(V32 r, V32 g, V32 b) {
    const D32 d;
    const V32 sum = hn::Add(pairDot(pairOf(r, g), hn::Set(d, pairOf(9798, 19235))),
                            pairDot(pairOf(b, hn::Set(d, 1)), hn::Set(d, pairOf(3735, 1 << 14))));
    return hn::ShiftRight<15>(sum);
}
#endif

template <int CN>
void GrayImpl(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
#if AUGLAB_X86_SIMD
    i = matrixRowsWide<CN, 15, 1>(src, dst, n, {pairOf(9798, 19235)}, {pairOf(3735, 1 << 14)});
#endif
    const std::size_t N = hn::Lanes(D32());
    for (; i + N <= n; i += N) {
        V8 r, g, b, a;
        loadPixels<CN>(src + CN * i, r, g, b, a);
        const V8 y = narrow(gray(wide(r), wide(g), wide(b)));
        storePixels<CN>(dst + CN * i, y, y, y, a);
    }
#endif
    for (; i < n; ++i) {
        const std::uint8_t* p = src + CN * i;
        std::uint8_t* q = dst + CN * i;
        const std::uint8_t y = static_cast<std::uint8_t>(grayOf(p[0], p[1], p[2]));
        if constexpr (CN == 4) q[3] = p[3];
        q[0] = q[1] = q[2] = y;
    }
}

void Gray(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, int channels) {
    if (channels == 4)
        GrayImpl<4>(src, dst, n);
    else
        GrayImpl<3>(src, dst, n);
}

template <int CN>
void GrayBlendImpl(std::uint8_t* HWY_RESTRICT p, std::size_t n, float alpha, float beta) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA
    // round-half-even(fma(c, alpha, float(gray) * beta)), saturated: Round is the nearest-even
    // rounding nearbyint gives, MulAdd the fused multiply-add std::fma is.
    const D32 d;
    const DF df;
    const std::size_t N = hn::Lanes(d);
    const auto va = hn::Set(df, alpha), vb = hn::Set(df, beta);
    const auto hi = hn::Set(df, 255.0f);
    // Clamping to 255 before the rounding is clamping after it (255 is whole); below 0 the narrowing
    // saturates.
    const auto blend = [&](V32 c, hn::Vec<DF> gb) {
        return narrow(roundInRange(hn::Min(hn::MulAdd(hn::ConvertTo(df, c), va, gb), hi)));
    };
    for (; i + N <= n; i += N) {
        V8 r, g, b, a;
        loadPixels<CN>(p + CN * i, r, g, b, a);
        const V32 wr = wide(r), wg = wide(g), wb = wide(b);
        const auto gb = hn::Mul(hn::ConvertTo(df, gray(wr, wg, wb)), vb);
        storePixels<CN>(p + CN * i, blend(wr, gb), blend(wg, gb), blend(wb, gb), a);
    }
#endif
    const GrayBlendStep s{alpha, beta};
    for (; i < n; ++i) {
        std::uint8_t* q = p + CN * i;
        const int y = grayOf(q[0], q[1], q[2]);
        for (int c = 0; c < 3; ++c) q[c] = static_cast<std::uint8_t>(grayBlendOf(s, q[c], y));
    }
}

void GrayBlend(std::uint8_t* HWY_RESTRICT p, std::size_t n, int channels, float alpha, float beta) {
    if (channels == 4)
        GrayBlendImpl<4>(p, n, alpha, beta);
    else
        GrayBlendImpl<3>(p, n, alpha, beta);
}

// The channel each output channel copies when m is a permutation (coefficients 0 and 1024, one
// 1024 a row: ChannelShuffle), else nothing.
std::optional<std::array<int, 3>> permutationOf(const std::array<std::int32_t, 9>& m) {
    std::array<int, 3> from{};
    for (std::size_t c = 0; c < 3; ++c) {
        int ones = 0;
        for (std::size_t k = 0; k < 3; ++k) {
            if (m[3 * c + k] == 1 << ChannelMatrixStep::kShift)
                from[c] = int(k), ++ones;
            else if (m[3 * c + k] != 0)
                return std::nullopt;
        }
        if (ones != 1) return std::nullopt;
    }
    return from;
}

template <int CN>
void ChannelMatrixImpl(const std::uint8_t* src, std::uint8_t* dst, std::size_t n,
                       const std::array<std::int32_t, 9>& m) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    if (const auto from = permutationOf(m)) {
        // A permutation moves bytes only: whole vectors of pixels, de-interleaved and stored back in
        // the new order ((v * 1024 + 512) >> 10 is v).
        const hn::ScalableTag<std::uint8_t> d;
        const std::size_t N = hn::Lanes(d);
        for (; i + N <= n; i += N) {
            hn::Vec<decltype(d)> v[4];
            if constexpr (CN == 3)
                hn::LoadInterleaved3(d, src + CN * i, v[0], v[1], v[2]);
            else
                hn::LoadInterleaved4(d, src + CN * i, v[0], v[1], v[2], v[3]);
            if constexpr (CN == 3)
                hn::StoreInterleaved3(v[(*from)[0]], v[(*from)[1]], v[(*from)[2]], d, dst + CN * i);
            else
                hn::StoreInterleaved4(v[(*from)[0]], v[(*from)[1]], v[(*from)[2]], v[3], d, dst + CN * i);
        }
    }
    const D32 d;
    const std::size_t N = hn::Lanes(d);
    const bool shorts = std::all_of(m.begin(), m.end(), [](std::int32_t v) { return v >= -32768 && v <= 32767; });
    const V32 half = hn::Set(d, 1 << (ChannelMatrixStep::kShift - 1));
    // A row of the matrix: (m0 R + m1 G) + (m2 B + 512 x 1), two pmaddwd where the coefficients are
    // 16-bit (sepia's are), else three products; the same integers either way.
    std::array<V32, 3> pairsRg{}, pairsB{};
    for (std::size_t c = 0; c < 3; ++c) {
        pairsRg[c] = hn::Set(d, pairOf(m[3 * c], m[3 * c + 1]));
        pairsB[c] = hn::Set(d, pairOf(m[3 * c + 2], 1 << (ChannelMatrixStep::kShift - 1)));
    }
#if AUGLAB_X86_SIMD
    if (shorts && i == 0) {  // (a permutation has moved its pixels above)
        std::array<std::int32_t, 3> rgPairs{}, bPairs{};
        for (std::size_t c = 0; c < 3; ++c) {
            rgPairs[c] = pairOf(m[3 * c], m[3 * c + 1]);
            bPairs[c] = pairOf(m[3 * c + 2], 1 << (ChannelMatrixStep::kShift - 1));
        }
        i = matrixRowsWide<CN, ChannelMatrixStep::kShift, 3>(src, dst, n, rgPairs, bPairs);
    }
#endif
    const auto row = [&](std::size_t c, V32 r, V32 g, V32 b, V32 rg, V32 b1) {
        const V32 sum = shorts ? hn::Add(pairDot(rg, pairsRg[c]), pairDot(b1, pairsB[c]))
                               : hn::Add(hn::Add(hn::Mul(r, hn::Set(d, m[3 * c])), hn::Mul(g, hn::Set(d, m[3 * c + 1]))),
                                         hn::Add(hn::Mul(b, hn::Set(d, m[3 * c + 2])), half));
        return narrow(hn::ShiftRight<ChannelMatrixStep::kShift>(sum));  // arithmetic shift, then 0..255
    };
    for (; i + N <= n; i += N) {
        V8 r, g, b, a;
        loadPixels<CN>(src + CN * i, r, g, b, a);
        const V32 wr = wide(r), wg = wide(g), wb = wide(b);
        const V32 rg = pairOf(wr, wg), b1 = pairOf(wb, hn::Set(d, 1));
        storePixels<CN>(dst + CN * i, row(0, wr, wg, wb, rg, b1), row(1, wr, wg, wb, rg, b1),
                        row(2, wr, wg, wb, rg, b1), a);
    }
#endif
    ChannelMatrixStep s;
    s.m = m;
    for (; i < n; ++i) {
        const std::uint8_t* p = src + CN * i;
        std::uint8_t* q = dst + CN * i;
        const int r = p[0], g = p[1], b = p[2];
        if constexpr (CN == 4) q[3] = p[3];
        for (int c = 0; c < 3; ++c) q[c] = static_cast<std::uint8_t>(channelMatrixOf(s, c, r, g, b));
    }
}

void ChannelMatrix(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, int channels,
                   const std::array<std::int32_t, 9>& m) {
    if (channels == 4)
        ChannelMatrixImpl<4>(src, dst, n, m);
    else
        ChannelMatrixImpl<3>(src, dst, n, m);
}

// The forms of an HSV step's tables the kernel is compiled for: any (gathered where analyseHsvTables
// found no form), a hue rotation with the saturation and value left as they are (ColorJitter's hue),
// and a hue rotation with clamped saturation and value shifts (HueSaturationValue).
enum HsvForm { kHsvAny, kHsvRotation, kHsvShifts };

template <int CN, int kForm>
void HsvImpl(std::uint8_t* HWY_RESTRICT p, std::size_t n, const HsvTables32& t) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA
    // rgbToHsv8 (OpenCV's RGB2HSV_b: integer, its division tables gathered), the three tables
    // gathered, then hsvToRgb8 (OpenCV's HSV2RGB_b vector loop: float, the `1 - s*h` terms fused,
    // truncated), lane for lane.
    const D32 d;
    const DF df;
    const std::size_t N = hn::Lanes(d);
    // The division tables' entries, computed: round(1044480 / v) and round(122880 / diff) in float32
    // equal lround((255 << 12) / v) and lround((180 << 12) / (6 diff)), OpenCV's tables, for every
    // v and diff in 1..255 (the exhaustive test of this kernel checks it; a zero max or spread
    // multiplies a zero, as the tables' 0 entries do).
    const auto divisor = [&](hn::Vec<DF> numerator, V32 by) {
        return roundInRange(hn::Div(numerator, hn::ConvertTo(df, hn::Max(by, hn::Set(d, 1)))));
    };
    const auto sNumerator = hn::Set(df, 1044480.0f), hNumerator = hn::Set(df, 122880.0f);
    const V32 round12 = hn::Set(d, 1 << 11), zero = hn::Zero(d);
    const auto one = hn::Set(df, 1.0f), by255 = hn::Set(df, 1.0f / 255.0f), times255 = hn::Set(df, 255.0f);
    const auto sector6 = hn::Set(df, 6.0f / 180.0f);
    // Tables of a known form (analyseHsvTables) computed, not gathered: gathers are most of the cost.
    const bool rotate = t.hueRotation >= 0, satAdd = t.satAdd != HsvTables32::kNoAdd,
               valAdd = t.valAdd != HsvTables32::kNoAdd;
    const V32 rotation = hn::Set(d, rotate ? t.hueRotation : 0), v180 = hn::Set(d, 180),
              v255 = hn::Set(d, 255);
    const V32 satBy = hn::Set(d, satAdd ? t.satAdd : 0), valBy = hn::Set(d, valAdd ? t.valAdd : 0);
    // Lanes where a shift leaves 0 at 0 (the table keeps gray gray): all, or none.
    const auto keeps = [&](bool keepsZero) { return hn::Eq(hn::Set(d, keepsZero ? 0 : 1), zero); };
    const auto satKeeps = keeps(t.satKeepsZero), valKeeps = keeps(t.valKeepsZero);
    for (; i + N <= n; i += N) {
        V8 r8, g8, b8, a;
        loadPixels<CN>(p + CN * i, r8, g8, b8, a);
        const V32 r = wide(r8), g = wide(g8), b = wide(b8);
        const V32 v = hn::Max(hn::Max(r, g), b);
        const V32 diff = hn::Sub(v, hn::Min(hn::Min(r, g), b));
        const V32 s = hn::ShiftRight<12>(hn::Add(hn::Mul(diff, divisor(sNumerator, v)), round12));
        const V32 hueNum =
            hn::IfThenElse(hn::Eq(v, r), hn::Sub(g, b),
                           hn::IfThenElse(hn::Eq(v, g), hn::Add(hn::Sub(b, r), hn::Add(diff, diff)),
                                          hn::Add(hn::Sub(r, g), hn::ShiftLeft<2>(diff))));
        V32 h = hn::ShiftRight<12>(hn::Add(hn::Mul(hueNum, divisor(hNumerator, diff)), round12));
        h = hn::Add(h, hn::IfThenElseZero(hn::Lt(h, zero), hn::Set(d, 180)));
        const auto rotated = [&] {
            const V32 hr = hn::Add(h, rotation);
            return hn::IfThenElse(hn::Lt(hr, v180), hr, hn::Sub(hr, v180));
        };
        const auto shifted = [&](V32 x, V32 by, hn::Mask<D32> keepsZero) {
            const V32 y = hn::Min(hn::Max(hn::Add(x, by), zero), v255);
            return hn::IfThenElse(hn::And(keepsZero, hn::Eq(x, zero)), zero, y);
        };
        V32 H, S, V;
        if constexpr (kForm == kHsvRotation) {
            H = rotated(), S = s, V = v;
        } else if constexpr (kForm == kHsvShifts) {
            H = rotated(), S = shifted(s, satBy, satKeeps), V = shifted(v, valBy, valKeeps);
        } else {
            H = rotate ? rotated() : hn::GatherIndex(d, t.hue.data(), h);
            S = satAdd ? shifted(s, satBy, satKeeps) : hn::GatherIndex(d, t.sat.data(), s);
            V = valAdd ? shifted(v, valBy, valKeeps) : hn::GatherIndex(d, t.val.data(), v);
        }
        const auto fs = hn::Mul(hn::ConvertTo(df, S), by255);
        const auto fv = hn::Mul(hn::ConvertTo(df, V), by255);
        auto fh = hn::Mul(hn::ConvertTo(df, H), sector6);
        V32 sector = truncInRange(fh);  // 0..8 for H <= 255
        fh = hn::Sub(fh, hn::ConvertTo(df, sector));
        sector = hn::IfThenElse(hn::Lt(sector, hn::Set(d, 6)), sector, hn::Sub(sector, hn::Set(d, 6)));
        const auto t0 = fv;
        const auto t1 = hn::Mul(fv, hn::Sub(one, fs));
        const auto t2 = hn::Mul(fv, hn::NegMulAdd(fs, fh, one));
        const auto t3 = hn::Mul(fv, hn::NegMulAdd(fs, hn::Sub(one, fh), one));
        const auto is = [&](int k) { return hn::RebindMask(df, hn::Eq(sector, hn::Set(d, k))); };
        const auto m0 = is(0), m1 = is(1), m2 = is(2), m3 = is(3), m4 = is(4);
        // kSectors of hsvToRgb8: {b, g, r} take tab {1,3,0} {1,0,2} {3,0,1} {0,2,1} {0,1,3} {2,1,0}.
        const auto pick = [&](hn::Vec<DF> s0, hn::Vec<DF> s1, hn::Vec<DF> s2, hn::Vec<DF> s3, hn::Vec<DF> s4,
                              hn::Vec<DF> s5) {
            const auto x = hn::IfThenElse(
                m0, s0,
                hn::IfThenElse(m1, s1,
                               hn::IfThenElse(m2, s2, hn::IfThenElse(m3, s3, hn::IfThenElse(m4, s4, s5)))));
            return narrow(truncInRange(hn::Mul(x, times255)));  // truncated, then 0..255
        };
        const V8 ob = pick(t1, t1, t3, t0, t0, t2);
        const V8 og = pick(t3, t0, t0, t2, t1, t1);
        const V8 orr = pick(t0, t2, t1, t1, t3, t0);
        storePixels<CN>(p + CN * i, orr, og, ob, a);
    }
#endif
    for (; i < n; ++i) {
        std::uint8_t* q = p + CN * i;
        int h, s, v, r, g, b;
        rgbToHsv8(q[0], q[1], q[2], h, s, v);
        hsvToRgb8(t.hue[std::size_t(h)], t.sat[std::size_t(s)], t.val[std::size_t(v)], r, g, b);
        q[0] = static_cast<std::uint8_t>(r);
        q[1] = static_cast<std::uint8_t>(g);
        q[2] = static_cast<std::uint8_t>(b);
    }
}

template <int CN>
void HsvOf(std::uint8_t* HWY_RESTRICT p, std::size_t n, const HsvTables32& t) {
    const bool rotate = t.hueRotation >= 0, satAdd = t.satAdd != HsvTables32::kNoAdd,
               valAdd = t.valAdd != HsvTables32::kNoAdd;
    if (rotate && t.satAdd == 0 && t.valAdd == 0)  // shifts by 0: the tables are the identity
        HsvImpl<CN, kHsvRotation>(p, n, t);
    else if (rotate && satAdd && valAdd)
        HsvImpl<CN, kHsvShifts>(p, n, t);
    else
        HsvImpl<CN, kHsvAny>(p, n, t);
}

void Hsv(std::uint8_t* HWY_RESTRICT p, std::size_t n, int channels, const HsvTables32& t) {
    if (channels == 4)
        HsvOf<4>(p, n, t);
    else
        HsvOf<3>(p, n, t);
}

std::uint64_t SumBytes(const std::uint8_t* HWY_RESTRICT p, std::size_t n) {
    std::uint64_t sum = 0;
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint8_t> d;
    const hn::Repartition<std::uint64_t, decltype(d)> d64;
    const std::size_t N = hn::Lanes(d);
    auto acc = hn::Zero(d64);
    for (; i + N <= n; i += N) acc = hn::Add(acc, hn::SumsOf8(hn::LoadU(d, p + i)));
    sum = hn::GetLane(hn::SumOfLanes(d64, acc));
#endif
    for (; i < n; ++i) sum += p[i];
    return sum;
}

void Blend(std::uint8_t* HWY_RESTRICT p, const std::uint8_t* HWY_RESTRICT q, std::size_t n,
           std::uint32_t wa) {
    const std::uint32_t wb = 65536u - wa;
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint32_t> d;
    const hn::Rebind<std::uint8_t, decltype(d)> d8;
    const std::size_t N = hn::Lanes(d);
    const auto va = hn::Set(d, wa), vb = hn::Set(d, wb), half = hn::Set(d, 32768u);
    for (; i + N <= n; i += N) {
        const auto x = hn::PromoteTo(d, hn::LoadU(d8, p + i)), y = hn::PromoteTo(d, hn::LoadU(d8, q + i));
        const auto v = hn::ShiftRight<16>(hn::Add(hn::Add(hn::Mul(x, va), hn::Mul(y, vb)), half));
        hn::StoreU(hn::DemoteTo(d8, hn::BitCast(hn::RebindToSigned<decltype(d)>(), v)), d8, p + i);
    }
#endif
    for (; i < n; ++i) p[i] = static_cast<std::uint8_t>((wa * p[i] + wb * q[i] + 32768u) >> 16);
}

void BytesToFloats(const std::uint8_t* HWY_RESTRICT src, float* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const DF df;
    const std::size_t N = hn::Lanes(df);
    for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(df, wide(hn::LoadU(D8(), src + i))), df, dst + i);
#endif
    for (; i < n; ++i) dst[i] = src[i];
}

void FloatsToBytes(const float* HWY_RESTRICT src, std::uint8_t* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    // Round is nearest even; clamping to [-1, 256] first keeps the conversion in range.
    const DF df;
    const std::size_t N = hn::Lanes(df);
    const auto lo = hn::Set(df, -1.0f), hi = hn::Set(df, 256.0f);
    for (; i + N <= n; i += N)
        hn::StoreU(narrow(roundInRange(hn::Min(hn::Max(hn::LoadU(df, src + i), lo), hi))), D8(), dst + i);
#endif
    for (; i < n; ++i) {
        const float r = std::nearbyint(std::clamp(src[i], -1.0f, 256.0f));
        dst[i] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(r), 0, 255));
    }
}

void WeightedSum(const float* const* HWY_RESTRICT rows, const float* HWY_RESTRICT k, int taps,
                 float* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    // The sum of a vector of outputs stays in a register over all taps: one load, a multiply and
    // an add a tap, one store.
    // Four vectors at a time: four independent sums, so that an add's latency does not hold up
    // the next tap.
    const DF df;
    const std::size_t N = hn::Lanes(df);
    for (; i + 4 * N <= n; i += 4 * N) {
        const auto k0 = hn::Set(df, k[0]);
        auto a0 = hn::Mul(k0, hn::LoadU(df, rows[0] + i)), a1 = hn::Mul(k0, hn::LoadU(df, rows[0] + i + N));
        auto a2 = hn::Mul(k0, hn::LoadU(df, rows[0] + i + 2 * N)),
             a3 = hn::Mul(k0, hn::LoadU(df, rows[0] + i + 3 * N));
        for (int t = 1; t < taps; ++t) {
            const auto kt = hn::Set(df, k[t]);
            const float* r = rows[t] + i;
            a0 = hn::Add(a0, hn::Mul(kt, hn::LoadU(df, r)));
            a1 = hn::Add(a1, hn::Mul(kt, hn::LoadU(df, r + N)));
            a2 = hn::Add(a2, hn::Mul(kt, hn::LoadU(df, r + 2 * N)));
            a3 = hn::Add(a3, hn::Mul(kt, hn::LoadU(df, r + 3 * N)));
        }
        hn::StoreU(a0, df, dst + i);
        hn::StoreU(a1, df, dst + i + N);
        hn::StoreU(a2, df, dst + i + 2 * N);
        hn::StoreU(a3, df, dst + i + 3 * N);
    }
    for (; i + N <= n; i += N) {
        auto acc = hn::Mul(hn::Set(df, k[0]), hn::LoadU(df, rows[0] + i));
        for (int t = 1; t < taps; ++t)
            acc = hn::Add(acc, hn::Mul(hn::Set(df, k[t]), hn::LoadU(df, rows[t] + i)));
        hn::StoreU(acc, df, dst + i);
    }
#endif
    for (; i < n; ++i) {
        float acc = k[0] * rows[0][i];
        for (int t = 1; t < taps; ++t) acc += k[t] * rows[t][i];
        dst[i] = acc;
    }
}

bool FusedConvolveBytes(const std::uint8_t* const* HWY_RESTRICT rows, const float* HWY_RESTRICT k, int taps,
                        std::uint8_t* HWY_RESTRICT out, std::size_t n) {
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA
    const DF df;
    const std::size_t N = hn::Lanes(df);
    const auto lo = hn::Set(df, -1.0f), hi = hn::Set(df, 256.0f);
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
        auto acc = hn::Zero(df);
        for (int t = 0; t < taps; ++t)
            acc = hn::MulAdd(hn::Set(df, k[t]), hn::ConvertTo(df, wide(hn::LoadU(D8(), rows[t] + i))), acc);
        hn::StoreU(narrow(roundInRange(hn::Min(hn::Max(acc, lo), hi))), D8(), out + i);
    }
    for (; i < n; ++i) {
        float acc = 0.0f;
        for (int t = 0; t < taps; ++t) acc = std::fma(k[t], static_cast<float>(rows[t][i]), acc);
        out[i] = static_cast<std::uint8_t>(
            std::clamp(static_cast<int>(std::nearbyint(std::clamp(acc, -1.0f, 256.0f))), 0, 255));
    }
    return true;
#else
    (void)rows, (void)k, (void)taps, (void)out, (void)n;
    return false;
#endif
}

const char* ColourTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(Gray);
HWY_EXPORT(GrayBlend);
HWY_EXPORT(ChannelMatrix);
HWY_EXPORT(Hsv);
HWY_EXPORT(Blend);
HWY_EXPORT(SumBytes);
HWY_EXPORT(BytesToFloats);
HWY_EXPORT(FloatsToBytes);
HWY_EXPORT(WeightedSum);
HWY_EXPORT(FusedConvolveBytes);
HWY_EXPORT(ColourTarget);

void analyseHsvTables(HsvTables32& t) {
    t.hueRotation = -1;
    if (t.hue[0] >= 0 && t.hue[0] < 180) {
        bool rotation = true;
        for (int h = 0; h < 180 && rotation; ++h) rotation = t.hue[std::size_t(h)] == (h + t.hue[0]) % 180;
        if (rotation) t.hueRotation = t.hue[0];
    }
    const auto addOf = [](const std::array<std::int32_t, 256>& table, bool& keepsZero) {
        // The shift is table[x] - x at any x the clamp leaves alone; try the middle and both ends.
        // A table that maps 0 to 0 is checked from 1 on, 0 then kept as it is.
        keepsZero = table[0] == 0;
        for (int x : {128, 1, 255}) {
            const int add = table[std::size_t(x)] - x;
            bool ok = true;
            for (int k = keepsZero ? 1 : 0; k < 256 && ok; ++k)
                ok = table[std::size_t(k)] == std::clamp(k + add, 0, 255);
            if (ok) return add;
        }
        return HsvTables32::kNoAdd;
    };
    t.satAdd = addOf(t.sat, t.satKeepsZero);
    t.valAdd = addOf(t.val, t.valKeepsZero);
}

void grayPixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels) {
    HWY_DYNAMIC_DISPATCH(Gray)(src, dst, pixels, channels);
}
void grayBlendPixels(std::uint8_t* p, std::size_t pixels, int channels, float alpha, float beta) {
    HWY_DYNAMIC_DISPATCH(GrayBlend)(p, pixels, channels, alpha, beta);
}
void channelMatrixPixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels,
                         const std::array<std::int32_t, 9>& m) {
    HWY_DYNAMIC_DISPATCH(ChannelMatrix)(src, dst, pixels, channels, m);
}
void hsvPixels(std::uint8_t* p, std::size_t pixels, int channels, const HsvTables32& tables) {
    HWY_DYNAMIC_DISPATCH(Hsv)(p, pixels, channels, tables);
}
std::uint64_t sumBytes(const std::uint8_t* p, std::size_t n) {
    return HWY_DYNAMIC_DISPATCH(SumBytes)(p, n);
}
void blendBytes(std::uint8_t* p, const std::uint8_t* q, std::size_t n, std::uint32_t wa) {
    HWY_DYNAMIC_DISPATCH(Blend)(p, q, n, wa);
}
void bytesToFloats(const std::uint8_t* src, float* dst, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(BytesToFloats)(src, dst, n);
}
void floatsToBytes(const float* src, std::uint8_t* dst, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(FloatsToBytes)(src, dst, n);
}
void weightedSum(const float* const* rows, const float* k, int taps, float* dst, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(WeightedSum)(rows, k, taps, dst, n);
}
bool fusedConvolveBytes(const std::uint8_t* const* rows, const float* k, int taps, std::uint8_t* out,
                        std::size_t n) {
    return HWY_DYNAMIC_DISPATCH(FusedConvolveBytes)(rows, k, taps, out, n);
}
const char* colourTarget() {
    return HWY_DYNAMIC_DISPATCH(ColourTarget)();
}

}  // namespace auglab::cpu
#endif
