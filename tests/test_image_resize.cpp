// The Image type and the area downscale, against a naive reference written here and against
// OpenCV's INTER_AREA, at sizes that hit the edges (1x1, odd, non-square, 4097 wide).

#include <QtTest>
#include <algorithm>

#include "image_test_data.h"

using namespace auglab;
using namespace imagetest;

class TestImageResize : public QObject {
    Q_OBJECT

private slots:
    void imageBasics();
    void resizeArea_data();
    void resizeArea();
};

void TestImageResize::imageBasics() {
    const Image img(5, 3, 4);
    QCOMPARE(img.stride, std::size_t(20));
    QCOMPARE(img.pixels.size(), std::size_t(60));
    QVERIFY(std::all_of(img.pixels.begin(), img.pixels.end(), [](std::uint8_t v) { return v == 0; }));
    Image padded = noise(5, 3, 4, 9);
    Image copy = padded;
    copy.stride = 23;
    copy.pixels.assign(23 * 3, 0xEE);
    for (int y = 0; y < 3; ++y) std::memcpy(copy.row(y), padded.row(y), 20);
    QVERIFY(samePixels(copy, padded));  // stride and padding are ignored
    copy.at(4, 2)[3] ^= 1;
    QVERIFY(!samePixels(copy, padded));
    QVERIFY(!samePixels(Image(5, 3, 3), Image(5, 3, 4)));
}

void TestImageResize::resizeArea_data() {
    QTest::addColumn<int>("sw");
    QTest::addColumn<int>("sh");
    QTest::addColumn<int>("dw");
    QTest::addColumn<int>("dh");
    QTest::addColumn<int>("channels");
    QTest::newRow("2x fast path") << 512 << 512 << 256 << 256 << 3;
    QTest::newRow("odd 2x rgba") << 451 << 300 << 225 << 150 << 4;
    QTest::newRow("non-integer") << 451 << 300 << 200 << 133 << 3;
    QTest::newRow("integer 3x") << 600 << 399 << 200 << 133 << 3;
    QTest::newRow("one axis") << 640 << 427 << 640 << 300 << 3;
    QTest::newRow("tiny") << 7 << 5 << 3 << 2 << 4;
    QTest::newRow("to 1x1") << 13 << 1 << 1 << 1 << 3;
    QTest::newRow("1x1 identity") << 1 << 1 << 1 << 1 << 3;
    QTest::newRow("4097 wide") << 4097 << 3 << 1000 << 2 << 3;
}

void TestImageResize::resizeArea() {
    QFETCH(int, sw);
    QFETCH(int, sh);
    QFETCH(int, dw);
    QFETCH(int, dh);
    QFETCH(int, channels);
    cv::Mat photo = cv::imread(sample("coffee.png").string());
    cv::resize(photo, photo, cv::Size(sw, sh), 0, 0, cv::INTER_LINEAR);
    if (channels == 4) cv::cvtColor(photo, photo, cv::COLOR_BGR2BGRA);
    const Image src = fromBgr(photo);
    const Image out = auglab::resizeArea(src, dw, dh);
    QCOMPARE(out.width, dw);
    QCOMPARE(out.height, dh);
    // Naive reference in doubles: the overlap of each source pixel with the output pixel's box.
    const double fx = double(sw) / dw, fy = double(sh) / dh;
    int worstRef = 0;
    for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x)
            for (int k = 0; k < channels; ++k) {
                double sum = 0;
                for (int j = int(y * fy); j < sh && j < (y + 1) * fy; ++j)
                    for (int i = int(x * fx); i < sw && i < (x + 1) * fx; ++i) {
                        const double ox = std::min(i + 1.0, (x + 1) * fx) - std::max(double(i), x * fx);
                        const double oy = std::min(j + 1.0, (y + 1) * fy) - std::max(double(j), y * fy);
                        sum += ox * oy * src.at(i, j)[k];
                    }
                worstRef = std::max(worstRef, std::abs(int(std::lround(sum / (fx * fy))) - out.at(x, y)[k]));
            }
    cv::Mat cvOut;
    cv::resize(photo, cvOut, cv::Size(dw, dh), 0, 0, cv::INTER_AREA);
    const Diff d = diff(out, fromBgr(cvOut));
    qInfo("vs naive: max %d; vs OpenCV INTER_AREA: mean %.4f max %d", worstRef, d.mean, d.max);
    QVERIFY(worstRef <= 1);  // the naive sum in doubles can land on the other side of a .5
    QVERIFY(d.max <= 1);     // OpenCV accumulates in float and rounds half to even
    if (2 * dw == sw && 2 * dh == sh) QCOMPARE(d.max, 0);  // both use (a+b+c+d+2)>>2
}

QTEST_APPLESS_MAIN(TestImageResize)
#include "test_image_resize.moc"
