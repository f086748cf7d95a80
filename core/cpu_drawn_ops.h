#pragma once
// CPU kernels of the steps that draw shapes the way the Python libraries draw them with OpenCV
// (core/raster.h): RandomFog's particles (FogStep), RandomShadow's polygons (ShadowStep), RandomRain's
// drops (RainStep) and RandomSunFlare's discs and flare layer (FlareStep). applyPixelStep
// (cpu_pixel_ops.cpp) dispatches to them; colour maths touches RGB only and leaves alpha as it is.

#include <array>
#include <cstdint>

#include "cpu_backend.h"
#include "plan.h"

namespace auglab::cpu_drawn {

/// OpenCV's BORDER_REFLECT_101 index of p in 0..len-1 (any distance outside).
inline int reflect101(int p, int len) {
    if (len == 1) return 0;
    while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
    return p;
}

/// A fog particle's blend of each value with white, as cv2.addWeighted computes it (FogStep).
std::array<std::uint8_t, 256> fogTable(const FogStep& s);
/// A shadow's darkening of each value: the library's float64 product, truncated (ShadowStep).
std::array<std::uint8_t, 256> shadowTable(double darkness);

void applyFog(Image& img, const FogStep& s, const RowLoop& loop);
void applyShadow(Image& img, const ShadowStep& s, const RowLoop& loop);
void applyRain(Image& img, const RainStep& s, const RowLoop& loop);
void applyOverlayFlare(Image& img, const FlareStep& s, const RowLoop& loop);
void applyPhysicsFlare(Image& img, const FlareStep& s, const RowLoop& loop);

}  // namespace auglab::cpu_drawn
