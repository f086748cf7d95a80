// A region of a JPEG through libjpeg's own API (image_codecs.h): TurboJPEG 2.1, which decodes whole
// files, has no cropped decoding; libjpeg-turbo's jpeg_skip_scanlines and jpeg_crop_scanline do it
// with the same decoder (the same IDCT, upsampling and colour conversion as tjDecompress2).

#include <cstdio>  // jpeglib.h uses FILE

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>

#include "error.h"
#include "image_codecs.h"

namespace auglab::codecs {

namespace {

struct ErrorManager {
    jpeg_error_mgr pub;  // first: libjpeg sees this struct as its jpeg_error_mgr
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void raise(j_common_ptr c) {
    auto* e = reinterpret_cast<ErrorManager*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
}

// Warnings (extraneous bytes, a damaged scan that still decodes) are accepted silently, as the whole
// file's decode (TurboJPEG) accepts them.
void quiet(j_common_ptr, int) {}

enum class Outcome { Done, Unsupported, Failed };

// libjpeg's part. Nothing in this frame has a destructor, so the longjmp out of libjpeg on an error
// skips none (the C++ rule for setjmp); `written` is set on Done, errors.message on Failed.
Outcome decodeRows(const std::uint8_t* data, unsigned long size, const PixelRect& want, Image& image,
                   PixelRect& written, ErrorManager& errors) {
    jpeg_decompress_struct c{};
    c.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = raise;
    errors.pub.emit_message = quiet;
    if (setjmp(errors.jump) != 0) {
        jpeg_destroy_decompress(&c);  // safe on the zeroed struct too (no memory manager yet)
        return Outcome::Failed;
    }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, data, size);
    jpeg_read_header(&c, TRUE);
    // Progressive files buffer every coefficient of the image before the first row anyway; CMYK
    // and YCCK are refused by the caller.
    const bool plain = c.jpeg_color_space == JCS_YCbCr || c.jpeg_color_space == JCS_GRAYSCALE ||
                       c.jpeg_color_space == JCS_RGB;
    if (c.progressive_mode || !plain || static_cast<int>(c.image_width) != image.width ||
        static_cast<int>(c.image_height) != image.height) {
        jpeg_destroy_decompress(&c);
        return Outcome::Unsupported;
    }
    c.out_color_space = JCS_EXT_RGB;  // tjDecompress2's TJPF_RGB; IDCT and upsampling its defaults
    jpeg_start_decompress(&c);
    // A margin of one iMCU on every side: the smooth chroma upsampling takes the edge of what is
    // decoded for the image's edge, so the outermost decoded pixels may differ from the full decode.
    const int mcuWidth = c.max_h_samp_factor * DCTSIZE, mcuHeight = c.max_v_samp_factor * DCTSIZE;
    const int x0 = std::max(0, want.x - mcuWidth), x1 = std::min(image.width, want.x + want.width + mcuWidth);
    const int y0 = std::max(0, want.y - mcuHeight), y1 = std::min(image.height, want.y + want.height + mcuHeight);
    JDIMENSION xoffset = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
    if (x0 > 0 || x1 < image.width) jpeg_crop_scanline(&c, &xoffset, &width);  // aligned to iMCUs, wider
    if (y0 > 0) jpeg_skip_scanlines(&c, static_cast<JDIMENSION>(y0));  // entropy-decoded only
    while (static_cast<int>(c.output_scanline) < y1) {
        JSAMPROW rows[16];
        const int first = static_cast<int>(c.output_scanline), count = std::min(16, y1 - first);
        for (int i = 0; i < count; ++i) rows[i] = image.row(first + i) + static_cast<std::size_t>(xoffset) * 3;
        jpeg_read_scanlines(&c, rows, static_cast<JDIMENSION>(count));
    }
    // The rows below are never decoded.
    jpeg_destroy_decompress(&c);
    written = {static_cast<int>(xoffset), y0, static_cast<int>(width), y1 - y0};
    return Outcome::Done;
}

}  // namespace

std::optional<PixelRect> decodeJpegRegion(const std::vector<std::uint8_t>& bytes, const std::string& name,
                                          const PixelRect& region, Image& image) {
    if (image.channels != 3 || region.empty() || !PixelRect{0, 0, image.width, image.height}.contains(region))
        throw RuntimeError("decodeJpegRegion: the region must lie inside the RGB image it fills");
    ErrorManager errors{};
    PixelRect written;
    switch (decodeRows(bytes.data(), static_cast<unsigned long>(bytes.size()), region, image, written, errors)) {
        case Outcome::Done: return written;
        case Outcome::Unsupported: return std::nullopt;
        case Outcome::Failed: break;
    }
    throw InputError("'" + name + "': cannot decode; the file is corrupt (" + errors.message + ")");
}

}  // namespace auglab::codecs
