#pragma once
// Row kernels of the CPU backend that move whole pixels, vectorised with Google Highway and chosen at
// run time for the machine's widest instruction set (SSSE3, AVX2, AVX-512; a portable fallback
// elsewhere): the same bytes on every target, since they only move them.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// dst pixel i = src pixel n - 1 - i, for n pixels of `channels` (1 to 4) bytes; the two may not
/// overlap. A horizontal flip's row. RGB rows take AVX-512 VBMI's whole-vector byte permute where
/// the CPU has it (21 pixels a step), Highway's 128-bit shuffles elsewhere.
void reversePixels(const std::uint8_t* src, std::uint8_t* dst, std::size_t n, int channels);
/// For the tests: true makes reversePixels take Highway's kernels where it would take VBMI's.
extern bool reversePixelsAvoidVbmi;

/// p[i] = min(255, p[i] + q[i]) over n bytes (cv2.add of 8-bit images).
void addSaturated(std::uint8_t* p, const std::uint8_t* q, std::size_t n);

/// The SIMD target reversePixels runs on here ("AVX3", "AVX2", "SSSE3", "EMU128", ...).
const char* pixelRowsTarget();

}  // namespace auglab::cpu
