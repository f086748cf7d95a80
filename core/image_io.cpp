#include "image_io.h"

// stb_image decodes BMP, TGA and GIF; its implementation lives in the system libstb.
#include <stb_image.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "atomic_file.h"
#include "error.h"
#include "image_codecs.h"

namespace fs = std::filesystem;

namespace auglab {

namespace {

std::string shown(const fs::path& p) {
    const std::u8string s = p.u8string();
    return std::string(s.begin(), s.end());
}

[[noreturn]] void fail(const std::string& name, const std::string& why) {
    throw InputError("'" + name + "': " + why);
}

std::string stbReason() {
    const char* reason = stbi_failure_reason();
    return reason != nullptr && *reason != '\0' ? reason : "unknown error";
}

std::uint32_t bigEndian16(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 8) | p[1];
}
std::uint32_t bigEndian32(const std::uint8_t* p) {
    return (bigEndian16(p) << 16) | bigEndian16(p + 2);
}

// What a JPEG's marker segments say, read without decoding anything.
struct JpegHeader {
    bool hasFrame = false;  // a SOFn segment was found
    int width = 0;
    int height = 0;
    int components = 0;
    bool complete = false;  // the end-of-image marker is present, or the scan could not tell
};

// Walks the marker segments (and, after each SOS, the entropy-coded data) of a JPEG. stb 2.27 does
// refuse a cut JPEG, but says "expected marker", "no SOF" or even "bad png sig" (the reason of the
// last decoder it tried); older stb versions decoded the missing part as grey. A missing
// end-of-image marker is the plain sign of a truncated download or copy.
std::optional<JpegHeader> scanJpeg(const std::vector<std::uint8_t>& b) {
    if (b.size() < 2 || b[0] != 0xFF || b[1] != 0xD8) {
        return std::nullopt;
    }
    JpegHeader h;
    std::size_t i = 2;
    bool inScan = false;
    while (i + 1 < b.size()) {
        if (b[i] != 0xFF) {
            if (!inScan) {
                h.complete = true;  // garbage between segments: leave the verdict to the decoder
                return h;
            }
            // Entropy-coded data: on to the next 0xFF (memchr is vectorised; a photo's scan is
            // megabytes long).
            const void* next = std::memchr(&b[i], 0xFF, b.size() - i);
            i = next != nullptr ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(next) - b.data()) : b.size();
            continue;
        }
        const std::uint8_t m = b[i + 1];
        if (m == 0xFF) {  // fill byte
            ++i;
            continue;
        }
        i += 2;
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) {
            continue;  // stuffed 0xFF in scan data, restart marker, TEM: no length field
        }
        if (m == 0xD9) {
            h.complete = true;
            return h;
        }
        if (i + 2 > b.size()) {
            return h;
        }
        const std::size_t length = bigEndian16(&b[i]);
        if (length < 2) {
            h.complete = true;  // a corrupt length: the decoder will say what is wrong
            return h;
        }
        // SOF0..SOF15 carry the frame header; C4 (DHT), C8 (JPG) and CC (DAC) share the range.
        const bool isFrame = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (isFrame && !h.hasFrame && length >= 8 && i + 8 <= b.size()) {
            h.hasFrame = true;
            h.height = static_cast<int>(bigEndian16(&b[i + 3]));
            h.width = static_cast<int>(bigEndian16(&b[i + 5]));
            h.components = b[i + 7];
        }
        inScan = m == 0xDA;
        i += length;
    }
    return h;
}

bool isPng(const std::vector<std::uint8_t>& b) {
    static const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    return b.size() >= 8 && std::memcmp(b.data(), signature, 8) == 0;
}

// A PNG's size from its IHDR chunk: stbi_info itself refuses very large PNGs with a vague "too
// large", and the user should hear the actual size.
std::optional<std::pair<std::int64_t, std::int64_t>> pngSize(const std::vector<std::uint8_t>& b) {
    if (!isPng(b) || b.size() < 24 || std::memcmp(&b[12], "IHDR", 4) != 0) {
        return std::nullopt;
    }
    return std::pair<std::int64_t, std::int64_t>{bigEndian32(&b[16]), bigEndian32(&b[20])};
}

// Whether the chunk walk of a PNG reaches IEND. stb does fail on a cut PNG, but its reason is then
// "outofdata" or an empty string; this lets the message say what happened.
bool pngComplete(const std::vector<std::uint8_t>& b) {
    std::size_t i = 8;
    while (i + 8 <= b.size()) {
        const std::size_t length = bigEndian32(&b[i]);
        if (std::memcmp(&b[i + 4], "IEND", 4) == 0) {
            return true;
        }
        i += 12 + length;  // length, type, data, CRC
    }
    return false;
}

// stb reads past the end of a cut BMP as zeros without complaint; the header's file size tells.
std::optional<std::size_t> bmpDeclaredSize(const std::vector<std::uint8_t>& b) {
    if (b.size() < 6 || b[0] != 'B' || b[1] != 'M') {
        return std::nullopt;
    }
    const std::size_t size = b[2] | (b[3] << 8) | (b[4] << 16) | (std::size_t{b[5]} << 24);
    return size > 0 ? std::optional<std::size_t>(size) : std::nullopt;
}

void checkPixelLimit(const std::string& name, std::int64_t w, std::int64_t h) {
    // Compared by division: a header may claim sizes whose product overflows 64 bits.
    if (w < 0 || h < 0 || (w > 0 && h > kMaxImagePixels / w)) {
        fail(name, std::to_string(w) + "x" + std::to_string(h) + " image is over the " +
                       std::to_string(kMaxImagePixels / 1'000'000) + " megapixel limit");
    }
}

bool isGif(const std::vector<std::uint8_t>& b) {
    return b.size() >= 6 &&
           (std::memcmp(b.data(), "GIF87a", 6) == 0 || std::memcmp(b.data(), "GIF89a", 6) == 0);
}

// Whether a GIF's first frame (the one loaded) is all there: stb decodes the missing part of a cut
// frame as transparent black without complaint. Later frames do not matter.
bool gifFirstFrameComplete(const std::vector<std::uint8_t>& b) {
    bool out = false;
    const auto colourTableBytes = [](std::uint8_t flags) -> std::size_t {
        return (flags & 0x80) != 0 ? std::size_t{3} << ((flags & 7) + 1) : 0;
    };
    std::size_t i = 13;  // signature and logical screen descriptor
    if (b.size() < i) {
        return out;
    }
    i += colourTableBytes(b[10]);
    const auto skipSubBlocks = [&] {  // false when the file ends first
        while (i < b.size()) {
            const std::size_t n = b[i++];
            if (n == 0) {
                return true;
            }
            i += n;
        }
        return false;
    };
    while (i < b.size()) {
        const std::uint8_t block = b[i++];
        if (block == 0x21) {  // extension: a label, then sub-blocks
            ++i;
            if (!skipSubBlocks()) {
                return out;
            }
        } else if (block == 0x2C) {  // image: descriptor, local colour table, LZW code size, data
            if (i + 9 > b.size()) {
                return out;
            }
            i += 9 + colourTableBytes(b[i + 8]);
            ++i;
            return skipSubBlocks();
        } else {
            return true;  // the trailer, or junk: stb gives the verdict
        }
    }
    return out;
}

// The most pixels a GIF of `fileBytes` can hold: its LZW codes are at least 3 bits (a minimum code
// size of 2, plus one) and each stands for at most 4096 pixels (the table's longest string). stb
// allocates the whole logical screen the header claims, whatever the data can fill.
std::uint64_t gifMaxPixels(std::size_t fileBytes) {
    return (std::uint64_t{fileBytes} * 8 / 3 + 1) * 4096;
}

// Whether a TGA holds all the pixels its header promises (stb, like for BMP, silently reads zeros
// past the end). TGA has no signature: call this only for a file stb accepted that is no other format.
bool tgaComplete(const std::vector<std::uint8_t>& b) {
    if (b.size() < 18) {
        return false;
    }
    const int type = b[2];
    const std::size_t bytesPerPixel = (b[16] + 7u) / 8u;
    const auto le16 = [&](std::size_t at) { return std::size_t{b[at]} | (std::size_t{b[at + 1]} << 8); };
    const std::size_t pixels = le16(12) * le16(14);
    const std::size_t paletteBytes = b[1] == 1 ? le16(5) * ((b[7] + 7u) / 8u) : 0;
    std::size_t i = 18 + b[0] + paletteBytes;
    if (type < 9) {  // uncompressed
        return i + pixels * bytesPerPixel <= b.size();
    }
    // Run-length packets: a header byte, then one pixel repeated or `count` literal pixels.
    for (std::size_t done = 0; done < pixels;) {
        if (i >= b.size()) {
            return false;
        }
        const std::size_t count = (b[i] & 0x7Fu) + 1u;
        i += 1 + ((b[i] & 0x80u) != 0 ? 1 : count) * bytesPerPixel;
        done += count;
    }
    return i <= b.size();
}

// The formats stb recognises by a signature; a file stb accepts that matches none of them is a TGA.
bool hasKnownSignature(const std::vector<std::uint8_t>& b) {
    static const char* const signatures[] = {"\x89PNG", "\xFF\xD8",        "BM", "GIF8", "8BPS", "#?", "P5",
                                             "P6",      "\x53\x80\xF6\x34"};
    for (const char* sig : signatures) {
        const std::size_t n = std::strlen(sig);
        if (b.size() >= n && std::memcmp(b.data(), sig, n) == 0) {
            return true;
        }
    }
    return false;
}

struct StbFree {
    void operator()(stbi_uc* p) const { stbi_image_free(p); }
};

// stb decodes every GIF to RGBA; an opaque one should stay RGB like any other opaque file.
bool alphaIsOpaque(const Image& img) {
    for (int y = 0; y < img.height; ++y) {
        const std::uint8_t* p = img.row(y);
        for (int x = 0; x < img.width; ++x) {
            if (p[4 * x + 3] != 255) {
                return false;
            }
        }
    }
    return true;
}

Image dropAlpha(const Image& src) {
    Image out(src.width, src.height, 3, Image::Uninitialised{});
    for (int y = 0; y < src.height; ++y) {
        const std::uint8_t* in = src.row(y);
        std::uint8_t* o = out.row(y);
        for (std::size_t x = 0; x < static_cast<std::size_t>(src.width); ++x) {
            std::memcpy(o + 3 * x, in + 4 * x, 3);
        }
    }
    return out;
}

}  // namespace

namespace {

enum class Codec { Jpeg, Png, Stb };

// The checks that need no pixels, and which codec decodes the file. `whole`: the bytes are the
// whole file, so a missing end can be told apart from a prefix.
struct Inspected {
    ImageInfo info;
    Codec codec = Codec::Stb;
};

Inspected inspect(const std::vector<std::uint8_t>& bytes, const std::string& name, bool whole) {
    if (bytes.empty()) {
        fail(name, "empty file");
    }
    Inspected r;
    if (const std::optional<JpegHeader> jpeg = scanJpeg(bytes)) {
        r.codec = Codec::Jpeg;
        r.info.scalable = true;
        if (jpeg->hasFrame) {
            if (jpeg->components == 4) {
                fail(name, "CMYK JPEG is not supported; convert it to RGB");
            }
            checkPixelLimit(name, jpeg->width, jpeg->height);
            r.info.width = jpeg->width;
            r.info.height = jpeg->height;
        }
        if (whole && !jpeg->complete) {
            fail(name, "truncated JPEG (the end-of-image marker is missing)");
        }
        if (!jpeg->hasFrame && (whole || jpeg->complete)) {
            fail(name, "not a readable JPEG (no frame header)");
        }
        return r;
    }
    if (const auto size = pngSize(bytes)) {
        checkPixelLimit(name, size->first, size->second);
        if (size->first == 0 || size->second == 0) {
            fail(name, "the PNG header says " + std::to_string(size->first) + "x" + std::to_string(size->second) +
                           ": an image has at least one pixel");
        }
        if (whole && !pngComplete(bytes)) {
            fail(name, "truncated PNG (the file ends before the IEND chunk)");
        }
        r.codec = Codec::Png;
        r.info.width = static_cast<int>(size->first);
        r.info.height = static_cast<int>(size->second);
        return r;
    }
    if (isPng(bytes)) {
        fail(name, "not a readable PNG (no IHDR chunk)");
    }
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        fail(name, "file is too large to decode (over 2 GB)");
    }
    if (const auto declared = bmpDeclaredSize(bytes); whole && declared && *declared > bytes.size()) {
        fail(name, "truncated BMP (the header says " + std::to_string(*declared) + " bytes, the file has " +
                       std::to_string(bytes.size()) + ")");
    }
    const int length = static_cast<int>(bytes.size());
    int w = 0;
    int h = 0;
    int n = 0;
    if (stbi_info_from_memory(bytes.data(), length, &w, &h, &n) == 0) {
        fail(name, "not a supported image (" + stbReason() + ")");
    }
    checkPixelLimit(name, w, h);
    if (whole && isGif(bytes)) {
        if (!gifFirstFrameComplete(bytes)) {
            fail(name, "truncated GIF (the first frame is cut short)");
        }
        // A header that claims more pixels than the file can hold, refused before anything is
        // allocated, as the other formats' are.
        if (std::uint64_t(w) * std::uint64_t(h) > gifMaxPixels(bytes.size())) {
            fail(name, "the GIF's header says " + std::to_string(w) + "x" + std::to_string(h) + ", more than its " +
                           std::to_string(bytes.size()) + " bytes can hold (at most " +
                           std::to_string(gifMaxPixels(bytes.size())) + " pixels)");
        }
    }
    if (whole && !hasKnownSignature(bytes) && !tgaComplete(bytes)) {
        fail(name, "truncated TGA (the file ends before the last pixel)");
    }
    if (n < 1 || n > 4) {
        fail(name, "unsupported channel count " + std::to_string(n));
    }
    r.info.width = w;
    r.info.height = h;
    return r;
}

// BMP, TGA and GIF through stb_image.
LoadedImage decodeWithStb(const std::vector<std::uint8_t>& bytes, const std::string& name) {
    const int length = static_cast<int>(bytes.size());
    int w = 0;
    int h = 0;
    int fileChannels = 0;
    stbi_info_from_memory(bytes.data(), length, &w, &h, &fileChannels);
    // Gray becomes RGB and gray+alpha RGBA; stb reduces 16-bit samples with >> 8.
    const int wanted = fileChannels == 1 || fileChannels == 3 ? 3 : 4;
    LoadedImage loaded;
    loaded.fileChannels = fileChannels;
    loaded.reducedFrom16Bit = stbi_is_16_bit_from_memory(bytes.data(), length) != 0;
    int dw = 0;
    int dh = 0;
    int dn = 0;
    const std::unique_ptr<stbi_uc, StbFree> data(
        stbi_load_from_memory(bytes.data(), length, &dw, &dh, &dn, wanted));
    if (!data) {
        fail(name, "cannot decode (" + stbReason() + "); the file is truncated or corrupt");
    }
    if (dw <= 0 || dh <= 0) {
        fail(name, "the image has no pixels (" + std::to_string(dw) + "x" + std::to_string(dh) + ")");
    }
    loaded.image = Image(dw, dh, wanted, Image::Uninitialised{});
    std::memcpy(loaded.image.pixels.data(), data.get(), loaded.image.pixels.size());

    if (isGif(bytes) && alphaIsOpaque(loaded.image)) {
        loaded.image = dropAlpha(loaded.image);
        loaded.fileChannels = 3;
    }
    return loaded;
}

}  // namespace

ImageInfo readImageInfo(const std::vector<std::uint8_t>& bytes, const std::string& name) {
    return inspect(bytes, name, false).info;
}

ImageInfo probeImage(const fs::path& path) {
    // Headers sit at the start; a JPEG's frame header comes after its metadata (EXIF with a
    // thumbnail, ICC profiles, maker notes): usually within 64 KB, seldom beyond 1 MB. Only what the
    // header shows is checked, whatever the file's size: truncation is the decoder's to find.
    const std::string name = shown(path);
    for (const std::size_t limit : {std::size_t{64} << 10, std::size_t{1} << 20, SIZE_MAX}) {
        const std::vector<std::uint8_t> bytes = readFileBytes(path, limit);
        const ImageInfo info = inspect(bytes, name, false).info;
        if (info.width > 0) {
            return info;
        }
        if (bytes.size() < limit) {
            break;  // the whole file was read
        }
    }
    fail(name, "not a readable JPEG (no frame header)");
}

ImageFile readImageFile(const fs::path& path) {
    ImageFile file;
    file.name = shown(path);
    file.bytes = readFileBytes(path);
    file.info = inspect(file.bytes, file.name, false).info;
    return file;
}

LoadedImage decodeImage(const std::vector<std::uint8_t>& bytes, const std::string& name, int maxLevel) {
    const Inspected inspected = inspect(bytes, name, true);
    LoadedImage loaded;
    switch (inspected.codec) {
        case Codec::Jpeg: {
            const codecs::JpegHeader header = codecs::readJpegHeader(bytes, name);
            if (header.cmyk) {
                fail(name, "CMYK JPEG is not supported; convert it to RGB");
            }
            loaded.level = std::clamp(maxLevel, 0, 3);
            loaded.image = codecs::decodeJpeg(bytes, name, header, loaded.level);
            loaded.fileChannels = header.gray ? 1 : 3;
            break;
        }
        case Codec::Png: {
            const codecs::PngHeader header = codecs::readPngHeader(bytes, name);
            loaded.image = codecs::decodePng(bytes, name, header);
            loaded.fileChannels = header.fileChannels;
            loaded.reducedFrom16Bit = header.sixteenBit;
            break;
        }
        case Codec::Stb: loaded = decodeWithStb(bytes, name); break;
    }
    loaded.fileWidth = inspected.info.width;
    loaded.fileHeight = inspected.info.height;
    loaded.decoded = {0, 0, loaded.image.width, loaded.image.height};
    if (loaded.level == 0 && (loaded.image.width != loaded.fileWidth || loaded.image.height != loaded.fileHeight)) {
        fail(name, "the header says " + std::to_string(loaded.fileWidth) + "x" + std::to_string(loaded.fileHeight) +
                       " but the image decodes as " + std::to_string(loaded.image.width) + "x" +
                       std::to_string(loaded.image.height));
    }
    return loaded;
}

LoadedImage decodeImageRegion(const std::vector<std::uint8_t>& bytes, const std::string& name,
                              const PixelRect& region) {
    const Inspected inspected = inspect(bytes, name, true);
    const PixelRect whole{0, 0, inspected.info.width, inspected.info.height};
    if (inspected.codec != Codec::Jpeg || region.empty() || !whole.contains(region) || region == whole)
        return decodeImage(bytes, name);
    const codecs::JpegHeader header = codecs::readJpegHeader(bytes, name);
    if (header.cmyk || header.width != whole.width || header.height != whole.height)
        return decodeImage(bytes, name);  // refused there, or (a header that disagrees) checked there
    LoadedImage loaded;
    loaded.image = Image(whole.width, whole.height, 3, Image::Uninitialised{});
    const std::optional<PixelRect> written = codecs::decodeJpegRegion(bytes, name, region, loaded.image);
    if (!written) return decodeImage(bytes, name);  // progressive: decoded whole
    loaded.fileChannels = header.gray ? 1 : 3;
    loaded.fileWidth = whole.width;
    loaded.fileHeight = whole.height;
    loaded.decoded = *written;
    return loaded;
}

const std::vector<std::string>& imageExtensions() {
    static const std::vector<std::string> extensions{".png", ".jpg", ".jpeg", ".bmp", ".tga", ".gif"};
    return extensions;
}

bool hasImageExtension(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::find(imageExtensions().begin(), imageExtensions().end(), ext) != imageExtensions().end();
}

LoadedImage loadImage(const fs::path& path, int maxLevel) {
    return decodeImage(readFileBytes(path), shown(path), maxLevel);
}

ImageFormat formatFromExtension(const fs::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch); });
    if (ext == ".png") {
        return ImageFormat::Png;
    }
    if (ext == ".jpg" || ext == ".jpeg") {
        return ImageFormat::Jpeg;
    }
    const std::string what =
        ext.empty() ? "no file extension" : "unsupported extension '" + shown(path.extension()) + "'";
    throw InputError("'" + shown(path) + "': " + what + "; use .png, .jpg or .jpeg");
}

namespace {

void checkQuality(int quality) {
    if (quality < 1 || quality > 100) {
        throw InputError("JPEG quality " + std::to_string(quality) + " is out of range (1 to 100)");
    }
}

}  // namespace

std::vector<std::uint8_t> encodeImage(const Image& image, ImageFormat format, int jpegQuality) {
    if (image.empty()) {
        throw RuntimeError("cannot encode an empty image");
    }
    if (image.channels != 3 && image.channels != 4) {
        throw RuntimeError("cannot encode an image with " + std::to_string(image.channels) + " channels");
    }
    if (image.stride > static_cast<std::size_t>(INT_MAX)) {
        throw RuntimeError("image rows are too long to encode");
    }
    if (format == ImageFormat::Png) {
        return codecs::encodePng(image);
    }
    checkQuality(jpegQuality);
    if (image.width > 65535 || image.height > 65535) {
        throw InputError("a " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                         " image is too large for JPEG (at most 65535 pixels a side)");
    }
    return codecs::encodeJpeg(image, jpegQuality);
}

std::vector<std::uint8_t> encodeImageFor(const fs::path& path, const Image& image, int jpegQuality) {
    const ImageFormat format = formatFromExtension(path);
    try {  // encoding errors name the file too
        return encodeImage(image, format, jpegQuality);
    } catch (const InputError& e) {
        throw InputError("'" + shown(path) + "': " + e.what());
    } catch (const RuntimeError& e) {
        throw RuntimeError("'" + shown(path) + "': " + e.what());
    }
}

void saveImage(const fs::path& path, const Image& image, int jpegQuality) {
    writeFileAtomically(path, encodeImageFor(path, image, jpegQuality));
}

}  // namespace auglab
