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

// The most lanes a vector of 32-bit values has on the targets built (AVX-512: 16).
constexpr std::size_t kMaxLanes = 64;

// For interleaved values, whose channel cycles along a vector: out[r] holds in lane j
// value((r + j) % cn), the lanes of a vector that starts at a value of channel r.
template <class D, class Value>
HWY_INLINE void byChannel(D d, std::size_t cn, const Value& value, hn::Vec<D>* out) {
    HWY_ALIGN hn::TFromD<D> lanes[kMaxLanes];
    for (std::size_t r = 0; r < cn; ++r) {
        for (std::size_t j = 0; j < hn::Lanes(d); ++j) lanes[j] = value((r + j) % cn);
        out[r] = hn::Load(d, lanes);
    }
}

// The n interleaved bytes of `src` N at a time, widened to 32-bit lanes: each(v, r, i) for bytes
// i .. i + N - 1, r the channel of byte i. Returns the first byte left for the scalar code.
template <class Each>
HWY_INLINE std::size_t eachInterleavedBlock(const std::uint8_t* HWY_RESTRICT src, std::size_t n,
                                            std::size_t cn, const Each& each) {
    const D32 d32;
    const std::size_t N = hn::Lanes(d32);
    if (N > kMaxLanes) return 0;  // byChannel's lanes would not hold a vector
    std::size_t i = 0, r = 0;
    for (; i + N <= n; i += N, r = (r + N) % cn) each(hn::PromoteTo(d32, hn::LoadU(D8(), src + i)), r, i);
    return i;
}

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
    hn::Vec<D32> offsets[4];  // each lane's table
    byChannel(
        d32, cn, [](std::size_t c) { return static_cast<std::int32_t>(256 * c); }, offsets);
    i = eachInterleavedBlock(src, n, cn, [&](hn::Vec<D32> v, std::size_t r, std::size_t at) {
        hn::StoreU(hn::GatherIndex(df, tables, hn::Add(v, offsets[r])), df, dst + at);
    });
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
    const DF df;
    // constants[r][s]: step s's constants lane by lane when a vector starts at channel r.
    hn::Vec<DF> constants[4][FloatProgram::kMaxSteps];
    for (int s = 0; s < program.count; ++s) {
        hn::Vec<DF> step[4];
        byChannel(
            df, cn, [&](std::size_t c) { return program.steps[s].c[c]; }, step);
        for (std::size_t r = 0; r < cn; ++r) constants[r][s] = step[r];
    }
    i = eachInterleavedBlock(src, n, cn, [&](hn::Vec<D32> v, std::size_t r, std::size_t at) {
        hn::StoreU(runSteps(df, program, hn::ConvertTo(df, v), constants[r]), df, dst + at);
    });
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
