// Highway's dynamic dispatch, as colour_rows.cpp: compiled once per SIMD target, the best one
// chosen at run time. Each byte becomes a 32-bit index into the channel's table (its value plus
// 256 times its channel) and the floats are gathered.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/tail_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "cpu/tail_rows.h"

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// 32-bit lanes: a byte widened to an index or a float, a quarter-width vector of bytes.
using D32 = hn::ScalableTag<std::int32_t>;
using DF = hn::Rebind<float, D32>;
using D8 = hn::Rebind<std::uint8_t, D32>;
#endif

#if HWY_TARGET != HWY_SCALAR
// The pixels of `src` N at a time, de-interleaved: each(v, c, x) for channel c's N bytes of pixels
// x .. x + N - 1. Returns the first pixel left for the scalar code.
template <class D8, class Each>
HWY_INLINE std::size_t eachPlaneBlock(D8 d8, const std::uint8_t* HWY_RESTRICT src, std::size_t pixels,
                                      std::size_t cn, const Each& each) {
    const std::size_t N = hn::Lanes(d8);
    std::size_t x = 0;
    if (cn == 3) {
        for (; x + N <= pixels; x += N) {
            hn::Vec<D8> r, g, b;
            hn::LoadInterleaved3(d8, src + x * 3, r, g, b);
            each(r, 0, x);
            each(g, 1, x);
            each(b, 2, x);
        }
    } else if (cn == 4) {
        for (; x + N <= pixels; x += N) {
            hn::Vec<D8> r, g, b, a;
            hn::LoadInterleaved4(d8, src + x * 4, r, g, b, a);
            each(r, 0, x);
            each(g, 1, x);
            each(b, 2, x);
            each(a, 3, x);
        }
    }
    return x;
}
#endif

void LookUpFloats(const std::uint8_t* HWY_RESTRICT src, std::size_t pixels, int channels,
                  const float* HWY_RESTRICT tables, float* HWY_RESTRICT dst) {
    const auto cn = static_cast<std::size_t>(channels);
    const std::size_t n = pixels * cn;
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const D32 d32;
    const DF df;
    const std::size_t N = hn::Lanes(d32);
    // offsets[r]: each lane's table when the step starts at a value of channel r.
    constexpr std::size_t kMaxLanes = 64;
    if (N <= kMaxLanes) {
        HWY_ALIGN std::int32_t offsets[4][kMaxLanes];
        for (std::size_t r = 0; r < cn; ++r)
            for (std::size_t j = 0; j < N; ++j)
                offsets[r][j] = static_cast<std::int32_t>(256 * ((r + j) % cn));
        std::size_t r = 0;
        for (; i + N <= n; i += N) {
            const auto index =
                hn::Add(hn::PromoteTo(d32, hn::LoadU(D8(), src + i)), hn::Load(d32, offsets[r]));
            hn::StoreU(hn::GatherIndex(df, tables, index), df, dst + i);
            r = (r + N) % cn;
        }
    }
#endif
    for (; i < n; ++i) dst[i] = tables[256 * (i % cn) + src[i]];
}

void LookUpFloatsPlanar(const std::uint8_t* HWY_RESTRICT src, std::size_t pixels, int channels,
                        const float* HWY_RESTRICT tables, float* HWY_RESTRICT dst, std::size_t planeStride) {
    const auto cn = static_cast<std::size_t>(channels);
    std::size_t x = 0;
#if HWY_TARGET != HWY_SCALAR
    const D32 d32;
    const DF df;
    const auto look = [&](hn::Vec<D8> v, std::size_t c, std::size_t at) {
        const auto index = hn::Add(hn::PromoteTo(d32, v), hn::Set(d32, static_cast<std::int32_t>(256 * c)));
        hn::StoreU(hn::GatherIndex(df, tables, index), df, dst + c * planeStride + at);
    };
    x = eachPlaneBlock(D8(), src, pixels, cn, look);
#endif
    for (; x < pixels; ++x)
        for (std::size_t c = 0; c < cn; ++c) dst[c * planeStride + x] = tables[256 * c + src[x * cn + c]];
}

#if HWY_TARGET != HWY_SCALAR
template <class DF, class V>
HWY_INLINE V runSteps(DF df, const FloatProgram& program, V x, const hn::Vec<DF>* constants) {
    for (int s = 0; s < program.count; ++s) {
        const auto k = constants[s];
        switch (program.steps[s].op) {
            case FloatProgram::Op::Sub:
                x = hn::Sub(x, k);
                break;
            case FloatProgram::Op::Mul:
                x = hn::Mul(x, k);
                break;
            case FloatProgram::Op::Div:
                x = hn::Div(x, k);
                break;
        }
    }
    (void)df;
    return x;
}
#endif

void RunFloatProgram(const std::uint8_t* HWY_RESTRICT src, std::size_t pixels, int channels,
                     const FloatProgram& program, float* HWY_RESTRICT dst) {
    const auto cn = static_cast<std::size_t>(channels);
    const std::size_t n = pixels * cn;
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const D32 d32;
    const DF df;
    const std::size_t N = hn::Lanes(d32);
    constexpr std::size_t kMaxLanes = 64;
    if (N <= kMaxLanes) {
        // constants[r][s]: step s's constants lane by lane when a vector starts at channel r.
        hn::Vec<DF> constants[4][FloatProgram::kMaxSteps];
        HWY_ALIGN float lanes[kMaxLanes];
        for (std::size_t r = 0; r < cn; ++r)
            for (int s = 0; s < program.count; ++s) {
                for (std::size_t j = 0; j < N; ++j) lanes[j] = program.steps[s].c[(r + j) % cn];
                constants[r][s] = hn::Load(df, lanes);
            }
        std::size_t r = 0;
        for (; i + N <= n; i += N) {
            const auto x = hn::ConvertTo(df, hn::PromoteTo(d32, hn::LoadU(D8(), src + i)));
            hn::StoreU(runSteps(df, program, x, constants[r]), df, dst + i);
            r = (r + N) % cn;
        }
    }
#endif
    for (; i < n; ++i) dst[i] = floatProgramValue(program, static_cast<int>(i % cn), src[i]);
}

void RunFloatProgramPlanar(const std::uint8_t* HWY_RESTRICT src, std::size_t pixels, int channels,
                           const FloatProgram& program, float* HWY_RESTRICT dst, std::size_t planeStride) {
    const auto cn = static_cast<std::size_t>(channels);
    std::size_t x = 0;
#if HWY_TARGET != HWY_SCALAR
    const D32 d32;
    const DF df;
    hn::Vec<DF> constants[4][FloatProgram::kMaxSteps];
    for (std::size_t c = 0; c < cn; ++c)
        for (int s = 0; s < program.count; ++s) constants[c][s] = hn::Set(df, program.steps[s].c[c]);
    const auto plane = [&](hn::Vec<D8> v, std::size_t c, std::size_t at) {
        const auto f = hn::ConvertTo(df, hn::PromoteTo(d32, v));
        hn::StoreU(runSteps(df, program, f, constants[c]), df, dst + c * planeStride + at);
    };
    x = eachPlaneBlock(D8(), src, pixels, cn, plane);
#endif
    for (; x < pixels; ++x)
        for (std::size_t c = 0; c < cn; ++c)
            dst[c * planeStride + x] = floatProgramValue(program, static_cast<int>(c), src[x * cn + c]);
}

const char* TailTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(LookUpFloats);
HWY_EXPORT(LookUpFloatsPlanar);
HWY_EXPORT(TailTarget);
HWY_EXPORT(RunFloatProgram);
HWY_EXPORT(RunFloatProgramPlanar);

void runFloatProgram(const std::uint8_t* src, std::size_t pixels, int channels, const FloatProgram& program,
                     float* dst) {
    HWY_DYNAMIC_DISPATCH(RunFloatProgram)(src, pixels, channels, program, dst);
}
void runFloatProgramPlanar(const std::uint8_t* src, std::size_t pixels, int channels,
                           const FloatProgram& program, float* dst, std::size_t planeStride) {
    HWY_DYNAMIC_DISPATCH(RunFloatProgramPlanar)(src, pixels, channels, program, dst, planeStride);
}

void lookUpFloats(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables,
                  float* dst) {
    HWY_DYNAMIC_DISPATCH(LookUpFloats)(src, pixels, channels, tables, dst);
}
void lookUpFloatsPlanar(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables,
                        float* dst, std::size_t planeStride) {
    HWY_DYNAMIC_DISPATCH(LookUpFloatsPlanar)(src, pixels, channels, tables, dst, planeStride);
}
const char* tailTarget() {
    return HWY_DYNAMIC_DISPATCH(TailTarget)();
}

}  // namespace auglab::cpu
#endif
