#pragma once
// The codecs behind image_io.h, one per library: JPEG through libjpeg-turbo's TurboJPEG API (the
// codec OpenCV and Pillow use, SIMD-accelerated, with DCT-scaled decoding), PNG through libspng.
// Internal to core: callers use image_io.h, which checks headers and truncation first and sends
// every other format to stb_image.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "image.h"

namespace auglab::codecs {

/// What a JPEG's header says, read by TurboJPEG without decoding.
struct JpegHeader {
    int width = 0, height = 0;
    bool gray = false;  ///< one component (decoded as RGB all the same)
    bool cmyk = false;  ///< CMYK or YCCK: refused by the caller
};

/// Throws InputError("'name': ...") when TurboJPEG cannot read the header.
JpegHeader readJpegHeader(const std::vector<std::uint8_t>& bytes, const std::string& name);

/// Decodes a JPEG to RGB at 1/2^scaleLevel of its size (scaleLevel 0..3: libjpeg-turbo's DCT scaling
/// computes the reduced image directly, without the full-size one). The result is
/// ceil(width / 2^scaleLevel) x ceil(height / 2^scaleLevel). Pixels are those of libjpeg-turbo's
/// default decoding (accurate integer IDCT, smooth chroma upsampling), as cv2.imread gives.
/// Warnings (extraneous bytes, a damaged scan that still decodes) are accepted, as libjpeg and
/// OpenCV accept them; errors throw InputError naming the file.
/// `header` is readJpegHeader's for these bytes (read once by the caller, which checks it first).
Image decodeJpeg(const std::vector<std::uint8_t>& bytes, const std::string& name, const JpegHeader& header,
                 int scaleLevel);

/// Decodes the part of a baseline JPEG that covers `region` (in pixels of the full image) into
/// `image`, an RGB image of the file's full size that the caller allocated: the scanlines above the
/// region are only entropy-decoded (jpeg_skip_scanlines), those below not at all, and the iMCU
/// columns beside it are not transformed (jpeg_crop_scanline). It writes a margin of one iMCU around
/// `region` (clipped to the image; columns widened to iMCU boundaries) and returns that rectangle;
/// the region's pixels are the whole file's decode (decodeJpeg), the margin's outermost ones may not
/// be (the smooth chroma upsampling takes the edge of what it decodes for the image's), and the rest
/// of `image` is left as it was. Returns nullopt, writing nothing, for a progressive file (its
/// coefficients are all buffered before the first row) or another colour space than YCbCr, RGB or
/// gray: the caller then decodes in full. Corrupt data throws InputError naming the file; warnings
/// are accepted as decodeJpeg accepts them, and a corrupt scan below the region goes unseen.
std::optional<PixelRect> decodeJpegRegion(const std::vector<std::uint8_t>& bytes, const std::string& name,
                                          const PixelRect& region, Image& image);

/// Encodes RGB(A) pixels (alpha ignored) as a baseline JPEG with 4:2:0 chroma subsampling, the
/// default of cv2.imwrite and Pillow. quality 1..100.
std::vector<std::uint8_t> encodeJpeg(const Image& image, int quality);

/// Albumentations' ImageCompression with JPEG: the pixels encoded and decoded in place as
/// cv2.imencode(".jpg", rgb, quality) then cv2.imdecode do it, the RGB bytes read as OpenCV's BGR
/// (R and B swapped for the colour conversion), 4:2:0 chroma, the accurate integer DCT, libjpeg's
/// default decoding; alpha kept. quality 1..100. Throws RuntimeError when the encoder fails.
void jpegRoundTrip(Image& image, int quality);

/// The same with lossy WebP (cv2.imencode(".webp", ...) calls WebPEncodeBGR at `quality`, and
/// imdecode WebPDecodeBGRInto). WebP holds at most 16383 x 16383 pixels: larger throws RuntimeError.
void webpRoundTrip(Image& image, int quality);

/// The round trips' last step on RGBA: tightly packed 3-byte pixels (`packed`, the image's size)
/// written over the image's colour bytes, alpha kept.
inline void copyColourBytes(const std::uint8_t* packed, Image& image) {
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* s = packed + static_cast<std::size_t>(y) * image.width * 3;
        std::uint8_t* p = image.row(y);
        for (int x = 0; x < image.width; ++x, s += 3, p += 4) std::copy(s, s + 3, p);
    }
}

/// What a PNG's header says: size, channels as the file stores them (a tRNS chunk counts as alpha)
/// and bit depth.
struct PngHeader {
    int width = 0, height = 0;
    int fileChannels = 0;
    bool sixteenBit = false;
};

/// Throws InputError("'name': ...") for a PNG whose header cannot be read.
PngHeader readPngHeader(const std::vector<std::uint8_t>& bytes, const std::string& name);

/// Decodes a PNG to 8-bit RGB, or RGBA when it has alpha or a tRNS chunk. 16-bit samples are
/// reduced with >> 8 (as stb_image and a truncating cast do); gamma and colour chunks are ignored, as
/// OpenCV ignores them. CRC and zlib errors throw InputError naming the file.
Image decodePng(const std::vector<std::uint8_t>& bytes, const std::string& name, const PngHeader& header);

/// Encodes 8-bit RGB or RGBA as PNG.
std::vector<std::uint8_t> encodePng(const Image& image);

}  // namespace auglab::codecs
