// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. A vector holds one
// pixel a 32-bit lane: its four Philox words, its normals, its deltas; the pixels are loaded
// de-interleaved into bytes of a quarter width, widened, moved and narrowed back with saturation.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/noise_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#include "cpu/noise_rows.h"
#include "philox.h"
#include "plan.h"

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

template <int CN>
void NoiseImpl(std::uint8_t* HWY_RESTRICT p, int x0, int y, std::size_t n, std::uint64_t seed, float mean255,
               float std255, bool perChannel, std::size_t& done) {
    const DU du;
    const DI di;
    const DF df;
    const D8 d8;
    const std::size_t N = hn::Lanes(du);
    const PhiloxKey key = philoxKey(seed);
    const VF mean = hn::Set(df, mean255), spread = hn::Set(df, std255), minus2 = hn::Set(df, -2.0f);
    const auto delta = [&](VF z) { return hn::ConvertTo(di, hn::Add(mean, hn::Mul(spread, z))); };  // truncated
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
        // Philox4x32-10 of counters (x, y, "nois", 0), as pixelNoiseWords (philox.h's philox4x32).
        VU c0 = hn::Add(hn::Set(du, static_cast<std::uint32_t>(x0 + static_cast<int>(i))), hn::Iota(du, 0));
        VU c1 = hn::Set(du, static_cast<std::uint32_t>(y)), c2 = hn::Set(du, 0x6e6f6973u), c3 = hn::Zero(du);
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
        const auto normals = [&](VU w0, VU w1, VF& n0, VF& n1) {
            const VF r = hn::Sqrt(hn::Mul(minus2, logOfSteps(hn::Add(hn::ShiftRight<8>(w0), hn::Set(du, 1u)))));
            VF c, s;
            cosSinOfSteps(hn::ShiftRight<8>(w1), c, s);
            n0 = hn::Mul(r, c);
            n1 = hn::Mul(r, s);
        };
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
        if constexpr (CN == 3)
            hn::LoadInterleaved3(d8, q, r, g, b);
        else
            hn::LoadInterleaved4(d8, q, r, g, b, a);
        const auto moved = [&](hn::Vec<D8> v, VI by) {  // saturated to 0..255
            return hn::DemoteTo(d8, hn::Add(hn::PromoteTo(di, v), by));
        };
        r = moved(r, dr);
        g = moved(g, dg);
        b = moved(b, db);
        if constexpr (CN == 3)
            hn::StoreInterleaved3(r, g, b, d8, q);
        else
            hn::StoreInterleaved4(r, g, b, a, d8, q);
    }
    done = i;
}
#endif

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
HWY_EXPORT(NoiseTarget);

void gaussNoisePixels(std::uint8_t* p, int x0, int y, std::size_t n, int channels, std::uint64_t seed,
                      float mean255, float std255, bool perChannel) {
    HWY_DYNAMIC_DISPATCH(GaussNoise)(p, x0, y, n, channels, seed, mean255, std255, perChannel);
}

const char* noiseTarget() {
    return HWY_DYNAMIC_DISPATCH(NoiseTarget)();
}

}  // namespace auglab::cpu
#endif
