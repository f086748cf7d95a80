// Mask PNGs (semantic segmentation labels: one class index a pixel) through libspng, as the image
// codec reads and writes PNGs. Masks are read as stored, never through colour conversion: a palette
// PNG (Pascal VOC's SegmentationClass) gives its indices, not the colours they are shown in.

#include <spng.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "annotations.h"
#include "atomic_file.h"
#include "error.h"
#include "image_io.h"
#include "labels_internal.h"

namespace auglab {

namespace {

struct ContextFree {
    void operator()(spng_ctx* c) const { spng_ctx_free(c); }
};
using Context = std::unique_ptr<spng_ctx, ContextFree>;

std::string size(int w, int h) {
    return std::to_string(w) + "x" + std::to_string(h);
}

}  // namespace

Mask readMaskPng(const std::filesystem::path& file, int imageWidth, int imageHeight) {
    const std::vector<std::uint8_t> bytes = readFileBytes(file);
    const std::string name = labels::shownPath(file);
    const auto fail = [&](const std::string& what, int code) {
        throw InputError(name + ": " + what +
                         (code != 0 ? std::string(" (") + spng_strerror(code) + ")" : ""));
    };
    Context ctx(spng_ctx_new(0));
    if (!ctx) throw RuntimeError("cannot start the PNG decoder");
    spng_set_chunk_limits(ctx.get(), std::size_t{64} << 20, std::size_t{64} << 20);
    spng_set_crc_action(ctx.get(), SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
    if (const int e = spng_set_png_buffer(ctx.get(), bytes.data(), bytes.size()); e != 0)
        fail("not a readable PNG", e);
    spng_ihdr ihdr{};
    if (const int e = spng_get_ihdr(ctx.get(), &ihdr); e != 0) fail("not a readable PNG", e);
    if (std::int64_t(ihdr.width) != imageWidth || std::int64_t(ihdr.height) != imageHeight)
        fail("the mask is " + size(int(ihdr.width), int(ihdr.height)) + ", the image is " +
                 size(imageWidth, imageHeight),
             0);
    if (std::int64_t(imageWidth) * imageHeight > kMaxImagePixels)
        fail("the mask is larger than the image limit", 0);
    if (ihdr.bit_depth == 16) fail("a 16-bit PNG; masks are 8-bit gray or palette indices", 0);

    Mask m;
    m.width = imageWidth;
    m.height = imageHeight;
    m.values.assign(std::size_t(imageWidth) * std::size_t(imageHeight), 0);
    const std::size_t w = std::size_t(imageWidth), h = std::size_t(imageHeight);
    if (ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE || ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) {
        // The samples as stored; 1, 2 and 4 bits are packed most significant first.
        std::size_t length = 0;
        if (const int e = spng_decoded_image_size(ctx.get(), SPNG_FMT_RAW, &length); e != 0)
            fail("cannot decode", e);
        std::vector<std::uint8_t> raw(length);
        if (const int e = spng_decode_image(ctx.get(), raw.data(), length, SPNG_FMT_RAW, 0); e != 0)
            fail("cannot decode; the file is corrupt", e);
        const int depth = ihdr.bit_depth;
        const std::size_t rowBytes = (w * std::size_t(depth) + 7) / 8;
        if (length < rowBytes * h) fail("cannot decode", SPNG_EINTERNAL);
        for (std::size_t y = 0; y < h; ++y) {
            const std::uint8_t* row = raw.data() + y * rowBytes;
            for (std::size_t x = 0; x < w; ++x) {
                const std::size_t bit = x * std::size_t(depth);
                const int shift = 8 - depth - int(bit % 8);
                m.values[y * w + x] = std::uint8_t((row[bit / 8] >> shift) & ((1 << depth) - 1));
            }
        }
        return m;
    }
    // Colour files: accepted when they are gray in colour clothing (a mask saved as RGB).
    std::size_t length = 0;
    if (const int e = spng_decoded_image_size(ctx.get(), SPNG_FMT_RGBA8, &length); e != 0)
        fail("cannot decode", e);
    std::vector<std::uint8_t> rgba(length);
    if (length < w * h * 4) fail("cannot decode", SPNG_EINTERNAL);
    if (const int e = spng_decode_image(ctx.get(), rgba.data(), length, SPNG_FMT_RGBA8, 0); e != 0)
        fail("cannot decode; the file is corrupt", e);
    for (std::size_t i = 0; i < w * h; ++i) {
        const std::uint8_t* p = rgba.data() + i * 4;
        if (p[0] != p[1] || p[1] != p[2])
            fail("a colour PNG (pixel (" + std::to_string(i % w) + ", " + std::to_string(i / w) +
                     ") is not gray); masks are gray values or palette indices",
                 0);
        m.values[i] = p[0];
    }
    return m;
}

void writeMaskPng(const std::filesystem::path& file, const Mask& m) {
    writeFileAtomically(file, encodeMaskPng(m, labels::shownPath(file)));
}

std::string encodeMaskPng(const Mask& m, const std::string& name) {
    if (m.width <= 0 || m.height <= 0)
        throw InputError(name + ": a " + size(m.width, m.height) + " mask cannot be a PNG");
    if (m.values.size() != std::size_t(m.width) * std::size_t(m.height))
        throw RuntimeError("writeMaskPng: the mask's values do not match its size");
    Context ctx(spng_ctx_new(SPNG_CTX_ENCODER));
    if (!ctx) throw RuntimeError("cannot start the PNG encoder");
    spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
    // Masks are long runs of one value: zlib's default level with run-length matching.
    spng_set_option(ctx.get(), SPNG_IMG_COMPRESSION_STRATEGY, Z_RLE);
    spng_ihdr ihdr{};
    ihdr.width = std::uint32_t(m.width);
    ihdr.height = std::uint32_t(m.height);
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_GRAYSCALE;
    int e = spng_set_ihdr(ctx.get(), &ihdr);
    if (e == 0)
        e = spng_encode_image(ctx.get(), m.values.data(), m.values.size(), SPNG_FMT_PNG,
                              SPNG_ENCODE_FINALIZE);
    if (e != 0) throw RuntimeError(std::string("PNG encoder: ") + spng_strerror(e));
    std::size_t length = 0;
    void* data = spng_get_png_buffer(ctx.get(), &length, &e);
    if (data == nullptr) throw RuntimeError(std::string("PNG encoder: ") + spng_strerror(e));
    const std::unique_ptr<void, decltype(&std::free)> owned(data, &std::free);
    return std::string(static_cast<const char*>(data), length);
}

}  // namespace auglab
