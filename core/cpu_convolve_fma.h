#pragma once
// ConvolveStep's CPU rows built for AVX2 and FMA (cpu_convolve_fma.cpp).

#include <cstdint>
#include <functional>
#include <vector>

#include "cpu_convolve_rows.h"

namespace auglab {

/// Whether this CPU has AVX2 and FMA (convolveRowsFma may run).
bool cpuHasFma();
/// convolve_rows::rows, compiled for AVX2 and FMA.
void convolveRowsFma(const std::vector<convolve_rows::Tap>& taps, int w, int h, int cn, int r, int y0, int y1,
                     const std::function<const std::uint8_t*(int)>& padded,
                     const std::function<std::uint8_t*(int)>& out, float* acc, int (*reflect)(int, int));

}  // namespace auglab
