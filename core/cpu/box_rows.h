#pragma once
// cv2.blur's 8-bit box filter on rows, with Google Highway's run-time dispatch: window sums in
// 16-bit lanes (exact while a window's sum fits, k <= 15), OpenCV's fixed-point division of them.
// The orchestration (rows, borders, threads) is boxBlurBytes in core/cpu_drawn_ops.h; these are its
// row kernels. tests/test_cpu_kernels.cpp checks each on every SIMD target against its definition.

#include <cstddef>
#include <cstdint>
#include <optional>

namespace auglab::cpu {

/// The largest window side whose sums of 8-bit values fit 16 bits (15 * 15 * 255 < 65536).
constexpr int kBoxMaxK16 = 15;

/// dst[i] = in[i] for n values.
void widenBytes16(const std::uint8_t* in, std::uint16_t* dst, std::size_t n);

/// acc[i] += in[i] for n values.
void add16(std::uint16_t* acc, const std::uint16_t* in, std::size_t n);

/// acc[i] += in[i] - out[i] for n values (a window moves a row on; modulo 2^16, exact while the
/// sums fit).
void slide16(std::uint16_t* acc, const std::uint16_t* in, const std::uint16_t* out, std::size_t n);

/// dst[i] = padded[i] + padded[i + step] + ... + padded[i + (k - 1) step] for n values (a row's
/// window sums, `step` values a pixel).
void windowSums16(const std::uint16_t* padded, std::uint16_t* dst, std::size_t n, int k, int step);

/// A division of 16-bit window sums in 16-bit lanes: (v + add) * mul >> (16 + shift), the high
/// half of the product shifted. boxDivision16 finds one equal to OpenCV's fixed point
/// ((v + delta) * scale >> 23, BoxDivider) for every sum up to maxSum, checking each, or none.
struct BoxDivision16 {
    std::uint16_t add = 0, mul = 0;
    int shift = 0;
    std::uint8_t operator()(std::uint16_t v) const {
        return static_cast<std::uint8_t>(((std::uint32_t(v) + add) * mul) >> (16 + shift));
    }
};
std::optional<BoxDivision16> boxDivision16(std::uint32_t scale, std::uint32_t delta, std::uint32_t maxSum);

/// dst[i] = q(sums[i]) for n values.
void divide16(const std::uint16_t* sums, std::uint8_t* dst, std::size_t n, const BoxDivision16& q);

/// slide16, then dst[i] = q(acc[i]): the window's next row and its output in one pass.
void slideDivide16(std::uint16_t* acc, const std::uint16_t* in, const std::uint16_t* out, std::uint8_t* dst,
                   std::size_t n, const BoxDivision16& q);

/// The SIMD target these kernels run on here ("AVX3", "AVX2", ...).
const char* boxTarget();

}  // namespace auglab::cpu
