// Highway's dynamic dispatch: this file is compiled once per SIMD target (foreach_target.h includes
// it again for each), and HWY_DYNAMIC_DISPATCH calls the best one the CPU runs. The vectors are
// 128-bit on every target: these kernels only move bytes and are bound by memory, not by width, and
// a 128-bit byte shuffle (TableLookupBytes: pshufb) moves whole pixels within one load and store.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/pixel_rows.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>

#include "cpu/pixel_rows.h"

HWY_BEFORE_NAMESPACE();
namespace auglab::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // the one-lane target has no 128-bit vectors: it takes the tails' loops

// The 16 bytes of v in the opposite order.
template <class D>
HWY_INLINE hn::Vec<D> reverseBytes(D d, hn::Vec<D> v) {
    alignas(16) static constexpr std::uint8_t kReverse[16] = {15, 14, 13, 12, 11, 10, 9, 8,
                                                              7,  6,  5,  4,  3,  2,  1, 0};
    return hn::TableLookupBytes(v, hn::Load(d, kReverse));
}

#endif

void ReversePixels3(const std::uint8_t* HWY_RESTRICT src, std::uint8_t* HWY_RESTRICT dst, std::size_t n) {
    std::size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
    // Five pixels a vector, the source read forwards (what the hardware prefetches best: a row read
    // backwards from memory took four times as long): 16 bytes loaded at source pixel k, whose first
    // 15 are pixels k .. k + 4; put in the opposite pixel order behind one spare byte, and stored
    // one byte before output pixel n - k - 5, so the spare byte lands on the last byte of the pixel
    // the next step writes. Both stay inside the row: k + 6 <= n.
    const hn::Full128<std::uint8_t> d;
    alignas(16) static constexpr std::uint8_t kReverse3[16] = {0, 12, 13, 14, 9, 10, 11, 6,
                                                               7, 8,  3,  4,  5, 0,  1,  2};
    const auto table = hn::Load(d, kReverse3);
    for (; k + 6 <= n; k += 5)
        hn::StoreU(hn::TableLookupBytes(hn::LoadU(d, src + 3 * k), table), d, dst + 3 * (n - k - 5) - 1);
#endif
    for (; k < n; ++k) std::memcpy(dst + 3 * (n - 1 - k), src + 3 * k, 3);
}

void ReversePixels4(const std::uint8_t* HWY_RESTRICT src, std::uint8_t* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::Full128<std::uint8_t> d;
    alignas(16) static constexpr std::uint8_t kReverse4[16] = {12, 13, 14, 15, 8, 9, 10, 11,
                                                               4,  5,  6,  7,  0, 1, 2,  3};
    const auto table = hn::Load(d, kReverse4);
    for (; i + 4 <= n; i += 4)  // source pixels i .. i + 3, read forwards, to output n - i - 4 .. n - i - 1
        hn::StoreU(hn::TableLookupBytes(hn::LoadU(d, src + 4 * i), table), d, dst + 4 * (n - i - 4));
#endif
    for (; i < n; ++i) std::memcpy(dst + 4 * (n - 1 - i), src + 4 * i, 4);
}

void ReversePixels1(const std::uint8_t* HWY_RESTRICT src, std::uint8_t* HWY_RESTRICT dst, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::Full128<std::uint8_t> d;
    constexpr std::size_t kLanes = 16;
    for (; i + kLanes <= n; i += kLanes) hn::StoreU(reverseBytes(d, hn::LoadU(d, src + i)), d, dst + (n - i - kLanes));
#endif
    for (; i < n; ++i) dst[n - 1 - i] = src[i];
}

void AddSaturated(std::uint8_t* HWY_RESTRICT p, const std::uint8_t* HWY_RESTRICT q, std::size_t n) {
    std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::Full128<std::uint8_t> d;
    constexpr std::size_t kLanes = 16;
    for (; i + kLanes <= n; i += kLanes)
        hn::StoreU(hn::SaturatedAdd(hn::LoadU(d, p + i), hn::LoadU(d, q + i)), d, p + i);
#endif
    for (; i < n; ++i) p[i] = static_cast<std::uint8_t>(p[i] + q[i] > 255 ? 255 : p[i] + q[i]);
}

const char* Target() {
    return hwy::TargetName(HWY_TARGET);
}

}  // namespace HWY_NAMESPACE
}  // namespace auglab::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AUGLAB_VBMI_REVERSE 1
#endif

namespace auglab::cpu {

#ifdef AUGLAB_VBMI_REVERSE
namespace {

// RGB pixels reversed 21 at a time (63 bytes) with AVX-512 VBMI's byte permute across the whole
// vector (Highway 1.0.3 has none): one masked load, one vpermb, one masked store a step, nothing
// read or written outside the 63 bytes; the last pixels by the same steps on fewer bytes.
#define AUGLAB_VBMI_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2")))

// The permute of `pixels` (up to 21) RGB pixels: output byte i from source pixel pixels - 1 - i / 3.
struct ReverseIndex3 {
    alignas(64) std::uint8_t idx[64] = {};
};
constexpr ReverseIndex3 reverseIndexOf(std::size_t pixels) {
    ReverseIndex3 out;
    for (std::size_t i = 0; i < 3 * pixels; ++i) out.idx[i] = static_cast<std::uint8_t>(3 * (pixels - 1 - i / 3) + i % 3);
    return out;
}
constexpr ReverseIndex3 kReverseFull = reverseIndexOf(21);

AUGLAB_VBMI_TARGET __m512i reverseIndex3(std::size_t pixels) {
    if (pixels == 21) return _mm512_load_si512(kReverseFull.idx);
    const ReverseIndex3 rest = reverseIndexOf(pixels);
    return _mm512_load_si512(rest.idx);
}

AUGLAB_VBMI_TARGET void reversePixels3Vbmi(const std::uint8_t* src, std::uint8_t* dst, std::size_t n) {
    const __m512i kFull = reverseIndex3(21);
    const __mmask64 full = _bzhi_u64(~0ULL, 63);
    std::size_t k = 0;
    for (; k + 21 <= n; k += 21)
        _mm512_mask_storeu_epi8(dst + 3 * (n - k - 21), full,
                                _mm512_permutexvar_epi8(kFull, _mm512_maskz_loadu_epi8(full, src + 3 * k)));
    if (k < n) {
        const std::size_t rest = n - k;
        const __mmask64 m = _bzhi_u64(~0ULL, static_cast<unsigned>(3 * rest));
        _mm512_mask_storeu_epi8(dst, m, _mm512_permutexvar_epi8(reverseIndex3(rest), _mm512_maskz_loadu_epi8(m, src + 3 * k)));
    }
}

bool hasVbmiReverse() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("bmi2");
    return yes;
}

}  // namespace
#endif

HWY_EXPORT(ReversePixels1);
HWY_EXPORT(ReversePixels3);
HWY_EXPORT(ReversePixels4);
HWY_EXPORT(AddSaturated);
HWY_EXPORT(Target);

bool reversePixelsAvoidVbmi = false;

void reversePixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, int channels) {
    switch (channels) {
        case 1:
            return HWY_DYNAMIC_DISPATCH(ReversePixels1)(src, dst, n);
        case 3:
#ifdef AUGLAB_VBMI_REVERSE
            if (hasVbmiReverse() && !reversePixelsAvoidVbmi) return reversePixels3Vbmi(src, dst, n);
#endif
            return HWY_DYNAMIC_DISPATCH(ReversePixels3)(src, dst, n);
        case 4:
            return HWY_DYNAMIC_DISPATCH(ReversePixels4)(src, dst, n);
        default:
            for (std::size_t i = 0; i < n; ++i)
                std::memcpy(dst + i * std::size_t(channels), src + (n - 1 - i) * std::size_t(channels),
                            std::size_t(channels));
    }
}

void addSaturated(std::uint8_t* p, const std::uint8_t* q, std::size_t n) {
    HWY_DYNAMIC_DISPATCH(AddSaturated)(p, q, n);
}

const char* pixelRowsTarget() {
    return HWY_DYNAMIC_DISPATCH(Target)();
}

}  // namespace auglab::cpu
#endif
