#pragma once
// Test data shared by the image tests: paths of the bundled samples, synthetic images, conversions
// to and from OpenCV (the independent reference), pixel differences, and files built byte by byte
// (a header-only PNG with correct CRCs, a real CMYK JPEG, an animated GIF) that no library here
// can write.

#include <stb_image_write.h>
#include <QFile>
#include <QString>
#include <QtTest>
#include <array>
#include <cstring>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <vector>

#include "error.h"
#include "image.h"

namespace imagetest {

using auglab::Image;
using auglab::InputError;
using Bytes = std::vector<std::uint8_t>;

inline std::filesystem::path fsPath(const QString& s) {
    return std::filesystem::path(s.toStdU16String());
}
inline std::filesystem::path sample(const char* name) {
    return std::filesystem::path(AUGLAB_SOURCE_DIR) / "resources/samples" / name;
}
template <typename Buffer>  // Bytes, or an Image's PixelBuffer
inline QByteArray qbytes(const Buffer& b) {
    return QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()));
}
inline Bytes bytes(const QByteArray& b) {
    return Bytes(b.begin(), b.end());
}

// OpenCV's BGR(A) or gray Mat -> our RGB(A) image, and back (test_support.h's toMat/fromMat keep
// the channel order instead).
inline Image fromBgr(const cv::Mat& m) {
    cv::Mat rgb;
    cv::cvtColor(m, rgb,
                 m.channels() == 4   ? cv::COLOR_BGRA2RGBA
                 : m.channels() == 3 ? cv::COLOR_BGR2RGB
                                     : cv::COLOR_GRAY2RGB);
    Image img(rgb.cols, rgb.rows, rgb.channels());
    for (int y = 0; y < img.height; ++y) std::memcpy(img.row(y), rgb.ptr(y), img.stride);
    return img;
}
inline cv::Mat toBgr(const Image& img) {
    cv::Mat m(img.height, img.width, CV_8UC(img.channels), const_cast<std::uint8_t*>(img.pixels.data()),
              img.stride);
    cv::Mat bgr;
    cv::cvtColor(m, bgr, img.channels == 4 ? cv::COLOR_RGBA2BGRA : cv::COLOR_RGB2BGR);
    return bgr;
}
inline Image noise(int w, int h, int c, unsigned seed) {
    Image img(w, h, c);
    std::mt19937 rng(seed);
    for (auto& v : img.pixels) v = std::uint8_t(rng());
    return img;
}

struct Diff {
    double mean = 0;
    int max = 0;
};
inline Diff diff(const Image& a, const Image& b) {
    Diff d;
    if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        QTest::qFail(qPrintable(QString("images differ in size: %1x%2x%3 and %4x%5x%6")
                                    .arg(a.width).arg(a.height).arg(a.channels)
                                    .arg(b.width).arg(b.height).arg(b.channels)),
                     __FILE__, __LINE__);
        d.mean = d.max = 256;  // and never within any bound
        return d;
    }
    const int n = a.width * a.channels;
    for (int y = 0; y < a.height; ++y)
        for (int i = 0; i < n; ++i) {
            const int v = std::abs(int(a.row(y)[i]) - int(b.row(y)[i]));
            d.mean += v;
            d.max = std::max(d.max, v);
        }
    d.mean /= double(n) * a.height;
    return d;
}

// The InputError message `f` throws, or a marker saying it threw something else or nothing.
template <typename F>
inline QString inputError(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
        return "NOT AN InputError: " + QString::fromUtf8(e.what());
    }
    return "NO ERROR";
}

// --- Hand-made files -----------------------------------------------------------------------------
inline void put16be(Bytes& b, unsigned v) {
    b.push_back(std::uint8_t(v >> 8));
    b.push_back(std::uint8_t(v));
}
inline void put32be(Bytes& b, std::uint32_t v) {
    put16be(b, v >> 16);
    put16be(b, v & 0xFFFF);
}
inline void put16le(Bytes& b, unsigned v) {
    b.push_back(std::uint8_t(v));
    b.push_back(std::uint8_t(v >> 8));
}

inline std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {  // the PNG/zlib CRC, bit by bit
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
inline void pngChunk(Bytes& b, const char* type, const Bytes& data) {
    put32be(b, std::uint32_t(data.size()));
    Bytes typed(type, type + 4);
    typed.insert(typed.end(), data.begin(), data.end());
    b.insert(b.end(), typed.begin(), typed.end());
    put32be(b, crc32(typed.data(), typed.size()));
}
// A PNG that is only a header: signature, IHDR (8-bit RGB) and IEND.
inline Bytes pngHeader(std::uint32_t w, std::uint32_t h) {
    Bytes b{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, ihdr;
    put32be(ihdr, w);
    put32be(ihdr, h);
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
    pngChunk(b, "IHDR", ihdr);
    pngChunk(b, "IEND", {});
    return b;
}

// An 8-bit palette PNG whose IDAT is a zlib stream of stored (uncompressed) blocks, so no
// compressor is involved. Pixel (x, y) has palette index (x + 2y) % 5; with `transparency` a tRNS
// chunk gives the entries alphas 0, 64, 128, 255 (and the fifth, omitted, is opaque).
inline const std::uint8_t kPaletteColours[5][3] = {{255, 0, 0}, {0, 200, 0}, {10, 20, 250}, {90, 90, 90}, {250, 240, 5}};
inline const std::uint8_t kPaletteAlphas[5] = {0, 64, 128, 255, 255};
inline int paletteIndex(int x, int y) { return (x + 2 * y) % 5; }
inline Bytes palettePng(int w, int h, bool transparency) {
    Bytes b{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, ihdr, plte, raw, z{0x78, 0x01};
    put32be(ihdr, std::uint32_t(w));
    put32be(ihdr, std::uint32_t(h));
    ihdr.insert(ihdr.end(), {8, 3, 0, 0, 0});
    pngChunk(b, "IHDR", ihdr);
    for (const auto& c : kPaletteColours) plte.insert(plte.end(), c, c + 3);
    pngChunk(b, "PLTE", plte);
    if (transparency) pngChunk(b, "tRNS", Bytes(kPaletteAlphas, kPaletteAlphas + 4));
    for (int y = 0; y < h; ++y) {
        raw.push_back(0);  // filter type None
        for (int x = 0; x < w; ++x) raw.push_back(std::uint8_t(paletteIndex(x, y)));
    }
    for (std::size_t at = 0; at < raw.size(); at += 65535) {  // stored blocks of at most 65535 bytes
        const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
        z.push_back(at + n == raw.size() ? 1 : 0);
        z.insert(z.end(), {std::uint8_t(n & 0xFF), std::uint8_t(n >> 8), std::uint8_t(~n & 0xFF), std::uint8_t((~n >> 8) & 0xFF)});
        z.insert(z.end(), raw.begin() + long(at), raw.begin() + long(at + n));
    }
    std::uint32_t a = 1, c = 0;  // Adler-32 of the uncompressed data
    for (std::uint8_t v : raw) {
        a = (a + v) % 65521;
        c = (c + a) % 65521;
    }
    put32be(z, (c << 16) | a);
    pngChunk(b, "IDAT", z);
    pngChunk(b, "IEND", {});
    return b;
}

// A complete 8x8 baseline JPEG. Every block is "DC difference 0, end of block" with one-code
// Huffman tables, so the scan is 2 bits per block; with 4 components and an Adobe APP14 marker
// (transform 0) it is a real CMYK JPEG that libjpeg and stb both decode.
inline Bytes tinyJpeg(int components, int size = 8, bool withScan = true) {
    Bytes b{0xFF, 0xD8};
    if (components == 4) {
        b.insert(b.end(), {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0});
    }
    b.insert(b.end(), {0xFF, 0xDB, 0, 67, 0});
    b.insert(b.end(), 64, 1);
    b.insert(b.end(), {0xFF, 0xC0});
    put16be(b, 8 + 3 * components);
    b.push_back(8);
    put16be(b, size);
    put16be(b, size);
    b.push_back(std::uint8_t(components));
    for (int c = 1; c <= components; ++c) b.insert(b.end(), {std::uint8_t(c), 0x11, 0});
    if (withScan) {
        for (std::uint8_t table : {0x00, 0x10}) {
            b.insert(b.end(), {0xFF, 0xC4, 0, 20, table, 1});
            b.insert(b.end(), 15, 0);
            b.push_back(0);  // the one symbol: DC category 0 / AC end-of-block
        }
        b.insert(b.end(), {0xFF, 0xDA});
        put16be(b, 6 + 2 * components);
        b.push_back(std::uint8_t(components));
        for (int c = 1; c <= components; ++c) b.insert(b.end(), {std::uint8_t(c), 0x00});
        b.insert(b.end(), {0, 63, 0});
        b.insert(b.end(), std::size_t((2 * components + 7) / 8), 0x00);  // 2 bits of zeros per block
    }
    b.insert(b.end(), {0xFF, 0xD9});
    return b;
}

// A GIF89a with a 128-colour palette. LZW with 7-bit roots codes every pixel as one 8-bit literal
// and clears the table every 100 codes, so the code width never grows: no compressor is needed.
// Frame f holds palette index gifIndex(x, y) + f.
inline std::array<std::uint8_t, 3> gifColour(int i) {
    return {std::uint8_t(i * 2), std::uint8_t(255 - i * 2), std::uint8_t(i * 37)};
}
inline int gifIndex(int x, int y) {
    return (x * 3 + y * 5) % 128;
}
inline Bytes makeGif(int w, int h, bool transparentZero, int frames = 1) {
    Bytes b{'G', 'I', 'F', '8', '9', 'a'};
    put16le(b, w);
    put16le(b, h);
    b.insert(b.end(), {0xF6, 0, 0});
    for (int i = 0; i < 128; ++i)
        for (std::uint8_t v : gifColour(i)) b.push_back(v);
    for (int f = 0; f < frames; ++f) {
        if (transparentZero) b.insert(b.end(), {0x21, 0xF9, 4, 1, 10, 0, 0, 0});
        b.push_back(0x2C);
        put16le(b, 0);
        put16le(b, 0);
        put16le(b, w);
        put16le(b, h);
        b.insert(b.end(), {0, 7});
        Bytes codes;
        for (int i = 0; i < w * h; ++i) {
            if (i % 100 == 0) codes.push_back(128);
            codes.push_back(std::uint8_t((gifIndex(i % w, i / w) + f) % 128));
        }
        codes.push_back(129);
        for (std::size_t i = 0; i < codes.size(); i += 255) {
            const std::size_t n = std::min<std::size_t>(255, codes.size() - i);
            b.push_back(std::uint8_t(n));
            b.insert(b.end(), codes.begin() + long(i), codes.begin() + long(i + n));
        }
        b.push_back(0);
    }
    b.push_back(0x3B);
    return b;
}

inline void writeBytesTo(const QString& path, const QByteArray& data) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(data), data.size());
}
inline Bytes stbWrite(int (*writer)(stbi_write_func*, void*, int, int, int, const void*), const Image& img) {
    Bytes out;
    writer(
        [](void* ctx, void* data, int n) {
            auto* o = static_cast<Bytes*>(ctx);
            o->insert(o->end(), (std::uint8_t*)data, (std::uint8_t*)data + n);
        },
        &out, img.width, img.height, img.channels, img.pixels.data());
    return out;
}
inline Bytes encodeCv(const cv::Mat& m, const char* ext, const std::vector<int>& params = {}) {
    Bytes out;
    cv::imencode(ext, m, out, params);
    return out;
}

}  // namespace imagetest
