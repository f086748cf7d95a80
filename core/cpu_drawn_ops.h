#pragma once
// CPU kernels of the steps that draw shapes the way the Python libraries draw them with OpenCV
// (core/raster.h): RandomFog's particles (FogStep), RandomShadow's polygons (ShadowStep), RandomRain's
// drops (RainStep) and RandomSunFlare's discs and flare layer (FlareStep). applyPixelStep
// (cpu_pixel_ops.cpp) dispatches to them; colour maths touches RGB only and leaves alpha as it is.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

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

/// cv2.blur's 8-bit division of a k x k window's sum: up to 256 pixels in the window OpenCV's fixed
/// point with 23 fraction bits, (sum + delta) * scale >> 23 (halves round up; for a power-of-two
/// area a quarter does too), beyond a float32 product rounded to nearest even.
class BoxDivider {
public:
    explicit BoxDivider(int k);
    std::uint8_t operator()(std::uint32_t sum) const {
        return area_ <= 256
                   ? static_cast<std::uint8_t>(((sum + delta_) * scale_) >> 23)
                   : static_cast<std::uint8_t>(std::min(255.0f, std::nearbyint(float(sum) * inverse_)));
    }

    /// The fixed point's terms, used when fixedPoint() (area <= 256): scale < 2^24, delta <= 129.
    bool fixedPoint() const { return area_ <= 256; }
    std::uint32_t scale() const { return static_cast<std::uint32_t>(scale_); }
    std::uint32_t delta() const { return static_cast<std::uint32_t>(delta_); }

private:
    int area_;
    std::uint64_t scale_ = 1, delta_ = 0;
    float inverse_;
};
/// cv2.blur(ksize (k, k)) of 8-bit pixels in place: each value the mean of its k x k window (anchor
/// at the centre, border reflect_101) divided as BoxDivider does; `channels` bytes a pixel, rows
/// `stride` bytes apart, the 4th channel (alpha) kept. Exact integer sums, 16-bit SIMD lanes up to
/// k = 15 (core/cpu/box_rows.h).
void boxBlurBytes(std::uint8_t* data, int w, int h, int channels, std::size_t stride, int k, const RowLoop& loop);
/// cv2.multiply of each value by RandomRain's brightness, rounded to nearest (RainStep).
std::array<std::uint8_t, 256> rainDarkerTable(double brightness);
/// Each pixel of a RainStep's drops, as cv2.polylines draws them: `visit(y, x0, x1)` per run (a
/// pixel may be visited more than once where drops cross).
void rainDrops(const RainStep& s, int w, int h, const std::function<void(int, int, int)>& visit);

/// RandomSunFlare physics_based's shapes before its blurs, painted in order (the sun's disc, its four
/// two-pixel spikes, the circles): each pixel's key, 0 where none paints it, else 1 + the last shape
/// that does; `colours` per key (black for 0).
struct FlareLayerKeys {
    std::vector<std::uint32_t> keys;  ///< w * h, row-major
    std::vector<Rgb> colours;
};
FlareLayerKeys physicsFlareKeys(const FlareStep& s, int w, int h);
/// cv2.GaussianBlur's kernel for float data and `sigma`: round(8 sigma + 1) | 1 taps, OpenCV's float64
/// taps normalised and made float32 (held as doubles, the sums being float64 here).
std::vector<double> gaussianFloatTaps(double sigma);
/// physics_based's fade radius, 0.7 x max(w, h): a pixel's layer times 1 - min(distance / fade, 1).
inline double physicsFlareFade(int w, int h) {
    return std::max(w, h) * 0.7;
}

void applyFog(Image& img, const FogStep& s, const RowLoop& loop);
void applyShadow(Image& img, const ShadowStep& s, const RowLoop& loop);
void applyRain(Image& img, const RainStep& s, const RowLoop& loop);
void applyOverlayFlare(Image& img, const FlareStep& s, const RowLoop& loop);
void applyPhysicsFlare(Image& img, const FlareStep& s, const RowLoop& loop);

}  // namespace auglab::cpu_drawn
