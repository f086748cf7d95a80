// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. A vector holds one
// pixel a 32-bit lane; Lab8's tables are widened to 32 bits once (LabTables32) and gathered.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/lab_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <array>
#include <vector>

#include "colour.h"
#include "cpu/lab_rows.h"
#include "cpu/pixel_lanes-inl.h"
#include "shared_maths.h"

#ifndef AUGLAB_CPU_LAB_ROWS_TABLES
#define AUGLAB_CPU_LAB_ROWS_TABLES
namespace auglab::cpu {
namespace {

// Lab8's tables in 32-bit entries, for gathers; yf as one entry per L: Y low, f(Y) high (16 bits each).
struct LabTables32 {
    alignas(64) std::array<std::int32_t, 256> gamma{};
    alignas(64) std::array<std::int32_t, 3072> cbrt{};
    alignas(64) std::array<std::int32_t, 256> yf{};
    alignas(64) std::array<std::int32_t, 4096> invGamma{};
    std::vector<std::int32_t> abToXz;
    std::array<std::int32_t, 9> toXyz{}, toRgb{};
    const shared::LabTables* view = nullptr;  ///< the scalar definitions' tables

    static const LabTables32& get() {
        static const LabTables32 t = [] {
            LabTables32 w;
            const shared::LabTables& v = Lab8::tables().view();
            for (std::size_t i = 0; i < w.gamma.size(); ++i) w.gamma[i] = v.gamma[i];
            for (std::size_t i = 0; i < w.cbrt.size(); ++i) w.cbrt[i] = v.cbrt[i];
            for (std::size_t i = 0; i < w.yf.size(); ++i) w.yf[i] = v.yf[2 * i] | (v.yf[2 * i + 1] << 16);
            for (std::size_t i = 0; i < w.invGamma.size(); ++i) w.invGamma[i] = v.invGamma[i];
            w.abToXz.assign(v.abToXz, v.abToXz + shared::lab_layout::kAbToXzSize);
            for (std::size_t i = 0; i < 9; ++i) {
                w.toXyz[i] = v.toXyz[i];
                w.toRgb[i] = v.toRgb[i];
            }
            w.view = &v;
            return w;
        }();
        return t;
    }
};

}  // namespace
}  // namespace auglab::cpu
#endif

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
using D32 = hn::ScalableTag<std::int32_t>;
using DF = hn::Rebind<float, D32>;
using D8 = hn::Rebind<std::uint8_t, D32>;
using V32 = hn::Vec<D32>;
using VF = hn::Vec<DF>;
using V8 = hn::Vec<D8>;

using lanes::loadPixels;
using lanes::wide;

// c[0] * x + c[1] * y + c[2] * z + round >> shift: a row of a fixed-point 3 x 3 matrix.
template <int kShift>
HWY_INLINE V32 matrixRow(const std::int32_t* c, V32 x, V32 y, V32 z) {
    const D32 d;
    const V32 sum = hn::Add(hn::Add(hn::Mul(hn::Set(d, c[0]), x), hn::Mul(hn::Set(d, c[1]), y)),
                            hn::Add(hn::Mul(hn::Set(d, c[2]), z), hn::Set(d, 1 << (kShift - 1))));
    return hn::ShiftRight<kShift>(sum);
}
#endif

template <int CN>
void LabPlanesImpl(const std::uint8_t* HWY_RESTRICT src, std::size_t n, std::uint8_t* HWY_RESTRICT L,
                   std::uint8_t* HWY_RESTRICT A, std::uint8_t* HWY_RESTRICT B) {
    const LabTables32& t = LabTables32::get();
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    // shared::labFromRgb lane for lane: the gamma table, the XYZ rows (12-bit), the cube-root table,
    // then L, a and b in 15-bit fixed point, saturated to a byte as labClamp8 does.
    const D32 d;
    const D8 d8;
    const std::size_t N = hn::Lanes(d);
    const V32 lOffset = hn::Set(d, -1336934 + (1 << 14)), abOffset = hn::Set(d, (128 << 15) + (1 << 14));
    const V32 k296 = hn::Set(d, 296), k500 = hn::Set(d, 500), k200 = hn::Set(d, 200);
    for (; i + N <= n; i += N) {
        V8 r8, g8, b8, a8;
        loadPixels<CN>(src + CN * i, r8, g8, b8, a8);
        const V32 r = hn::GatherIndex(d, t.gamma.data(), wide(r8));
        const V32 g = hn::GatherIndex(d, t.gamma.data(), wide(g8));
        const V32 b = hn::GatherIndex(d, t.gamma.data(), wide(b8));
        const V32 fx = hn::GatherIndex(d, t.cbrt.data(), matrixRow<12>(t.toXyz.data(), r, g, b));
        const V32 fy = hn::GatherIndex(d, t.cbrt.data(), matrixRow<12>(t.toXyz.data() + 3, r, g, b));
        const V32 fz = hn::GatherIndex(d, t.cbrt.data(), matrixRow<12>(t.toXyz.data() + 6, r, g, b));
        const V32 l = hn::ShiftRight<15>(hn::Add(hn::Mul(k296, fy), lOffset));
        const V32 a = hn::ShiftRight<15>(hn::Add(hn::Mul(k500, hn::Sub(fx, fy)), abOffset));
        const V32 bb = hn::ShiftRight<15>(hn::Add(hn::Mul(k200, hn::Sub(fy, fz)), abOffset));
        hn::StoreU(hn::DemoteTo(d8, l), d8, L + i);
        hn::StoreU(hn::DemoteTo(d8, a), d8, A + i);
        hn::StoreU(hn::DemoteTo(d8, bb), d8, B + i);
    }
#endif
    for (; i < n; ++i) {
        const std::uint8_t* p = src + CN * i;
        int l, a, b;
        shared::labFromRgb(*t.view, p[0], p[1], p[2], l, a, b);
        L[i] = static_cast<std::uint8_t>(l);
        A[i] = static_cast<std::uint8_t>(a);
        B[i] = static_cast<std::uint8_t>(b);
    }
}

void LabPlanes(const std::uint8_t* src, std::size_t n, int channels, std::uint8_t* L, std::uint8_t* a,
               std::uint8_t* b) {
    if (channels == 4)
        LabPlanesImpl<4>(src, n, L, a, b);
    else
        LabPlanesImpl<3>(src, n, L, a, b);
}

template <int CN>
void ClaheRowImpl(const std::uint8_t* HWY_RESTRICT L, const std::uint8_t* HWY_RESTRICT A,
                  const std::uint8_t* HWY_RESTRICT B, std::uint8_t* HWY_RESTRICT dst, std::size_t n,
                  const ClaheRow& row) {
    const LabTables32& t = LabTables32::get();
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    // shared::claheBlend (float32 products and sums in its order, rounded to nearest even) and
    // shared::labToRgb (14-bit fixed point, the tables gathered), lane for lane.
    const D32 d;
    const DF df;
    const D8 d8;
    const std::size_t N = hn::Lanes(d);
    const VF ya = hn::Set(df, row.ya), ya1 = hn::Set(df, row.ya1), max8 = hn::Set(df, 255.0f);
    const V32 low16 = hn::Set(d, 0xFFFF), aRound = hn::Set(d, 1 << 7), bRound = hn::Set(d, 1 << 4);
    const V32 aScale = hn::Set(d, 5 * 53687), bScale = hn::Set(d, 41943);
    const V32 aOffset = hn::Set(d, 128 * 16384 / 500 + shared::lab_layout::kMinAb);
    const V32 bOffset = hn::Set(d, 128 * 16384 / 200 - 1 - shared::lab_layout::kMinAb);
    const V32 max12 = hn::Set(d, 4095), zero = hn::Zero(d);
    for (; i + N <= n; i += N) {
        const V32 l = wide(hn::LoadU(d8, L + i));
        const V32 i1 = hn::Add(hn::LoadU(d, row.t1 + i), l), i2 = hn::Add(hn::LoadU(d, row.t2 + i), l);
        const VF top1 = hn::ConvertTo(df, hn::GatherIndex(d, row.top, i1));
        const VF top2 = hn::ConvertTo(df, hn::GatherIndex(d, row.top, i2));
        const VF bottom1 = hn::ConvertTo(df, hn::GatherIndex(d, row.bottom, i1));
        const VF bottom2 = hn::ConvertTo(df, hn::GatherIndex(d, row.bottom, i2));
        const VF xa = hn::LoadU(df, row.xa + i), xa1 = hn::LoadU(df, row.xa1 + i);
        const VF res = hn::Add(hn::Mul(hn::Add(hn::Mul(top1, xa1), hn::Mul(top2, xa)), ya1),
                               hn::Mul(hn::Add(hn::Mul(bottom1, xa1), hn::Mul(bottom2, xa)), ya));
        const V32 newL = hn::ConvertTo(d, hn::Min(hn::Round(res), max8));
        const V32 yf = hn::GatherIndex(d, t.yf.data(), newL);
        const V32 y = hn::And(yf, low16), ify = hn::ShiftRight<16>(yf);
        const V32 a = wide(hn::LoadU(d8, A + i)), b = wide(hn::LoadU(d8, B + i));
        // ify + adiv - kMinAb and ify - bdiv - kMinAb, as labToRgb indexes abToXz.
        const V32 ia = hn::Sub(hn::Add(ify, hn::ShiftRight<13>(hn::Add(hn::Mul(a, aScale), aRound))), aOffset);
        const V32 ib = hn::Add(hn::Sub(ify, hn::ShiftRight<9>(hn::Add(hn::Mul(b, bScale), bRound))), bOffset);
        const V32 x = hn::GatherIndex(d, t.abToXz.data(), ia), z = hn::GatherIndex(d, t.abToXz.data(), ib);
        const auto channel = [&](int c) {
            const V32 v = hn::Min(hn::Max(matrixRow<14>(t.toRgb.data() + 3 * c, x, y, z), zero), max12);
            return hn::DemoteTo(d8, hn::GatherIndex(d, t.invGamma.data(), v));
        };
        const V8 r8 = channel(0), g8 = channel(1), b8 = channel(2);
        std::uint8_t* p = dst + CN * i;
        if constexpr (CN == 3) {
            hn::StoreInterleaved3(r8, g8, b8, d8, p);
        } else {
            V8 o0, o1, o2, alpha;
            hn::LoadInterleaved4(d8, p, o0, o1, o2, alpha);
            hn::StoreInterleaved4(r8, g8, b8, alpha, d8, p);
        }
    }
#endif
    for (; i < n; ++i) {
        const std::size_t i1 = std::size_t(row.t1[i]) + L[i], i2 = std::size_t(row.t2[i]) + L[i];
        const int newL = shared::claheBlend(row.top[i1], row.top[i2], row.bottom[i1], row.bottom[i2], row.xa[i],
                                            row.xa1[i], row.ya, row.ya1);
        int r, g, b;
        shared::labToRgb(*t.view, newL, A[i], B[i], r, g, b);
        std::uint8_t* p = dst + CN * i;
        p[0] = static_cast<std::uint8_t>(r);
        p[1] = static_cast<std::uint8_t>(g);
        p[2] = static_cast<std::uint8_t>(b);
    }
}

void ClaheRowKernel(const std::uint8_t* L, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* dst,
                    std::size_t n, int channels, const ClaheRow& row) {
    if (channels == 4)
        ClaheRowImpl<4>(L, a, b, dst, n, row);
    else
        ClaheRowImpl<3>(L, a, b, dst, n, row);
}

const char* LabTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(LabPlanes);
HWY_EXPORT(ClaheRowKernel);
HWY_EXPORT(LabTarget);

void labPlanes(const std::uint8_t* src, std::size_t n, int channels, std::uint8_t* L, std::uint8_t* a,
               std::uint8_t* b) {
    HWY_DYNAMIC_DISPATCH(LabPlanes)(src, n, channels, L, a, b);
}
void claheRow(const std::uint8_t* L, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* dst,
              std::size_t n, int channels, const ClaheRow& row) {
    HWY_DYNAMIC_DISPATCH(ClaheRowKernel)(L, a, b, dst, n, channels, row);
}
const char* labTarget() {
    return HWY_DYNAMIC_DISPATCH(LabTarget)();
}

}  // namespace auglab::cpu
#endif
