#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Output = f(key, counter) with no state, so any draw can be computed
// independently: sample i of seed s never depends on thread count, grid size or backend.

#include <array>
#include <cmath>
#include <cstdint>

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

/// Two standard normal values from two words (Box–Muller). Float maths, written so that a GLSL
/// or CUDA kernel can do the same operations; `u1` is kept away from 0 by the +1 offset.
inline void boxMuller(std::uint32_t w0, std::uint32_t w1, float& n0, float& n1) {
    const float u1 = (static_cast<float>(w0 >> 8) + 1.0f) * (1.0f / 16777216.0f);  // (0, 1]
    const float u2 = static_cast<float>(w1 >> 8) * (1.0f / 16777216.0f);           // [0, 1)
    const float r = std::sqrt(-2.0f * std::log(u1));
    const float t = 6.2831853071795864769f * u2;
    n0 = r * std::cos(t);
    n1 = r * std::sin(t);
}

/// boxMuller's first value alone (n0), by the same operations: for callers that need one.
inline float boxMullerFirst(std::uint32_t w0, std::uint32_t w1) {
    const float u1 = (static_cast<float>(w0 >> 8) + 1.0f) * (1.0f / 16777216.0f);
    const float u2 = static_cast<float>(w1 >> 8) * (1.0f / 16777216.0f);
    const float r = std::sqrt(-2.0f * std::log(u1));
    const float t = 6.2831853071795864769f * u2;
    return r * std::cos(t);
}

}  // namespace auglab
