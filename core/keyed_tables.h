#pragma once
// Shapes drawn on the host, pixel maths on the GPU: for steps whose effect on a pixel depends only on
// which of their shapes cover it (in their order) and on the pixel's own value - RandomShadow's
// polygons (ShadowStep), RandomFog's particles (FogStep), RandomRain's blurred drops (RainStep: the
// key is how many drop pixels its blur window holds), RandomSunFlare's overlay discs (FlareStep without
// physics: the key is the set of discs that cover the pixel) - the GPU backends render a key per pixel
// (the history of the shapes that covered it) and a table per key (R, G and B, 256 bytes each),
// both made here with the CPU's rasteriser (core/raster.h) and tables, so that the device does one
// lookup per channel and the image never leaves it. The CPU backend runs the steps' own kernels;
// the tests compare the two.

#include <cstdint>
#include <vector>

#include "plan.h"

namespace auglab {

struct KeyedTables {
    int width = 0, height = 0;
    std::vector<std::uint32_t> keys;   ///< width * height, row-major
    std::vector<std::uint8_t> tables;  ///< 768 bytes per key: R, G, B; key 0 is the identity
    std::size_t count() const { return tables.size() / 768; }
};

/// Whether `step` is drawn as keyed tables on the GPU backends (ShadowStep, FogStep, RainStep, an
/// overlay FlareStep).
bool drawsKeyedShapes(const PixelStep& step);

/// The step's keys and tables for a width x height image (drawsKeyedShapes steps only).
KeyedTables keyedTables(const PixelStep& step, int width, int height);

}  // namespace auglab
