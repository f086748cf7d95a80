// Loading image files: the bundled photos against OpenCV, every format and channel layout, 16-bit
// files, a corpus of broken files (each a clear InputError naming the file), and Unicode paths.

#include <stb_image.h>
#include <turbojpeg.h>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

#include "atomic_file.h"
#include "image_io.h"
#include "image_test_data.h"

using namespace auglab;
using namespace imagetest;

class TestImageIo : public QObject {
    Q_OBJECT

private slots:
    void samplesMatchOpenCv_data();
    void samplesMatchOpenCv();
    void progressiveJpeg();
    void grayJpeg();
    void scaledJpegDecode_data();
    void scaledJpegDecode();
    void regionDecodeIsTheWholeDecode_data();
    void regionDecodeIsTheWholeDecode();
    void palettePng_data();
    void palettePng();
    void probeReadsHeadersOnly();
    void channelLayouts_data();
    void channelLayouts();
    void sixteenBit_data();
    void sixteenBit();
    void otherFormats_data();
    void otherFormats();
    void brokenFiles_data();
    void brokenFiles();
    void unreadablePaths();
    void unicodePath();
};

void TestImageIo::samplesMatchOpenCv_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("maxMean");
    QTest::addColumn<int>("maxDiff");
    // PNG is lossless: identical. JPEG: both decode with libjpeg-turbo's default decoding (accurate
    // integer IDCT, smooth chroma upsampling; Debian's OpenCV links the same libjpeg-turbo), so the
    // pixels are identical too; that is what lets `apply` equal a training loop's cv2.imread.
    QTest::newRow("astronaut.png") << "astronaut.png" << 512 << 512 << 0.0 << 0;
    QTest::newRow("chelsea.png") << "chelsea.png" << 451 << 300 << 0.0 << 0;
    QTest::newRow("coffee.png") << "coffee.png" << 600 << 400 << 0.0 << 0;
    QTest::newRow("rocket.jpg") << "rocket.jpg" << 640 << 427 << 0.0 << 0;
}

void TestImageIo::samplesMatchOpenCv() {
    QFETCH(QString, file);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, maxMean);
    QFETCH(int, maxDiff);
    const auto path = sample(file.toUtf8().constData());
    const LoadedImage loaded = loadImage(path);
    QCOMPARE(loaded.image.width, width);
    QCOMPARE(loaded.image.height, height);
    QCOMPARE(loaded.image.channels, 3);
    QCOMPARE(loaded.fileChannels, 3);
    QVERIFY(!loaded.reducedFrom16Bit);
    const Image ref = fromBgr(cv::imread(path.string(), cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION));
    const Diff d = diff(loaded.image, ref);
    qInfo("%s: mean |diff| %.3f, max %d", qPrintable(file), d.mean, d.max);
    QVERIFY2(d.mean <= maxMean && d.max <= maxDiff,
             qPrintable(QString("mean %1 max %2").arg(d.mean).arg(d.max)));
}

void TestImageIo::progressiveJpeg() {
    const cv::Mat src = cv::imread(sample("chelsea.png").string());
    const Bytes jpg = encodeCv(src, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 90, cv::IMWRITE_JPEG_PROGRESSIVE, 1});
    const QByteArray q = qbytes(jpg);
    QVERIFY(q.contains(QByteArray("\xFF\xC2", 2)));  // SOF2: it really is progressive
    QVERIFY(!q.contains(QByteArray("\xFF\xC0", 2)));
    const LoadedImage loaded = decodeImage(jpg, "progressive.jpg");
    const Diff d = diff(loaded.image, fromBgr(cv::imdecode(jpg, cv::IMREAD_COLOR)));
    QCOMPARE(d.max, 0);  // the same library decodes both (see samplesMatchOpenCv)
}

void TestImageIo::grayJpeg() {
    cv::Mat gray;
    cv::cvtColor(cv::imread(sample("coffee.png").string()), gray, cv::COLOR_BGR2GRAY);
    const Bytes jpg = encodeCv(gray, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 90});
    const LoadedImage loaded = decodeImage(jpg, "gray.jpg");
    QCOMPARE(loaded.fileChannels, 1);
    QCOMPARE(loaded.image.channels, 3);
    const cv::Mat ref = cv::imdecode(jpg, cv::IMREAD_GRAYSCALE);
    for (int y = 0; y < ref.rows; ++y)
        for (int x = 0; x < ref.cols; ++x)
            for (int k = 0; k < 3; ++k) QCOMPARE(loaded.image.at(x, y)[k], ref.at<std::uint8_t>(y, x));
}

void TestImageIo::scaledJpegDecode_data() {
    QTest::addColumn<int>("maxLevel");
    QTest::addColumn<int>("level");
    QTest::addColumn<int>("cvFlag");
    QTest::newRow("full") << 0 << 0 << int(cv::IMREAD_COLOR);
    QTest::newRow("1/2") << 1 << 1 << int(cv::IMREAD_REDUCED_COLOR_2);
    QTest::newRow("1/4") << 2 << 2 << int(cv::IMREAD_REDUCED_COLOR_4);
    QTest::newRow("1/8") << 3 << 3 << int(cv::IMREAD_REDUCED_COLOR_8);
    QTest::newRow("level 5 asks for more than DCT scaling gives: 1/8") << 5 << 3 << int(cv::IMREAD_REDUCED_COLOR_8);
}

void TestImageIo::scaledJpegDecode() {
    QFETCH(int, maxLevel);
    QFETCH(int, level);
    QFETCH(int, cvFlag);
    // rocket.jpg (640x427) has an odd height, and a 4:2:0 q92 copy of coffee.png one of 601x401:
    // scaled sizes round up, as SourceLevels' level sizes do.
    cv::Mat coffee = cv::imread(sample("coffee.png").string()), padded;
    cv::copyMakeBorder(coffee, padded, 0, 1, 0, 1, cv::BORDER_REFLECT_101);
    for (const Bytes& jpg : {readFileBytes(sample("rocket.jpg")), encodeCv(padded, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 92})}) {
        const LoadedImage loaded = decodeImage(jpg, "photo.jpg", maxLevel);
        QCOMPARE(loaded.level, level);
        const cv::Mat full = cv::imdecode(jpg, cv::IMREAD_COLOR);
        QCOMPARE(loaded.fileWidth, full.cols);
        QCOMPARE(loaded.fileHeight, full.rows);
        QCOMPARE(loaded.image.width, (full.cols + (1 << level) - 1) >> level);
        QCOMPARE(loaded.image.height, (full.rows + (1 << level) - 1) >> level);
        // OpenCV's IMREAD_REDUCED_* asks libjpeg for the same DCT scaling.
        const Diff d = diff(loaded.image, fromBgr(cv::imdecode(jpg, cvFlag)));
        QCOMPARE(d.max, 0);
    }
    // Other formats decode in full whatever is allowed.
    const LoadedImage png = loadImage(sample("chelsea.png"), 3);
    QCOMPARE(png.level, 0);
    QCOMPARE(png.image.width, 451);
}

namespace {

// A JPEG with the chroma subsampling asked for, written by TurboJPEG (OpenCV 4.6 writes 4:2:0 only).
Bytes tjJpeg(const Image& rgb, int subsampling, int quality) {
    tjhandle h = tjInitCompress();
    unsigned char* out = nullptr;
    unsigned long size = 0;
    const int status = tjCompress2(h, rgb.pixels.data(), rgb.width, static_cast<int>(rgb.stride), rgb.height, TJPF_RGB,
                                   &out, &size, subsampling, quality, TJFLAG_ACCURATEDCT);
    Bytes b = status == 0 ? Bytes(out, out + size) : Bytes();
    tjFree(out);
    tjDestroy(h);
    return b;
}

}  // namespace

void TestImageIo::regionDecodeIsTheWholeDecode_data() {
    QTest::addColumn<QByteArray>("jpeg");
    QTest::addColumn<bool>("progressive");
    // Odd sizes, so that the last iMCU row and column are partial.
    const Image photo = loadImage(sample("coffee.png")).image;
    Image odd(451, 299, 3, Image::Uninitialised{});
    for (int y = 0; y < odd.height; ++y) std::copy(photo.at(37, y + 41), photo.at(37 + odd.width, y + 41), odd.row(y));
    for (const auto& [name, sampling] : std::vector<std::pair<const char*, int>>{
             {"4:2:0", TJSAMP_420}, {"4:4:4", TJSAMP_444}, {"4:2:2", TJSAMP_422}, {"4:4:0", TJSAMP_440},
             {"4:1:1", TJSAMP_411}, {"gray", TJSAMP_GRAY}})
        QTest::newRow(name) << qbytes(tjJpeg(odd, sampling, 93)) << false;
    const cv::Mat bgr = cv::imread(sample("rocket.jpg").string());
    QTest::newRow("restart markers") << qbytes(encodeCv(bgr, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 95,
                                                                      cv::IMWRITE_JPEG_RST_INTERVAL, 3}))
                                     << false;
    QTest::newRow("progressive (decoded whole)")
        << qbytes(encodeCv(bgr, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 90, cv::IMWRITE_JPEG_PROGRESSIVE, 1})) << true;
}

void TestImageIo::regionDecodeIsTheWholeDecode() {
    // Any rectangle decoded alone holds the whole decode's pixels, whatever its position against the
    // iMCU grid (the chroma upsampling reads neighbours across it); a small one decodes less.
    QFETCH(QByteArray, jpeg);
    QFETCH(bool, progressive);
    const Bytes jpg = bytes(jpeg);
    QVERIFY(!jpg.empty());
    const LoadedImage whole = decodeImage(jpg, "whole.jpg");
    const int W = whole.image.width, H = whole.image.height;
    const PixelRect all{0, 0, W, H};
    QCOMPARE(whole.decoded, all);
    std::mt19937 rng(11);
    std::vector<PixelRect> regions{{0, 0, 1, 1}, {W - 1, H - 1, 1, 1}, {0, H / 2, W, 1}, {W / 2, 0, 1, H},
                                   {17, 33, 16, 16}, {8, 8, W - 16, H - 16}, all};
    for (int i = 0; i < 200; ++i) {
        const int w = std::uniform_int_distribution<int>(1, W)(rng), h = std::uniform_int_distribution<int>(1, H)(rng);
        regions.push_back({std::uniform_int_distribution<int>(0, W - w)(rng),
                           std::uniform_int_distribution<int>(0, H - h)(rng), w, h});
    }
    int smaller = 0;
    for (const PixelRect& r : regions) {
        const LoadedImage part = decodeImageRegion(jpg, "part.jpg", r);
        QCOMPARE(part.image.width, W);
        QCOMPARE(part.image.height, H);
        QCOMPARE(part.fileChannels, whole.fileChannels);
        QVERIFY(part.decoded.contains(r));
        QVERIFY(all.contains(part.decoded));
        if (progressive) {
            QCOMPARE(part.decoded, all);
        } else {
            // At most one iMCU beyond the region (16 rows; 32 columns in 4:1:1), columns then
            // aligned to iMCUs.
            QVERIFY(part.decoded.y >= r.y - 16 && part.decoded.y + part.decoded.height <= r.y + r.height + 16);
            QVERIFY(part.decoded.x >= r.x - 64 && part.decoded.x + part.decoded.width <= r.x + r.width + 64);
        }
        if (part.decoded.width * part.decoded.height < W * H) ++smaller;
        for (int y = r.y; y < r.y + r.height; ++y)
            if (!std::equal(part.image.at(r.x, y), part.image.at(r.x + r.width, y), whole.image.at(r.x, y)))
                QFAIL(qPrintable(QString("row %1 of region %2,%3 %4x%5 differs").arg(y).arg(r.x).arg(r.y).arg(r.width).arg(r.height)));
    }
    if (!progressive) QVERIFY2(smaller > 150, qPrintable(QString::number(smaller)));
}

void TestImageIo::palettePng_data() {
    QTest::addColumn<bool>("transparency");
    QTest::newRow("palette") << false;
    QTest::newRow("palette with tRNS") << true;
}

void TestImageIo::palettePng() {
    QFETCH(bool, transparency);
    const int w = 23, h = 11;
    const Bytes png = imagetest::palettePng(w, h, transparency);
    const LoadedImage loaded = decodeImage(png, "palette.png");
    const int channels = transparency ? 4 : 3;
    QCOMPARE(loaded.fileChannels, channels);
    QCOMPARE(loaded.image.channels, channels);
    QVERIFY(!loaded.reducedFrom16Bit);
    const cv::Mat ref = cv::imdecode(png, cv::IMREAD_UNCHANGED);  // libpng's reading, as a second opinion
    QCOMPARE(ref.channels(), channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int i = paletteIndex(x, y);
            const std::uint8_t* p = loaded.image.at(x, y);
            const std::uint8_t* r = ref.ptr<std::uint8_t>(y) + x * channels;
            for (int k = 0; k < 3; ++k) {
                QCOMPARE(p[k], kPaletteColours[i][k]);
                QCOMPARE(p[k], r[2 - k]);
            }
            if (transparency) {
                QCOMPARE(p[3], kPaletteAlphas[i]);
                QCOMPARE(p[3], r[3]);
            }
        }
}

void TestImageIo::probeReadsHeadersOnly() {
    QTemporaryDir dir;
    // A JPEG whose frame header sits behind 320 KB of metadata (five full APP2 segments, as large
    // ICC profiles are stored): the probe reads on until it finds it.
    const Bytes photo = readFileBytes(sample("rocket.jpg"));
    Bytes padded(photo.begin(), photo.begin() + 2);
    for (int i = 0; i < 5; ++i) {
        padded.insert(padded.end(), {0xFF, 0xE2, 0xFF, 0xFF});
        padded.insert(padded.end(), 65533, std::uint8_t(i));
    }
    padded.insert(padded.end(), photo.begin() + 2, photo.end());
    writeBytesTo(dir.filePath("metadata.jpg"), qbytes(padded));
    ImageInfo info = probeImage(fsPath(dir.filePath("metadata.jpg")));
    QCOMPARE(info.width, 640);
    QCOMPARE(info.height, 427);
    QVERIFY(info.scalable);
    QVERIFY(samePixels(loadImage(fsPath(dir.filePath("metadata.jpg"))).image, loadImage(sample("rocket.jpg")).image));
    // A cut file still has its header: the probe gives its size, decoding refuses it.
    writeBytesTo(dir.filePath("cut.jpg"), qbytes(Bytes(photo.begin(), photo.begin() + long(photo.size() / 2))));
    info = probeImage(fsPath(dir.filePath("cut.jpg")));
    QCOMPARE(info.width, 640);
    QVERIFY(inputError([&] { loadImage(fsPath(dir.filePath("cut.jpg"))); }).contains("truncated JPEG"));
    info = probeImage(sample("coffee.png"));
    QCOMPARE(info.width, 600);
    QCOMPARE(info.height, 400);
    QVERIFY(!info.scalable);
    // What the header alone can refuse, the probe refuses with the decoder's words.
    writeBytesTo(dir.filePath("cmyk.jpg"), qbytes(tinyJpeg(4)));
    QVERIFY(inputError([&] { probeImage(fsPath(dir.filePath("cmyk.jpg"))); }).contains("CMYK JPEG is not supported"));
    writeBytesTo(dir.filePath("huge.png"), qbytes(pngHeader(60000, 60000)));
    QVERIFY(inputError([&] { probeImage(fsPath(dir.filePath("huge.png"))); }).contains("over the 100 megapixel limit"));
    writeBytesTo(dir.filePath("empty.png"), QByteArray());
    QVERIFY(inputError([&] { probeImage(fsPath(dir.filePath("empty.png"))); }).contains("empty file"));
    QVERIFY(inputError([&] { probeImage(fsPath(dir.filePath("missing.png"))); }).contains("No such file"));
}

void TestImageIo::channelLayouts_data() {
    QTest::addColumn<int>("fileChannels");
    QTest::addColumn<int>("expectChannels");
    QTest::newRow("gray -> RGB") << 1 << 3;
    QTest::newRow("gray+alpha -> RGBA") << 2 << 4;
    QTest::newRow("RGB") << 3 << 3;
    QTest::newRow("RGBA") << 4 << 4;
}

void TestImageIo::channelLayouts() {
    QFETCH(int, fileChannels);
    QFETCH(int, expectChannels);
    const int w = 37, h = 23;
    Bytes raw(std::size_t(w * h * fileChannels));
    std::mt19937 rng(fileChannels);
    for (auto& v : raw) v = std::uint8_t(rng());
    // Gray+alpha PNG: OpenCV cannot write one, so stb writes it; the others come from OpenCV.
    Bytes png;
    if (fileChannels == 2) {
        stbi_write_png_to_func(
            [](void* c, void* d, int n) {
                auto* o = static_cast<Bytes*>(c);
                o->insert(o->end(), (std::uint8_t*)d, (std::uint8_t*)d + n);
            },
            &png, w, h, 2, raw.data(), w * 2);
    } else {
        cv::Mat m(h, w, CV_8UC(fileChannels), raw.data());
        cv::Mat bgr = m.clone();
        if (fileChannels >= 3)
            cv::cvtColor(m, bgr, fileChannels == 4 ? cv::COLOR_RGBA2BGRA : cv::COLOR_RGB2BGR);
        png = encodeCv(bgr, ".png");
    }
    const LoadedImage loaded = decodeImage(png, "layout.png");
    QCOMPARE(loaded.fileChannels, fileChannels);
    QCOMPARE(loaded.image.channels, expectChannels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint8_t* p = loaded.image.at(x, y);
            const std::uint8_t* r = &raw[std::size_t((y * w + x) * fileChannels)];
            const bool gray = fileChannels <= 2;
            for (int k = 0; k < 3; ++k) QCOMPARE(p[k], gray ? r[0] : r[k]);
            if (expectChannels == 4) QCOMPARE(p[3], r[fileChannels - 1]);
        }
}

void TestImageIo::sixteenBit_data() {
    QTest::addColumn<int>("channels");
    QTest::newRow("gray16") << 1;
    QTest::newRow("rgb16") << 3;
    QTest::newRow("rgba16") << 4;
}

void TestImageIo::sixteenBit() {
    QFETCH(int, channels);
    cv::Mat m(19, 31, CV_16UC(channels));
    cv::randu(m, 0, 65536);
    m.ptr<std::uint16_t>(0)[channels >= 3 ? 2 : 0] = 0x00FF;  // red: must become 0 (a shift, no rounding)
    const LoadedImage loaded = decodeImage(encodeCv(m, ".png"), "deep.png");
    QVERIFY(loaded.reducedFrom16Bit);
    QCOMPARE(loaded.fileChannels, channels);
    cv::Mat rgb = m;
    if (channels >= 3) cv::cvtColor(m, rgb, channels == 4 ? cv::COLOR_BGRA2RGBA : cv::COLOR_BGR2RGB);
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            for (int k = 0; k < loaded.image.channels; ++k)
                QCOMPARE(int(loaded.image.at(x, y)[k]),
                         rgb.ptr<std::uint16_t>(y)[x * channels + (channels == 1 ? 0 : k)] >> 8);
    QCOMPARE(int(loaded.image.at(0, 0)[0]), 0);
    QVERIFY(!decodeImage(encodeCv(cv::Mat(4, 4, CV_8UC3, cv::Scalar::all(7)), ".png"), "8bit.png")
                 .reducedFrom16Bit);
}

void TestImageIo::otherFormats_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<int>("channels");
    QTest::addColumn<QByteArray>("expected");  // packed RGB(A) pixels
    const Image rgb = noise(29, 17, 3, 1), rgba = noise(29, 17, 4, 2);
    QTest::newRow("bmp24") << qbytes(encodeCv(toBgr(rgb), ".bmp")) << 3 << qbytes(rgb.pixels);
    QTest::newRow("bmp32") << qbytes(encodeCv(toBgr(rgba), ".bmp")) << 4 << qbytes(rgba.pixels);
    stbi_write_tga_with_rle = 0;
    QTest::newRow("tga") << qbytes(stbWrite(stbi_write_tga_to_func, rgb)) << 3 << qbytes(rgb.pixels);
    stbi_write_tga_with_rle = 1;
    QTest::newRow("tga-rle-rgba") << qbytes(stbWrite(stbi_write_tga_to_func, rgba)) << 4
                                  << qbytes(rgba.pixels);
    for (bool transparent : {false, true}) {
        QByteArray px;
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 300; ++x) {
                const int i = gifIndex(x, y);
                const bool clear = transparent && i == 0;  // stb leaves transparent pixels 0,0,0,0
                for (std::uint8_t v : gifColour(i)) px.append(char(clear ? 0 : v));
                if (transparent) px.append(char(clear ? 0 : 255));
            }
        QTest::newRow(transparent ? "gif-transparent" : "gif-opaque")
            << qbytes(makeGif(300, 9, transparent)) << (transparent ? 4 : 3) << px;
        if (transparent) {
            const Bytes animated = makeGif(300, 9, true, 3);
            QTest::newRow("gif-animated: first frame") << qbytes(animated) << 4 << px;
            // Only the first frame is loaded, so a cut in a later one does not matter.
            QTest::newRow("gif-animated, third frame cut")
                << qbytes(animated).left(animated.size() * 5 / 6) << 4 << px;
        }
    }
}

void TestImageIo::otherFormats() {
    QFETCH(QByteArray, data);
    QFETCH(int, channels);
    QFETCH(QByteArray, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(QTest::currentDataTag());
    writeBytesTo(path, data);
    const LoadedImage loaded = loadImage(fsPath(path));
    QCOMPARE(loaded.image.channels, channels);
    QCOMPARE(loaded.image.pixels.size(), std::size_t(expected.size()));
    QVERIFY(std::memcmp(loaded.image.pixels.data(), expected.constData(), std::size_t(expected.size())) == 0);
}

void TestImageIo::brokenFiles_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("reason");
    const Bytes png = readFileBytes(sample("astronaut.png"));
    const Bytes jpg = readFileBytes(sample("rocket.jpg"));
    const auto half = [](const Bytes& b) { return qbytes(Bytes(b.begin(), b.begin() + long(b.size() / 2))); };
    Bytes randomBytes(4096);
    std::mt19937 rng(7);
    for (auto& v : randomBytes) v = std::uint8_t(rng());
    Bytes corrupt = png;  // the zlib header of the first IDAT, zeroed
    const std::size_t idat = std::size_t(qbytes(png).indexOf("IDAT"));
    corrupt[idat + 4] = corrupt[idat + 5] = 0;
    const Image small = noise(40, 30, 3, 3);
    stbi_write_tga_with_rle = 0;
    const Bytes tga = stbWrite(stbi_write_tga_to_func, small);
    const Bytes bmp = encodeCv(toBgr(small), ".bmp");
    // The hand-made files are real: the CRC helper agrees with a real PNG's IHDR, OpenCV (libjpeg)
    // and stb both decode the CMYK JPEG, and stb decodes the 3-component one.
    QCOMPARE(crc32(&png[12], 17), std::uint32_t(png[29] << 24 | png[30] << 16 | png[31] << 8 | png[32]));
    QCOMPARE(cv::imdecode(tinyJpeg(4), cv::IMREAD_COLOR).cols, 8);
    for (int components : {3, 4}) {
        const Bytes jpeg = tinyJpeg(components);
        int w = 0, h = 0, n = 0;
        stbi_uc* decoded = stbi_load_from_memory(jpeg.data(), int(jpeg.size()), &w, &h, &n, 0);
        QVERIFY(decoded && w == 8 && n == 3);  // stb converts CMYK to RGB itself
        stbi_image_free(decoded);
    }
    Bytes hugeGif{'G', 'I', 'F', '8', '9', 'a', 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x3B};

    const QString limit = "60000x60000 image is over the 100 megapixel limit";
    QTest::newRow("empty") << "empty.png" << QByteArray() << "empty file";
    QTest::newRow("truncated png") << "half.png" << half(png) << "truncated PNG";
    QTest::newRow("png without IEND")
        << "cut.png" << qbytes(Bytes(png.begin(), png.end() - 12)) << "truncated PNG";
    QTest::newRow("truncated jpeg") << "half.jpg" << half(jpg) << "truncated JPEG";
    QTest::newRow("jpeg without EOI")
        << "cut.jpg" << qbytes(Bytes(jpg.begin(), jpg.end() - 2)) << "truncated JPEG";
    QTest::newRow("truncated bmp") << "half.bmp" << half(bmp) << "truncated BMP";
    QTest::newRow("truncated tga") << "half.tga" << half(tga) << "truncated TGA";
    QTest::newRow("truncated gif") << "half.gif" << half(makeGif(300, 9, false)) << "truncated GIF";
    QTest::newRow("corrupt png data")
        << "corrupt.png" << qbytes(corrupt) << "cannot decode; the file is corrupt (IDAT stream error)";
    QTest::newRow("text") << "notes.png" << QByteArray("just some notes, not pixels\n")
                          << "not a supported image (unknown image type)";
    QTest::newRow("random bytes") << "noise.jpg" << qbytes(randomBytes) << "not a supported image";
    QTest::newRow("huge png") << "huge.png" << qbytes(pngHeader(60000, 60000)) << limit;
    QTest::newRow("just over limit") << "big.png" << qbytes(pngHeader(10001, 10000))
                                     << "10001x10000 image is over";
    QTest::newRow("huge jpeg") << "huge.jpg" << qbytes(tinyJpeg(3, 60000, false)) << limit;
    QTest::newRow("huge gif") << "huge.gif" << qbytes(hugeGif) << "65535x65535 image is over";
    QTest::newRow("cmyk jpeg") << "cmyk.jpg" << qbytes(tinyJpeg(4))
                               << "CMYK JPEG is not supported; convert it to RGB";
    QTest::newRow("cmyk header only")
        << "cmyk-header.jpg" << qbytes(tinyJpeg(4, 8, false)) << "CMYK JPEG is not supported";
}

void TestImageIo::brokenFiles() {
    QFETCH(QString, name);
    QFETCH(QByteArray, data);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    writeBytesTo(path, data);
    const QString message = inputError([&] { loadImage(fsPath(path)); });
    QVERIFY2(message.contains(path) && message.contains(reason), qPrintable(message));
    QCOMPARE(inputError([&] { decodeImage(bytes(data), name.toStdString()); }),
             QString(message).replace(path, name));
}

void TestImageIo::unreadablePaths() {
    QTemporaryDir dir;
    const QString missing = dir.filePath("nowhere.png");
    QCOMPARE(inputError([&] { loadImage(fsPath(missing)); }),
             "cannot read '" + missing + "': No such file or directory");
    QCOMPARE(inputError([&] { loadImage(fsPath(dir.path())); }),
             "cannot read '" + dir.path() + "': it is a folder");
}

void TestImageIo::unicodePath() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QString::fromUtf8("каталог")));
    const QString path = dir.filePath(QString::fromUtf8("каталог/画像 ü.png"));
    const Image img = noise(21, 13, 4, 5);
    saveImage(fsPath(path), img);
    QVERIFY(QFileInfo::exists(path));  // Qt finds it under the same name: it is proper UTF-8
    QVERIFY(samePixels(loadImage(fsPath(path)).image, img));
    const QString missing = dir.filePath(QString::fromUtf8("каталог/нет.jpg"));
    QVERIFY(inputError([&] { loadImage(fsPath(missing)); }).contains(missing));
}

QTEST_APPLESS_MAIN(TestImageIo)
#include "test_image_io.moc"
