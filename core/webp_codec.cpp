// Lossy WebP through libwebp, the library OpenCV's WebP codec calls (image_codecs.h). Used by the
// image_compression op, which reproduces cv2.imencode(".webp") then cv2.imdecode.

#include <webp/decode.h>
#include <webp/encode.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "error.h"
#include "image_codecs.h"

namespace auglab::codecs {

void webpRoundTrip(Image& image, int quality) {
    if (image.width <= 0 || image.height <= 0) return;
    if (image.width > WEBP_MAX_DIMENSION || image.height > WEBP_MAX_DIMENSION)
        throw RuntimeError("WebP holds at most " + std::to_string(WEBP_MAX_DIMENSION) + " x " +
                           std::to_string(WEBP_MAX_DIMENSION) + " pixels; the image is " +
                           std::to_string(image.width) + " x " + std::to_string(image.height));
    // The colour bytes, packed: OpenCV hands libwebp three channels (it calls WebPEncodeBGR on the
    // array Albumentations gives it, whose bytes are RGB, so the encoder sees R and B swapped).
    const std::size_t rowBytes = static_cast<std::size_t>(image.width) * 3;
    std::vector<std::uint8_t> packed;
    const std::uint8_t* colour = image.pixels.data();
    int stride = static_cast<int>(image.stride);
    if (image.channels == 4) {
        packed.resize(rowBytes * static_cast<std::size_t>(image.height));
        for (int y = 0; y < image.height; ++y) {
            const std::uint8_t* p = image.row(y);
            std::uint8_t* d = packed.data() + static_cast<std::size_t>(y) * rowBytes;
            for (int x = 0; x < image.width; ++x, p += 4, d += 3) std::copy(p, p + 3, d);
        }
        colour = packed.data();
        stride = static_cast<int>(rowBytes);
    }
    std::uint8_t* encoded = nullptr;
    const std::size_t size = WebPEncodeBGR(colour, image.width, image.height, stride,
                                           static_cast<float>(std::clamp(quality, 1, 100)), &encoded);
    const std::unique_ptr<std::uint8_t, void (*)(void*)> owner(encoded, WebPFree);
    if (size == 0) throw RuntimeError("WebP encoder failed");
    if (image.channels == 3) {
        if (!WebPDecodeBGRInto(encoded, size, image.pixels.data(), image.stride * std::size_t(image.height),
                               static_cast<int>(image.stride)))
            throw RuntimeError("WebP decoder failed");
        return;
    }
    if (!WebPDecodeBGRInto(encoded, size, packed.data(), packed.size(), static_cast<int>(rowBytes)))
        throw RuntimeError("WebP decoder failed");
    copyColourBytes(packed.data(), image);
}

}  // namespace auglab::codecs
