// ConvolveStep's CPU rows compiled for AVX2 and FMA (chosen at run time by cpuHasFma, so the
// binaries still run on x86-64 machines without them): cpu_convolve_rows.h's loop, vectorised.

#include "cpu_convolve_fma.h"

#include "cpu_convolve_rows.h"

namespace auglab {

#if defined(__x86_64__) || defined(__i386__)
bool cpuHasFma() {
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return has;
}
#else
bool cpuHasFma() {
    return false;
}
#endif

void convolveRowsFma(const std::vector<convolve_rows::Tap>& taps, int w, int h, int cn, int r, int y0, int y1,
                     const std::function<const std::uint8_t*(int)>& padded,
                     const std::function<std::uint8_t*(int)>& out, float* acc, int (*reflect)(int, int)) {
    convolve_rows::rows(taps, w, h, cn, r, y0, y1, padded, out, acc, reflect);
}

}  // namespace auglab
