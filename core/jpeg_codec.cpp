// JPEG through libjpeg-turbo's TurboJPEG API (image_codecs.h).

#include <turbojpeg.h>

#include <algorithm>
#include <climits>
#include <memory>

#include "error.h"
#include "image_codecs.h"

namespace auglab::codecs {

namespace {

// A TurboJPEG handle per thread and direction: making one allocates libjpeg's state, which costs
// more than decoding a small tile-sized JPEG. Handles recover from errors, so they are kept.
class TjHandle {
public:
    explicit TjHandle(tjhandle h) : h_(h) {}
    ~TjHandle() {
        if (h_ != nullptr) tjDestroy(h_);
    }
    TjHandle(const TjHandle&) = delete;
    TjHandle& operator=(const TjHandle&) = delete;
    tjhandle get() const {
        if (h_ == nullptr)
            throw RuntimeError(std::string("cannot start libjpeg-turbo: ") + tjGetErrorStr2(nullptr));
        return h_;
    }

private:
    tjhandle h_;
};

tjhandle decompressor() {
    thread_local TjHandle handle(tjInitDecompress());
    return handle.get();
}

tjhandle compressor() {
    thread_local TjHandle handle(tjInitCompress());
    return handle.get();
}

[[noreturn]] void fail(const std::string& name, tjhandle h, const std::string& what) {
    throw InputError("'" + name + "': " + what + " (" + tjGetErrorStr2(h) + ")");
}

unsigned long byteCount(const std::vector<std::uint8_t>& bytes, const std::string& name) {
    if (bytes.size() > ULONG_MAX) throw InputError("'" + name + "': file is too large to decode");
    return static_cast<unsigned long>(bytes.size());
}

}  // namespace

JpegHeader readJpegHeader(const std::vector<std::uint8_t>& bytes, const std::string& name) {
    tjhandle h = decompressor();
    int width = 0, height = 0, subsampling = 0, colourspace = 0;
    if (tjDecompressHeader3(h, bytes.data(), byteCount(bytes, name), &width, &height, &subsampling,
                            &colourspace) != 0)
        fail(name, h, "not a readable JPEG");
    JpegHeader header;
    header.width = width;
    header.height = height;
    header.gray = colourspace == TJCS_GRAY;
    header.cmyk = colourspace == TJCS_CMYK || colourspace == TJCS_YCCK;
    return header;
}

Image decodeJpeg(const std::vector<std::uint8_t>& bytes, const std::string& name, const JpegHeader& header,
                 int scaleLevel) {
    tjhandle h = decompressor();
    const tjscalingfactor factor{1, 1 << std::clamp(scaleLevel, 0, 3)};
    Image image(TJSCALED(header.width, factor), TJSCALED(header.height, factor), 3, Image::Uninitialised{});
    // TJFLAG_LIMITSCANS refuses progressive files with absurd scan counts (a decompression bomb
    // that would take minutes); real encoders write around ten.
    const int status =
        tjDecompress2(h, bytes.data(), byteCount(bytes, name), image.pixels.data(), image.width,
                      static_cast<int>(image.stride), image.height, TJPF_RGB, TJFLAG_LIMITSCANS);
    if (status != 0 && tjGetErrorCode(h) != TJERR_WARNING)
        fail(name, h, "cannot decode; the file is corrupt");
    return image;
}

std::vector<std::uint8_t> encodeJpeg(const Image& image, int quality) {
    tjhandle h = compressor();
    // A buffer of the worst-case size, filled in place (no reallocation inside libjpeg-turbo) and
    // left uninitialised: it is several times the size of the result.
    const unsigned long capacity = tjBufSize(image.width, image.height, TJSAMP_420);
    const std::unique_ptr<unsigned char[]> storage(new unsigned char[capacity]);
    unsigned char* buffer = storage.get();
    unsigned long size = capacity;
    const int format = image.channels == 4 ? TJPF_RGBX : TJPF_RGB;  // RGBX: the fourth byte is skipped
    // The accurate integer DCT: TurboJPEG's default below quality 96 is the fast one, libjpeg's (and
    // so cv2.imwrite's) is this one. With it the bytes are those cv2.imwrite writes.
    if (tjCompress2(h, image.pixels.data(), image.width, static_cast<int>(image.stride), image.height, format,
                    &buffer, &size, TJSAMP_420, quality, TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT) != 0)
        throw RuntimeError(std::string("JPEG encoder: ") + tjGetErrorStr2(h));
    return std::vector<std::uint8_t>(buffer, buffer + size);
}

void jpegRoundTrip(Image& image, int quality) {
    if (image.width <= 0 || image.height <= 0) return;
    tjhandle c = compressor();
    const unsigned long capacity = tjBufSize(image.width, image.height, TJSAMP_420);
    const std::unique_ptr<unsigned char[]> storage(new unsigned char[capacity]);
    unsigned char* buffer = storage.get();
    unsigned long size = capacity;
    // BGR(X): the byte order cv2.imencode assumes of the RGB array Albumentations hands it.
    const int format = image.channels == 4 ? TJPF_BGRX : TJPF_BGR;
    if (tjCompress2(c, image.pixels.data(), image.width, static_cast<int>(image.stride), image.height, format,
                    &buffer, &size, TJSAMP_420, std::clamp(quality, 1, 100),
                    TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT) != 0)
        throw RuntimeError(std::string("JPEG encoder: ") + tjGetErrorStr2(c));
    tjhandle d = decompressor();
    if (image.channels == 3) {
        if (tjDecompress2(d, buffer, size, image.pixels.data(), image.width, static_cast<int>(image.stride),
                          image.height, TJPF_BGR, TJFLAG_ACCURATEDCT) != 0)
            throw RuntimeError(std::string("JPEG decoder: ") + tjGetErrorStr2(d));
        return;
    }
    // RGBA: decoded beside the image, then the colour bytes copied over (alpha kept).
    const std::size_t rowBytes = static_cast<std::size_t>(image.width) * 3;
    std::vector<std::uint8_t> bgr(rowBytes * static_cast<std::size_t>(image.height));
    if (tjDecompress2(d, buffer, size, bgr.data(), image.width, static_cast<int>(rowBytes), image.height,
                      TJPF_BGR, TJFLAG_ACCURATEDCT) != 0)
        throw RuntimeError(std::string("JPEG decoder: ") + tjGetErrorStr2(d));
    copyColourBytes(bgr.data(), image);
}

}  // namespace auglab::codecs
