#pragma once
// The engine's image: 8-bit RGB or RGBA, row-major, with an explicit stride in bytes.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace auglab {

/// An owning 8-bit image with 3 (RGB) or 4 (RGBA) interleaved channels. Rows may be padded:
/// `stride` is the distance between rows in bytes and is at least width * channels.
/// Colour maths touches RGB only; alpha travels with the geometry and is otherwise untouched.
struct Image {
    int width = 0;
    int height = 0;
    int channels = 3;
    std::size_t stride = 0;
    std::vector<std::uint8_t> pixels;

    Image() = default;
    /// Allocates a tightly packed image with every byte set to `value` (zero by default).
    Image(int w, int h, int c, std::uint8_t value = 0);

    bool empty() const { return width <= 0 || height <= 0; }
    std::uint8_t* row(int y) { return pixels.data() + static_cast<std::size_t>(y) * stride; }
    const std::uint8_t* row(int y) const { return pixels.data() + static_cast<std::size_t>(y) * stride; }
    std::uint8_t* at(int x, int y) { return row(y) + static_cast<std::size_t>(x) * channels; }
    const std::uint8_t* at(int x, int y) const { return row(y) + static_cast<std::size_t>(x) * channels; }
    bool hasAlpha() const { return channels == 4; }
};

/// True when both images have the same size, channel count and pixel values (stride ignored).
bool samePixels(const Image& a, const Image& b);

/// Downscales by exact area averaging to (w, h); w <= src.width and h <= src.height.
/// Used to build the pre-filtered source levels tiles are rendered from.
Image resizeArea(const Image& src, int w, int h);

}  // namespace auglab
