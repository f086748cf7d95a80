#pragma once
// The fixed-point positions cv2.remap makes of float32 maps (RemapInvoker: cvRound of each value
// times 2^bits, the whole part saturated to a short), for PlanBuilder::remapStage: grid and optical
// distortion, elastic and piecewise maps. Vectorised with Google Highway's run-time dispatch on x86
// (16 values a step on AVX-512), the scalar definition below elsewhere and for the tails: the same
// integers on every target.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace auglab::cpu {

/// cv2.remap's position of map value v: r = cvRound(v * 2^bits) (half to even; NaN gives INT_MIN,
/// values past int's range its ends); at bits 0 (nearest) r saturated to a short, otherwise r's
/// whole part (r >> bits) saturated to a short and its fraction (the low bits) kept below it.
inline int remapPosition(float v, int bits) {
    const float s = v * static_cast<float>(1 << bits);  // exact: a power of two
    long r = INT_MIN;
    if (!std::isnan(s)) {
        const float c = std::clamp(s, -2147483648.0f, 2147483520.0f);
#if defined(__SSE2__)
        r = _mm_cvtss_si32(_mm_set_ss(c));  // lrint in the default rounding mode, without the call
#else
        r = std::lrint(c);
#endif
    }
    if (bits == 0) return static_cast<int>(std::clamp<long>(r, -32768, 32767));
    const long whole = std::clamp<long>(r >> bits, -32768, 32767);
    return static_cast<int>(whole * (1L << bits) + (r & ((1L << bits) - 1)));
}

/// xy[2i] = remapPosition(mx[i], bits), xy[2i + 1] = remapPosition(my[i], bits) for i < n.
void remapPositions(const float* mx, const float* my, std::size_t n, int bits, int* xy);

}  // namespace auglab::cpu
