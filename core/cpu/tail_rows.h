#pragma once
// Rows of 8-bit pixels looked up into float32 through one 256-entry table per channel (the training
// tail, core/training_tail.cpp), with Google Highway's run-time dispatch: the bytes widened to
// 32-bit indices and gathered, 16 values a step on AVX-512; the scalar loop elsewhere. Lookups
// copy table entries, so every target gives the same values.

#include <cstddef>
#include <cstdint>

namespace auglab::cpu {

/// dst[x * channels + c] = tables[c * 256 + src[x * channels + c]] for `pixels` pixels.
void lookUpFloats(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables, float* dst);

/// The same values written to planes: dst[c * planeStride + x].
void lookUpFloatsPlanar(const std::uint8_t* src, std::size_t pixels, int channels, const float* tables,
                        float* dst, std::size_t planeStride);

/// The SIMD target the lookups run on ("AVX3", "AVX2", ... "SCALAR").
const char* tailTarget();

}  // namespace auglab::cpu
