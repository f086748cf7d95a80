#pragma once
// The colour kernels of the CPU backend on rows of 8-bit pixels (3 or 4 channels, alpha kept), with
// Google Highway's run-time dispatch: 16 pixels a step on AVX-512, 8 on AVX2, 4 on SSE4, and the
// scalar definitions (core/colour.h, core/plan.h) on what is left of a row and on CPUs without
// those. Every kernel gives the scalar definition's bytes exactly; the float ones (gray blend, HSV)
// run vectorised only where the CPU fuses multiply-adds as the definitions do (AVX2 and AVX-512),
// and as the scalar definitions elsewhere. tests/test_cpu_kernels.cpp compares each with its
// definition on every colour.

#include <array>
#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// R, G and B become cv2's RGB2GRAY of the pixel (grayOf), read from src, written to dst (alpha
/// copied; src may be dst).
void grayPixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels);

/// Each colour blended with the pixel's gray: grayBlendOf(alpha, beta).
void grayBlendPixels(std::uint8_t* p, std::size_t pixels, int channels, float alpha, float beta);

/// cv2.transform's 8-bit fixed point with coefficients m in 1/1024 (channelMatrixOf), from src to
/// dst (alpha copied; src may be dst).
void channelMatrixPixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels,
                         const std::array<std::int32_t, 9>& m);

/// The sum of n bytes.
std::uint64_t sumBytes(const std::uint8_t* p, std::size_t n);

/// The HSV tables of a hue/saturation/value shift, widened: rgbToHsv8, each of H, S and V through
/// its table, hsvToRgb8.
struct HsvTables32 {
    alignas(64) std::array<std::int32_t, 256> hue, sat, val;
    /// What analyseHsvTables found (the tables gathered where it found nothing): hue[h] ==
    /// (h + hueRotation) % 180 for every hue h < 180 that rgbToHsv8 makes; sat[x] and val[x] ==
    /// clamp(x + satAdd / valAdd, 0, 255) for every x (but x = 0 when satKeepsZero / valKeepsZero:
    /// it stays 0, as the saturation table keeps gray gray). The kernels then compute those in
    /// registers instead of gathering them: the same values.
    int hueRotation = -1, satAdd = kNoAdd, valAdd = kNoAdd;
    bool satKeepsZero = false, valKeepsZero = false;
    static constexpr int kNoAdd = 1 << 20;
};
/// Fills in the forms of `t`'s tables (HsvTables32's hueRotation, satAdd and valAdd).
void analyseHsvTables(HsvTables32& t);
void hsvPixels(std::uint8_t* p, std::size_t pixels, int channels, const HsvTables32& tables);

/// p[i] = (wa * p[i] + (65536 - wa) * q[i] + 32768) >> 16 over n bytes (a mixing blend).
void blendBytes(std::uint8_t* p, const std::uint8_t* q, std::size_t n, std::uint32_t wa);

/// dst[i] = float(src[i]) over n bytes.
void bytesToFloats(const std::uint8_t* src, float* dst, std::size_t n);

/// dst[i] = src[i] rounded to nearest even and saturated to 0..255, over n floats (a blur's output).
void floatsToBytes(const float* src, std::uint8_t* dst, std::size_t n);

/// dst[i] = k[0] * rows[0][i] + k[1] * rows[1][i] + ... over `taps` rows, summed in that order, each
/// product rounded before its addition (no fused multiply-add): a separable blur's pass.
void weightedSum(const float* const* rows, const float* k, int taps, float* dst, std::size_t n);

/// cv2.filter2D's sum of an output byte: for t in order, sum = fma(k[t], float(rows[t][i]), sum) from
/// 0, rounded to nearest even and saturated, into out[i], over n bytes. False (nothing written)
/// where the CPU has no fused multiply-add in vectors: the caller then runs its scalar loop.
bool fusedConvolveBytes(const std::uint8_t* const* rows, const float* k, int taps, std::uint8_t* out, std::size_t n);

/// The SIMD target these kernels run on here ("AVX3", "AVX2", ...), for benchmarks' reports.
const char* colourTarget();

}  // namespace auglab::cpu
