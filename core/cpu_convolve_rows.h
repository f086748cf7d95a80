#pragma once
// The body of ConvolveStep's CPU kernel (core/plan.h), included by cpu_pixel_ops.cpp (baseline
// x86-64: std::fma is a library call) and cpu_convolve_fma.cpp (compiled for AVX2 and FMA, where
// the same loop becomes vector fused multiply-adds). Output row y: for each non-zero tap in
// row-major order, every value of the row gets fma(weight, source, sum), so each value sees its taps
// in cv2.filter2D's order whatever the vector width.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace auglab::convolve_rows {

struct Tap {
    int dx, dy;
    float weight;
};

/// Rows [y0, y1) of the output. `padded(y)` is source row y with r pixels of reflect_101 border on
/// each side (row length (w + 2r) * cn bytes); `acc` holds w * cn floats; the RGB values are written
/// to `out(y)` rounded to nearest even and clipped (alpha left as it is).
template <class PaddedRow, class OutRow>
inline void rows(const std::vector<Tap>& taps, int w, int h, int cn, int r, int y0, int y1, PaddedRow padded,
                 OutRow out, float* acc, int (*reflect)(int, int)) {
    const std::size_t n = static_cast<std::size_t>(w) * cn;
    for (int y = y0; y < y1; ++y) {
        std::fill(acc, acc + n, 0.0f);
        for (const Tap& t : taps) {
            const std::uint8_t* s = padded(reflect(y + t.dy, h)) + static_cast<std::size_t>(t.dx + r) * cn;
            const float k = t.weight;
            for (std::size_t i = 0; i < n; ++i) acc[i] = std::fma(k, static_cast<float>(s[i]), acc[i]);
        }
        std::uint8_t* o = out(y);
        for (std::size_t i = 0; i < n; ++i) {
            if (cn == 4 && i % 4 == 3) continue;  // alpha is not a colour
            o[i] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(std::nearbyint(acc[i])), 0, 255));
        }
    }
}

}  // namespace auglab::convolve_rows
