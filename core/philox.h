#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Output = f(key, counter) with no state, so any draw can be computed
// independently: sample i of seed s never depends on thread count, grid size or backend.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace auglab {

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

/// Ten rounds of Philox4x32 with the published multipliers and Weyl constants.
constexpr PhiloxCounter philox4x32(PhiloxCounter ctr, PhiloxKey key) {
    constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
    constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
        const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * ctr[0];
        const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * ctr[2];
        const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
        const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
        ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
        key[0] += kW0;
        key[1] += kW1;
    }
    return ctr;
}

constexpr PhiloxKey philoxKey(std::uint64_t seed) {
    return {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
}

/// A double in [0, 1) with 53 random bits from two 32-bit words.
constexpr double uniformFromWords(std::uint32_t a, std::uint32_t b) {
    const std::uint64_t bits = (static_cast<std::uint64_t>(a) << 21) ^ (b >> 11);
    return static_cast<double>(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/// A float in [0, 1) with 24 random bits; used per pixel, where GPU backends compute in float.
constexpr float uniformFloatFromWord(std::uint32_t w) {
    return static_cast<float>(w >> 8) * (1.0f / 16777216.0f);
}

// ---- Gaussian noise's normals ---------------------------------------------------------------
// Box-Muller from two words, in float32 by additions, multiplications and a square root only (each
// rounded on its own: the build keeps the compiler from fusing them), so that every SIMD target
// (core/cpu/noise_rows.cpp), the scalar code here and the CUDA kernels (cuda_pixel.cuh) compute
// the same bits, and the vector kernels need no maths library. log and sin/cos are Cephes'
// single-precision polynomials (Moshier, "Methods and Programs for Mathematical Functions"),
// within a few ulps; the angle is reduced to a quarter turn exactly, in integers.

namespace normal_draw {
/// log(1 + x) - x + x^2 / 2 over x^3, for x in [sqrt(1/2) - 1, sqrt(2) - 1] (Cephes logf).
inline constexpr float kLog[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                                  -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                                  2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
/// ln 2 in two parts: the first exact in a few bits, so e * kLn2Hi is exact (Cephes).
inline constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
/// sin(a) = a + a^3 P(a^2) and cos(a) = 1 - a^2 / 2 + a^4 Q(a^2) for |a| <= pi / 4 (Cephes sinf, cosf).
inline constexpr float kSin[3] = {-1.9515295891E-4f, 8.3321608736E-3f, -1.6666654611E-1f};
inline constexpr float kCos[3] = {2.443315711809948E-5f, -1.388731625493765E-3f, 4.166664568298827E-2f};
/// A turn is 2^24 steps of the angle's word; one step in radians.
inline constexpr float kStep = static_cast<float>(6.283185307179586476925 / 16777216.0);
inline constexpr float kSqrtHalfTimes2 = 1.41421356f;  ///< the mantissa's upper bound after reduction

inline std::uint32_t floatBits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float bitsFloat(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/// log(k / 2^24) for k in 1 .. 2^24: k = m 2^e with m in [sqrt(1/2), sqrt(2)), then the polynomial.
inline float logOfSteps(std::uint32_t k) {
    const std::uint32_t bits = floatBits(static_cast<float>(k));  // exact: k < 2^25
    int e = static_cast<int>(bits >> 23) - 127;
    float m = bitsFloat((bits & 0x7FFFFFu) | 0x3F800000u);  // in [1, 2)
    if (m > kSqrtHalfTimes2) {
        m = m * 0.5f;
        e = e + 1;
    }
    const float x = m - 1.0f;  // exact
    const float z = x * x;
    float p = kLog[0];
    for (int i = 1; i < 9; ++i) p = p * x + kLog[i];
    const float fe = static_cast<float>(e - 24);
    float y = (p * x) * z;
    y = y + fe * kLn2Lo;
    y = y - 0.5f * z;
    return (x + y) + fe * kLn2Hi;
}

/// cos and sin of j steps of a turn (j < 2^24): the nearest quarter turn q in integers, then the
/// polynomials on the rest (|a| <= pi / 4), turned by q.
inline void cosSinOfSteps(std::uint32_t j, float& c, float& s) {
    const std::uint32_t q = (j + (1u << 21)) >> 22;
    const float a = static_cast<float>(static_cast<std::int32_t>(j) - static_cast<std::int32_t>(q << 22)) * kStep;
    const float z = a * a;
    float ps = kSin[0];
    ps = ps * z + kSin[1];
    ps = ps * z + kSin[2];
    const float sa = (ps * z) * a + a;
    float pc = kCos[0];
    pc = pc * z + kCos[1];
    pc = pc * z + kCos[2];
    const float ca = ((pc * z) * z - 0.5f * z) + 1.0f;
    switch (q & 3u) {
        case 0: c = ca, s = sa; break;
        case 1: c = -sa, s = ca; break;
        case 2: c = -ca, s = -sa; break;
        default: c = sa, s = -ca; break;
    }
}
}  // namespace normal_draw

/// Two standard normal values from two words (Box-Muller): u1 = ((w0 >> 8) + 1) / 2^24 in (0, 1],
/// the angle (w1 >> 8) / 2^24 of a turn; r = sqrt(-2 log u1), n0 = r cos, n1 = r sin.
inline void boxMuller(std::uint32_t w0, std::uint32_t w1, float& n0, float& n1) {
    const float r = std::sqrt(-2.0f * normal_draw::logOfSteps((w0 >> 8) + 1));
    float c, s;
    normal_draw::cosSinOfSteps(w1 >> 8, c, s);
    n0 = r * c;
    n1 = r * s;
}

/// boxMuller's first value alone (n0), by the same operations: for callers that need one.
inline float boxMullerFirst(std::uint32_t w0, std::uint32_t w1) {
    float n0, n1;
    boxMuller(w0, w1, n0, n1);
    return n0;
}

}  // namespace auglab
