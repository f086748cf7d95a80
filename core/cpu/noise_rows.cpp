// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. A vector holds one
// pixel a 32-bit lane: its four Philox words, its normals, its deltas; the pixels are loaded
// de-interleaved into bytes of a quarter width, widened, moved and narrowed back with saturation.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/noise_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "cpu/noise_rows.h"
#include "cpu/pixel_lanes-inl.h"
#include "philox.h"
#include "plan.h"
#include "shared_maths.h"

#if HWY_ONCE
namespace auglab::cpu {

void gaussNoisePixelsScalar(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                            float mean255, float std255, bool perChannel) {
    for (std::size_t i = 0; i < n; ++i, p += channels) {
        const auto words = pixelNoiseWords(seed, x0 + static_cast<int>(i), y);
        // Only the normals used: one (all channels), or three (per channel).
        float g[3] = {};
        if (perChannel) {
            boxMuller(words[0], words[1], g[0], g[1]);
            g[2] = boxMullerFirst(words[2], words[3]);
        } else {
            g[0] = boxMullerFirst(words[0], words[1]);
        }
        for (int c = 0; c < 3; ++c) {
            const float z = perChannel ? g[c] : g[0];
            const int delta = static_cast<int>(mean255 + std255 * z);  // truncated toward zero
            p[c] = static_cast<std::uint8_t>(std::clamp(p[c] + delta, 0, 255));
        }
    }
}

std::vector<std::uint32_t> isoNoiseThresholds(double lambda, double p0) {
    std::vector<std::uint32_t> t;
    double p = p0, cumulative = p;
    for (int k = 0; k < shared::kIsoMaxCount && p > 0;) {
        const double bound = std::ceil(cumulative * 4294967296.0);
        if (bound > 4294967295.0) break;  // no word reaches it, nor the ones after
        t.push_back(static_cast<std::uint32_t>(bound));
        ++k;
        p *= lambda / k;
        cumulative += p;
    }
    return t;
}

void isoNoisePixelsScalar(std::uint8_t* p, int x0, int y, std::size_t n, int channels, const IsoNoiseRows& rows) {
    for (std::size_t i = 0; i < n; ++i, p += channels) {
        const auto words = pixelNoiseWords(rows.seed, x0 + static_cast<int>(i), y);
        int count = 0;
        while (static_cast<std::size_t>(count) < rows.thresholdCount && words[0] >= rows.thresholds[count]) ++count;
        int px[3] = {p[0], p[1], p[2]};
        shared::isoNoisePixel(px, count, boxMullerFirst(words[2], words[3]), rows.colorSigma, rows.intensity);
        for (int c = 0; c < 3; ++c) p[c] = static_cast<std::uint8_t>(px[c]);
    }
}

}  // namespace auglab::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using DU = hn::ScalableTag<std::uint32_t>;
using DI = hn::Rebind<std::int32_t, DU>;
using DF = hn::Rebind<float, DU>;
using D8 = hn::Rebind<std::uint8_t, DU>;
using VU = hn::Vec<DU>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;

// The high and low halves of each lane times m (32 x 32 -> 64 bits): the even lanes' products, and
// the odd lanes' moved down to even places.
HWY_INLINE void mulHiLo(VU a, std::uint32_t m, VU& hi, VU& lo) {
    const DU d;
    const hn::Repartition<std::uint64_t, DU> d64;
    const VU mv = hn::Set(d, m);
    const auto even = hn::MulEven(a, mv);
    const auto odd = hn::MulEven(hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a))), mv);
    hi = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(even)));
    lo = hn::Mul(a, mv);
}

// philox.h's normal_draw::logOfSteps, lane by lane.
HWY_INLINE VF logOfSteps(VU k) {
    const DU du;
    const DI di;
    const DF df;
    const VU bits = hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(di, k)));  // exact: k <= 2^24
    VI e = hn::Sub(hn::BitCast(di, hn::ShiftRight<23>(bits)), hn::Set(di, 127));
    VF m = hn::BitCast(df, hn::Or(hn::And(bits, hn::Set(du, 0x7FFFFFu)), hn::Set(du, 0x3F800000u)));
    const auto big = hn::Gt(m, hn::Set(df, normal_draw::kSqrtHalfTimes2));
    m = hn::IfThenElse(big, hn::Mul(m, hn::Set(df, 0.5f)), m);
    e = hn::IfThenElse(hn::RebindMask(di, big), hn::Add(e, hn::Set(di, 1)), e);
    const VF x = hn::Sub(m, hn::Set(df, 1.0f));
    const VF z = hn::Mul(x, x);
    VF p = hn::Set(df, normal_draw::kLog[0]);
    for (int i = 1; i < 9; ++i) p = hn::Add(hn::Mul(p, x), hn::Set(df, normal_draw::kLog[i]));
    const VF fe = hn::ConvertTo(df, hn::Sub(e, hn::Set(di, 24)));
    VF y = hn::Mul(hn::Mul(p, x), z);
    y = hn::Add(y, hn::Mul(fe, hn::Set(df, normal_draw::kLn2Lo)));
    y = hn::Sub(y, hn::Mul(hn::Set(df, 0.5f), z));
    return hn::Add(hn::Add(x, y), hn::Mul(fe, hn::Set(df, normal_draw::kLn2Hi)));
}

// philox.h's normal_draw::cosSinOfSteps, lane by lane.
HWY_INLINE void cosSinOfSteps(VU j, VF& c, VF& s) {
    const DU du;
    const DI di;
    const DF df;
    const VU q = hn::ShiftRight<22>(hn::Add(j, hn::Set(du, 1u << 21)));
    const VI rest = hn::Sub(hn::BitCast(di, j), hn::BitCast(di, hn::ShiftLeft<22>(q)));
    const VF a = hn::Mul(hn::ConvertTo(df, rest), hn::Set(df, normal_draw::kStep));
    const VF z = hn::Mul(a, a);
    VF ps = hn::Set(df, normal_draw::kSin[0]);
    ps = hn::Add(hn::Mul(ps, z), hn::Set(df, normal_draw::kSin[1]));
    ps = hn::Add(hn::Mul(ps, z), hn::Set(df, normal_draw::kSin[2]));
    const VF sa = hn::Add(hn::Mul(hn::Mul(ps, z), a), a);
    VF pc = hn::Set(df, normal_draw::kCos[0]);
    pc = hn::Add(hn::Mul(pc, z), hn::Set(df, normal_draw::kCos[1]));
    pc = hn::Add(hn::Mul(pc, z), hn::Set(df, normal_draw::kCos[2]));
    const VF ca = hn::Add(hn::Sub(hn::Mul(hn::Mul(pc, z), z), hn::Mul(hn::Set(df, 0.5f), z)), hn::Set(df, 1.0f));
    // Quarter q: cos is ca, -sa, -ca, sa and sin is sa, ca, -sa, -ca.
    const VU quarter = hn::And(q, hn::Set(du, 3u));
    const auto odd = hn::RebindMask(df, hn::Eq(hn::And(quarter, hn::Set(du, 1u)), hn::Set(du, 1u)));
    const auto cosNegative = hn::RebindMask(
        df, hn::Or(hn::Eq(quarter, hn::Set(du, 1u)), hn::Eq(quarter, hn::Set(du, 2u))));
    const auto sinNegative = hn::RebindMask(df, hn::Gt(hn::BitCast(di, quarter), hn::Set(di, 1)));
    const VF cosBase = hn::IfThenElse(odd, sa, ca), sinBase = hn::IfThenElse(odd, ca, sa);
    c = hn::IfThenElse(cosNegative, hn::Neg(cosBase), cosBase);
    s = hn::IfThenElse(sinNegative, hn::Neg(sinBase), sinBase);
}

// The four Philox4x32-10 words of the counters (first + lane, second, third, 0), lane by lane
// (philox.h's philox4x32).
HWY_INLINE void philoxWordsOf(const PhiloxKey& key, std::uint32_t first, std::uint32_t second, std::uint32_t third,
                              VU& c0, VU& c1, VU& c2, VU& c3) {
    const DU du;
    c0 = hn::Add(hn::Set(du, first), hn::Iota(du, 0));
    c1 = hn::Set(du, second);
    c2 = hn::Set(du, third);
    c3 = hn::Zero(du);
    std::uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
        VU hi0, lo0, hi1, lo1;
        mulHiLo(c0, 0xD2511F53u, hi0, lo0);
        mulHiLo(c2, 0xCD9E8D57u, hi1, lo1);
        c0 = hn::Xor(hn::Xor(hi1, c1), hn::Set(du, k0));
        c1 = lo1;
        c2 = hn::Xor(hn::Xor(hi0, c3), hn::Set(du, k1));
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

// The four Philox4x32-10 words of pixels x .. x + lanes - 1 of row y: counters (x, y, "nois", 0), as
// pixelNoiseWords (philox.h's philox4x32).
HWY_INLINE void philoxWords(const PhiloxKey& key, int x, int y, VU& c0, VU& c1, VU& c2, VU& c3) {
    philoxWordsOf(key, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0x6e6f6973u, c0, c1, c2, c3);
}

// philox.h's boxMuller of words w0 and w1, lane by lane.
HWY_INLINE void normals(VU w0, VU w1, VF& n0, VF& n1) {
    const DU du;
    const DF df;
    const VF r = hn::Sqrt(hn::Mul(hn::Set(df, -2.0f), logOfSteps(hn::Add(hn::ShiftRight<8>(w0), hn::Set(du, 1u)))));
    VF c, s;
    cosSinOfSteps(hn::ShiftRight<8>(w1), c, s);
    n0 = hn::Mul(r, c);
    n1 = hn::Mul(r, s);
}

template <int CN>
void NoiseImpl(std::uint8_t* HWY_RESTRICT p, int x0, int y, std::size_t n, std::uint64_t seed, float mean255,
               float std255, bool perChannel, std::size_t& done) {
    const DU du;
    const DI di;
    const DF df;
    const D8 d8;
    const std::size_t N = hn::Lanes(du);
    const PhiloxKey key = philoxKey(seed);
    const VF mean = hn::Set(df, mean255), spread = hn::Set(df, std255);
    const auto delta = [&](VF z) { return hn::ConvertTo(di, hn::Add(mean, hn::Mul(spread, z))); };  // truncated
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
        VU c0, c1, c2, c3;
        philoxWords(key, x0 + static_cast<int>(i), y, c0, c1, c2, c3);
        VF g0, g1, g2, unused;
        normals(c0, c1, g0, g1);
        VI dr = delta(g0), dg = dr, db = dr;
        if (perChannel) {
            normals(c2, c3, g2, unused);
            dg = delta(g1);
            db = delta(g2);
        }
        hn::Vec<D8> r, g, b, a;
        std::uint8_t* q = p + CN * i;
        lanes::loadPixels<CN>(q, r, g, b, a);
        const auto moved = [&](hn::Vec<D8> v, VI by) {  // saturated to 0..255
            return hn::DemoteTo(d8, hn::Add(hn::PromoteTo(di, v), by));
        };
        r = moved(r, dr);
        g = moved(g, dg);
        b = moved(b, db);
        lanes::storePixels<CN>(q, r, g, b, a);
    }
    done = i;
}

#if HWY_NATIVE_FMA
// shared::isoNoisePixel lane by lane: rgbToHlsF (its fmaf as MulAdd), the hue and lightness moves,
// hlsToRgbF, clipped and rounded; the count as the thresholds the word reaches.
template <int CN>
void IsoNoiseImpl(std::uint8_t* HWY_RESTRICT p, int x0, int y, std::size_t n, const IsoNoiseRows& rows,
                  std::size_t& done) {
    const DU du;
    const DI di;
    const DF df;
    const D8 d8;
    const std::size_t N = hn::Lanes(du);
    const PhiloxKey key = philoxKey(rows.seed);
    const VF by255 = hn::Set(df, 255.0f), zero = hn::Zero(df), one = hn::Set(df, 1.0f), half = hn::Set(df, 0.5f);
    const VF two = hn::Set(df, 2.0f), epsilon = hn::Set(df, FLT_EPSILON), sixty = hn::Set(df, 60.0f);
    const VF sigma = hn::Set(df, rows.colorSigma), intensity = hn::Set(df, rows.intensity);
    const VF sixths = hn::Set(df, 6.0f / 360.0f), six = hn::Set(df, 6.0f);
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
        VU w0, w1, w2, w3;
        philoxWords(key, x0 + static_cast<int>(i), y, w0, w1, w2, w3);
        // Unsigned comparisons as signed ones with the top bit flipped on both sides.
        const VI u = hn::BitCast(di, hn::Xor(w0, hn::Set(du, 0x80000000u)));
        VI count = hn::Zero(di);
        const VI oneCount = hn::Set(di, 1);
        for (std::size_t k = 0; k < rows.thresholdCount; ++k) {
            const VI t = hn::Set(di, static_cast<std::int32_t>(rows.thresholds[k] ^ 0x80000000u));
            count = hn::Add(count, hn::IfThenZeroElse(hn::Lt(u, t), oneCount));
        }
        VF normal, unused;
        normals(w2, w3, normal, unused);

        hn::Vec<D8> r8, g8, b8, a8;
        std::uint8_t* q = p + CN * i;
        lanes::loadPixels<CN>(q, r8, g8, b8, a8);
        const VF r = hn::Div(hn::ConvertTo(df, hn::PromoteTo(di, r8)), by255);
        const VF g = hn::Div(hn::ConvertTo(df, hn::PromoteTo(di, g8)), by255);
        const VF b = hn::Div(hn::ConvertTo(df, hn::PromoteTo(di, b8)), by255);
        // rgbToHlsF
        const VF vmax = hn::Max(hn::Max(r, g), b), vmin = hn::Min(hn::Min(r, g), b);
        const VF diff = hn::Sub(vmax, vmin), sum = hn::Add(vmax, vmin);
        VF l = hn::Mul(sum, half);
        const auto coloured = hn::Gt(diff, epsilon);
        const VF sat = hn::IfThenElseZero(
            coloured, hn::IfThenElse(hn::Lt(l, half), hn::Div(diff, sum), hn::Div(diff, hn::Sub(two, sum))));
        const VF d60 = hn::Div(sixty, hn::IfThenElse(coloured, diff, one));
        const VF gb = hn::Sub(g, b);
        const VF hr = hn::IfThenElse(hn::Lt(g, b), hn::MulAdd(gb, d60, hn::Set(df, 360.0f)), hn::Mul(gb, d60));
        const VF hg = hn::MulAdd(hn::Sub(b, r), d60, hn::Set(df, 120.0f));
        const VF hb = hn::MulAdd(hn::Sub(r, g), d60, hn::Set(df, 240.0f));
        VF h = hn::IfThenElseZero(coloured, hn::IfThenElse(hn::Eq(vmax, r), hr, hn::IfThenElse(hn::Eq(vmax, g), hg, hb)));
        // The noise.
        h = hn::Add(h, hn::Mul(normal, sigma));
        const VF oneMinusL = hn::Sub(one, l);
        l = hn::Add(l, hn::Mul(hn::Mul(hn::ConvertTo(df, count), intensity), oneMinusL));
        // hlsToRgbF
        const VF p2 = hn::IfThenElse(hn::Le(l, half), hn::Mul(l, hn::Add(one, sat)), hn::Sub(hn::Add(l, sat), hn::Mul(l, sat)));
        const VF p1 = hn::Sub(hn::Mul(two, l), p2);
        VF hh = hn::Mul(h, sixths);
        hh = hn::IfThenElse(hn::Ge(hh, six), hn::Sub(hh, six), hh);
        const VF whole = hn::Trunc(hh);
        const VF f = hn::Sub(hh, whole);
        const VI sector = hn::Min(hn::Max(hn::ConvertTo(di, whole), hn::Zero(di)), hn::Set(di, 5));
        const VF spread = hn::Sub(p2, p1);
        const VF t2 = hn::MulAdd(spread, hn::Sub(one, f), p1), t3 = hn::MulAdd(spread, f, p1);
        const auto is = [&](int k) { return hn::RebindMask(df, hn::Eq(sector, hn::Set(di, k))); };
        const auto m0 = is(0), m1 = is(1), m2 = is(2), m3 = is(3), m4 = is(4);
        const auto grey = hn::Eq(sat, zero);
        // hlsToRgbF's sectors: {b, g, r} take tab {1,3,0} {1,0,2} {3,0,1} {0,2,1} {0,1,3} {2,1,0},
        // tab = {p2, p1, t2, t3}.
        const auto pick = [&](VF s0, VF s1, VF s2, VF s3, VF s4, VF s5) {
            VF x = hn::IfThenElse(
                m0, s0, hn::IfThenElse(m1, s1, hn::IfThenElse(m2, s2, hn::IfThenElse(m3, s3, hn::IfThenElse(m4, s4, s5)))));
            x = hn::IfThenElse(grey, l, x);
            x = hn::Min(hn::Max(x, zero), one);
            return hn::DemoteTo(d8, hn::ConvertTo(di, hn::Round(hn::Mul(x, by255))));
        };
        b8 = pick(p1, p1, t3, p2, p2, t2);
        g8 = pick(t3, p2, p2, t2, p1, p1);
        r8 = pick(p2, t2, p1, p1, t3, p2);
        lanes::storePixels<CN>(q, r8, g8, b8, a8);
    }
    done = i;
}
#endif
#endif

#if HWY_TARGET != HWY_SCALAR
// PixelDrops' whole vectors from pixel x0 (a multiple of 4 unless perChannel): the Philox words of
// N blocks of four pixels (or of N pixels, per channel) at once, compared with the threshold as
// signed numbers with the top bit flipped; `done` pixels written.
void PixelDropsImpl(std::uint64_t seed, std::uint32_t threshold, bool perChannel, int x0, int y, std::size_t n,
                    std::uint8_t* HWY_RESTRICT drop, std::size_t& done) {
    const DU du;
    const DI di;
    const std::size_t N = hn::Lanes(du);
    const PhiloxKey key = philoxKey(seed);
    const VI t = hn::Set(di, static_cast<std::int32_t>(threshold ^ 0x80000000u));
    HWY_ALIGN std::int32_t f[4][hn::MaxLanes(di)];
    const auto flags = [&](VU w0, VU w1, VU w2, VU w3) {
        const VU words[4] = {w0, w1, w2, w3};
        for (int k = 0; k < 4; ++k) {
            const VI u = hn::BitCast(di, hn::Xor(words[k], hn::Set(du, 0x80000000u)));
            hn::Store(hn::VecFromMask(di, hn::Lt(u, t)), di, f[k]);
        }
    };
    const std::size_t step = perChannel ? N : 4 * N;
    std::size_t i = 0;
    for (; i + step <= n; i += step) {
        VU w0, w1, w2, w3;
        const auto x = static_cast<std::uint32_t>(x0) + static_cast<std::uint32_t>(i);
        if (perChannel) {
            philoxWordsOf(key, x, static_cast<std::uint32_t>(y), 1, w0, w1, w2, w3);
            flags(w0, w1, w2, w3);
            for (std::size_t j = 0; j < N; ++j)
                for (int c = 0; c < 3; ++c) drop[3 * (i + j) + c] = static_cast<std::uint8_t>(f[c][j] & 1);
        } else {
            philoxWordsOf(key, x / 4, static_cast<std::uint32_t>(y), 0, w0, w1, w2, w3);
            flags(w0, w1, w2, w3);
            for (std::size_t j = 0; j < N; ++j)
                for (int k = 0; k < 4; ++k) {
                    std::uint8_t* q = drop + 3 * (i + 4 * j + static_cast<std::size_t>(k));
                    q[0] = q[1] = q[2] = static_cast<std::uint8_t>(f[k][j] & 1);
                }
        }
    }
    done = i;
}
#endif

void PixelKeys(std::uint64_t seed, int x0, int y, std::size_t n, std::uint32_t* HWY_RESTRICT keys) {
    // Up to the first block of four, by the definition; then N blocks at once, their four words
    // interleaved into pixel order.
    const std::size_t head = std::min(n, static_cast<std::size_t>((4 - x0 % 4) % 4));
    if (head > 0) pixelKeyRow(seed, y, x0, static_cast<int>(head), keys);
    std::size_t i = head;
#if HWY_TARGET != HWY_SCALAR
    const DU du;
    const std::size_t N = hn::Lanes(du);
    const PhiloxKey key = philoxKey(seed);
    for (; i + 4 * N <= n; i += 4 * N) {
        VU w0, w1, w2, w3;
        const auto block = (static_cast<std::uint32_t>(x0) + static_cast<std::uint32_t>(i)) / 4;
        philoxWordsOf(key, block, static_cast<std::uint32_t>(y), 0, w0, w1, w2, w3);
        hn::StoreInterleaved4(w0, w1, w2, w3, du, keys + i);
    }
#endif
    if (i < n) pixelKeyRow(seed, y, x0 + static_cast<int>(i), static_cast<int>(n - i), keys + i);
}

void PixelDrops(std::uint64_t seed, std::uint64_t threshold, bool perChannel, int x0, int y, std::size_t n,
                std::uint8_t* HWY_RESTRICT drop) {
    PixelDropoutStep s;
    s.threshold = threshold;
    s.perChannel = perChannel;
    s.seed = seed;
    if (threshold == 0 || threshold >= (std::uint64_t{1} << 32)) {
        std::fill(drop, drop + 3 * n, static_cast<std::uint8_t>(threshold == 0 ? 0 : 1));
        return;
    }
    // Up to the first block of four (whole pixels), by the definition.
    std::size_t head = perChannel ? 0 : static_cast<std::size_t>((4 - x0 % 4) % 4);
    head = std::min(head, n);
    if (head > 0) pixelDropRow(s, y, x0, static_cast<int>(head), drop);
    std::size_t done = 0;
#if HWY_TARGET != HWY_SCALAR
    PixelDropsImpl(seed, static_cast<std::uint32_t>(threshold), perChannel, x0 + static_cast<int>(head), y, n - head,
                   drop + 3 * head, done);
#endif
    const std::size_t from = head + done;
    if (from < n) pixelDropRow(s, y, x0 + static_cast<int>(from), static_cast<int>(n - from), drop + 3 * from);
}

void IsoNoiseKernel(std::uint8_t* HWY_RESTRICT p, int x0, int y, std::size_t n, int channels, const IsoNoiseRows& rows) {
    std::size_t done = 0;
#if HWY_TARGET != HWY_SCALAR && HWY_NATIVE_FMA
    if (channels == 4)
        IsoNoiseImpl<4>(p, x0, y, n, rows, done);
    else
        IsoNoiseImpl<3>(p, x0, y, n, rows, done);
#endif
    isoNoisePixelsScalar(p + static_cast<std::size_t>(channels) * done, x0 + static_cast<int>(done), y, n - done,
                         channels, rows);
}

void GaussNoise(std::uint8_t* HWY_RESTRICT p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                float mean255, float std255, bool perChannel) {
    std::size_t done = 0;
#if HWY_TARGET != HWY_SCALAR
    if (channels == 4)
        NoiseImpl<4>(p, x0, y, n, seed, mean255, std255, perChannel, done);
    else
        NoiseImpl<3>(p, x0, y, n, seed, mean255, std255, perChannel, done);
#endif
    gaussNoisePixelsScalar(p + static_cast<std::size_t>(channels) * done, x0 + static_cast<int>(done), y, n - done,
                           channels, seed, mean255, std255, perChannel);
}

const char* NoiseTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(GaussNoise);
HWY_EXPORT(IsoNoiseKernel);
HWY_EXPORT(NoiseTarget);
HWY_EXPORT(PixelDrops);
HWY_EXPORT(PixelKeys);

void pixelKeys(std::uint64_t seed, int x0, int y, std::size_t n, std::uint32_t* keys) {
    HWY_DYNAMIC_DISPATCH(PixelKeys)(seed, x0, y, n, keys);
}

void pixelDrops(std::uint64_t seed, std::uint64_t threshold, bool perChannel, int x0, int y, std::size_t n,
                std::uint8_t* drop) {
    HWY_DYNAMIC_DISPATCH(PixelDrops)(seed, threshold, perChannel, x0, y, n, drop);
}

void gaussNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                      float mean255, float std255, bool perChannel) {
    HWY_DYNAMIC_DISPATCH(GaussNoise)(p, x0, y, n, channels, seed, mean255, std255, perChannel);
}

void isoNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, const IsoNoiseRows& rows) {
    HWY_DYNAMIC_DISPATCH(IsoNoiseKernel)(p, x0, y, n, channels, rows);
}

const char* noiseTarget() {
    return HWY_DYNAMIC_DISPATCH(NoiseTarget)();
}

}  // namespace auglab::cpu
#endif
