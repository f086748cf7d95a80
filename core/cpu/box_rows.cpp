// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. Window sums are
// 16-bit lanes (wrapping arithmetic, exact while the sums fit); the division is 32-bit lanes.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/box_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "cpu/box_rows.h"

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void WidenBytes16(const std::uint8_t* HWY_RESTRICT in, std::uint16_t* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const hn::Rebind<std::uint8_t, decltype(d)> d8;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) hn::StoreU(hn::PromoteTo(d, hn::LoadU(d8, in + i)), d, dst + i);
#endif
    for (; i < n; ++i) dst[i] = in[i];
}

void Add16(std::uint16_t* HWY_RESTRICT acc, const std::uint16_t* HWY_RESTRICT in, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::LoadU(d, in + i)), d, acc + i);
#endif
    for (; i < n; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + in[i]);
}

void Slide16(std::uint16_t* HWY_RESTRICT acc, const std::uint16_t* HWY_RESTRICT in,
             const std::uint16_t* HWY_RESTRICT out, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N)
        hn::StoreU(hn::Sub(hn::Add(hn::LoadU(d, acc + i), hn::LoadU(d, in + i)), hn::LoadU(d, out + i)), d,
                   acc + i);
#endif
    for (; i < n; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + in[i] - out[i]);
}

void WindowSums16(const std::uint16_t* HWY_RESTRICT padded, std::uint16_t* HWY_RESTRICT dst, std::size_t n,
                  int k, int step) {
    const std::size_t s = static_cast<std::size_t>(step);
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) {
        auto sum = hn::LoadU(d, padded + i);
        for (int t = 1; t < k; ++t) sum = hn::Add(sum, hn::LoadU(d, padded + i + s * static_cast<std::size_t>(t)));
        hn::StoreU(sum, d, dst + i);
    }
#endif
    for (; i < n; ++i) {
        std::uint16_t sum = 0;
        for (int t = 0; t < k; ++t) sum = static_cast<std::uint16_t>(sum + padded[i + s * static_cast<std::size_t>(t)]);
        dst[i] = sum;
    }
}

#if HWY_TARGET != HWY_SCALAR
// (MulHigh(v + add, mul)) >> shift of 16-bit lanes, narrowed to bytes (the values are below 256).
template <class D>
HWY_INLINE void storeQuotients(D d, hn::Vec<D> sums, const BoxDivision16& q, std::uint8_t* dst) {
    const hn::Rebind<std::int16_t, D> di;
    const hn::Rebind<std::uint8_t, D> d8;
    const auto quotient = hn::ShiftRightSame(hn::MulHigh(hn::Add(sums, hn::Set(d, q.add)), hn::Set(d, q.mul)), q.shift);
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(di, quotient)), d8, dst);
}
#endif

void Divide16(const std::uint16_t* HWY_RESTRICT sums, std::uint8_t* HWY_RESTRICT dst, std::size_t n,
              const BoxDivision16& q) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) storeQuotients(d, hn::LoadU(d, sums + i), q, dst + i);
#endif
    for (; i < n; ++i) dst[i] = q(sums[i]);
}

void SlideDivide16(std::uint16_t* HWY_RESTRICT acc, const std::uint16_t* HWY_RESTRICT in,
                   const std::uint16_t* HWY_RESTRICT out, std::uint8_t* HWY_RESTRICT dst, std::size_t n,
                   const BoxDivision16& q) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<std::uint16_t> d;
    const std::size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) {
        const auto sums = hn::Sub(hn::Add(hn::LoadU(d, acc + i), hn::LoadU(d, in + i)), hn::LoadU(d, out + i));
        hn::StoreU(sums, d, acc + i);
        storeQuotients(d, sums, q, dst + i);
    }
#endif
    for (; i < n; ++i) {
        acc[i] = static_cast<std::uint16_t>(acc[i] + in[i] - out[i]);
        dst[i] = q(acc[i]);
    }
}

const char* BoxTarget() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace auglab::cpu {

HWY_EXPORT(WidenBytes16);
HWY_EXPORT(Add16);
HWY_EXPORT(Slide16);
HWY_EXPORT(WindowSums16);
HWY_EXPORT(Divide16);
HWY_EXPORT(SlideDivide16);
HWY_EXPORT(BoxTarget);

void widenBytes16(const std::uint8_t* in, std::uint16_t* dst, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(WidenBytes16)(in, dst, n);
}

void add16(std::uint16_t* acc, const std::uint16_t* in, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(Add16)(acc, in, n);
}

void slide16(std::uint16_t* acc, const std::uint16_t* in, const std::uint16_t* out, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(Slide16)(acc, in, out, n);
}

void windowSums16(const std::uint16_t* padded, std::uint16_t* dst, std::size_t n, int k, int step) {
    HWY_DYNAMIC_DISPATCH(WindowSums16)(padded, dst, n, k, step);
}

std::optional<BoxDivision16> boxDivision16(std::uint32_t scale, std::uint32_t delta, std::uint32_t maxSum) {
    const auto exact = [&](const BoxDivision16& q) {
        for (std::uint32_t v = 0; v <= maxSum; ++v)
            if (q(static_cast<std::uint16_t>(v)) != static_cast<std::uint8_t>((std::uint64_t(v + delta) * scale) >> 23))
                return false;
        return true;
    };
    if (maxSum + delta + 2 >= 65536) return std::nullopt;
    for (int shift = 0; shift < 8; ++shift)
        for (std::uint32_t mul = (scale >> (7 - shift)); mul <= (scale >> (7 - shift)) + 2 && mul < 65536; ++mul)
            for (std::uint32_t add = delta > 0 ? delta - 1 : 0; add <= delta + 1; ++add) {
                const BoxDivision16 q{static_cast<std::uint16_t>(add), static_cast<std::uint16_t>(mul), shift};
                if (exact(q)) return q;
            }
    return std::nullopt;
}

void divide16(const std::uint16_t* sums, std::uint8_t* dst, std::size_t n, const BoxDivision16& q) {
    HWY_DYNAMIC_DISPATCH(Divide16)(sums, dst, n, q);
}

void slideDivide16(std::uint16_t* acc, const std::uint16_t* in, const std::uint16_t* out, std::uint8_t* dst,
                   std::size_t n, const BoxDivision16& q) {
    HWY_DYNAMIC_DISPATCH(SlideDivide16)(acc, in, out, dst, n, q);
}

const char* boxTarget() {
    return HWY_DYNAMIC_DISPATCH(BoxTarget)();
}

}  // namespace auglab::cpu
#endif
