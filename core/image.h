#pragma once
// The engine's image: 8-bit RGB or RGBA, row-major, with an explicit stride in bytes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace auglab {

/// std::allocator, except that a value-initialised element (resize(), vector(n)) is left
/// uninitialised: an image that a decoder or a warp fills completely is not zeroed first (for a
/// fresh 512x512 output that pass costs as much as the LUT ops after the warp). Filling with a
/// value (assign(n, v)) still fills.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    using value_type = T;
    UninitialisedAllocator() = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
template <typename T, typename U>
bool operator==(const UninitialisedAllocator<T>&, const UninitialisedAllocator<U>&) {
    return true;
}

using PixelBuffer = std::vector<std::uint8_t, UninitialisedAllocator<std::uint8_t>>;

/// An owning 8-bit image with 3 (RGB) or 4 (RGBA) interleaved channels. Rows may be padded:
/// `stride` is the distance between rows in bytes and is at least width * channels.
/// Colour maths touches RGB only; alpha travels with the geometry and is otherwise untouched.
struct Image {
    int width = 0;
    int height = 0;
    int channels = 3;
    std::size_t stride = 0;
    PixelBuffer pixels;

    /// Tag of the constructor that leaves the pixels unset, for images about to be overwritten.
    struct Uninitialised {};

    Image() = default;
    /// Allocates a tightly packed image with every byte set to `value` (zero by default).
    Image(int w, int h, int c, std::uint8_t value = 0);
    /// Allocates a tightly packed image whose pixels the caller writes, every one of them.
    Image(int w, int h, int c, Uninitialised);

    bool empty() const { return width <= 0 || height <= 0; }
    std::uint8_t* row(int y) { return pixels.data() + static_cast<std::size_t>(y) * stride; }
    const std::uint8_t* row(int y) const { return pixels.data() + static_cast<std::size_t>(y) * stride; }
    std::uint8_t* at(int x, int y) { return row(y) + static_cast<std::size_t>(x) * channels; }
    const std::uint8_t* at(int x, int y) const { return row(y) + static_cast<std::size_t>(x) * channels; }
    bool hasAlpha() const { return channels == 4; }
};

/// A rectangle of an image's pixels: columns [x, x + width), rows [y, y + height).
struct PixelRect {
    int x = 0, y = 0, width = 0, height = 0;
    bool empty() const { return width <= 0 || height <= 0; }
    bool contains(const PixelRect& o) const {
        return o.x >= x && o.y >= y && o.x + o.width <= x + width && o.y + o.height <= y + height;
    }
    bool operator==(const PixelRect&) const = default;
};

/// Read-only pixels of an Image or of memory AugLab does not own (a NumPy array the Python module
/// renders from without copying it: SourceLevels' borrowed source). Pixels are interleaved and
/// rows `stride` bytes apart; `size` is the bytes that may be read from `data` on.
struct ImageView {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    int width = 0;
    int height = 0;
    int channels = 3;
    std::size_t stride = 0;

    ImageView() = default;
    ImageView(const std::uint8_t* d, std::size_t n, int w, int h, int c, std::size_t rowStride)
        : data(d), size(n), width(w), height(h), channels(c), stride(rowStride) {}
    ImageView(const Image& image)  // NOLINT(google-explicit-constructor): every Image is a view
        : data(image.pixels.data()), size(image.pixels.size()), width(image.width), height(image.height),
          channels(image.channels), stride(image.stride) {}
    const std::uint8_t* row(int y) const { return data + static_cast<std::size_t>(y) * stride; }
    const std::uint8_t* at(int x, int y) const { return row(y) + static_cast<std::size_t>(x) * channels; }
};

/// The pixels of `rect` of `view` as a view of their own (the view itself when `rect` is empty).
inline ImageView windowOf(const ImageView& view, const PixelRect& rect) {
    if (rect.empty()) return view;
    const std::size_t offset = static_cast<std::size_t>(rect.y) * view.stride +
                               static_cast<std::size_t>(rect.x) * static_cast<std::size_t>(view.channels);
    return ImageView(view.data + offset, view.size - offset, rect.width, rect.height, view.channels, view.stride);
}

/// True when both images have the same size, channel count and pixel values (stride ignored).
bool samePixels(const Image& a, const Image& b);

/// Downscales by exact area averaging to (w, h); w <= src.width and h <= src.height.
/// Used to build the pre-filtered source levels tiles are rendered from.
Image resizeArea(const Image& src, int w, int h);

}  // namespace auglab
