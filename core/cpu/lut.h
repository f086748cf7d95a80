#pragma once
// 256-entry table lookups on 8-bit pixels (every LUT step: brightness/contrast, gamma, levels,
// invert, solarize, posterize, channel shifts and dropout, tone curves), 64 bytes per instruction
// where the CPU has AVX-512 VBMI (vpermi2b: two 128-entry halves, chosen by each byte's top bit),
// a scalar loop elsewhere; the same bytes either way.

#include <array>
#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

using Table = std::array<std::uint8_t, 256>;

/// dst[i] = table[src[i]] for n bytes; src may be dst.
void lookup(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, const Table& table);

/// `pixels` pixels of `channels` (3 or 4) bytes: channel c (R, G, B) through tables[c], alpha copied;
/// src may be dst.
void lookupChannels(const std::uint8_t* src, std::uint8_t* dst, std::size_t pixels, int channels,
                    const std::array<Table, 3>& tables);

/// The path lookup takes here: "avx512vbmi" or "scalar".
const char* lookupTarget();

}  // namespace auglab::cpu
