// COCO's mask encodings (annotations.h: rleFromMask, rleToString, rleFromString, maskFromPolygon)
// against hand-computed cases and against the real pycocotools: tests/data/annotations/reference/
// polygons.json and rle_strings.json hold what pycocotools 2.0.11 computes (frPyObjects + decode,
// encode) for the same polygons and masks; tests/data/annotations/make_reference.py made them.

#include <QtTest>

#include <string>
#include <vector>

#include "annotation_test_support.h"
#include "annotations.h"
#include "error.h"

using namespace auglab;
using namespace auglab::testing;

class TestCocoMasks : public QObject {
    Q_OBJECT

private slots:
    void rleHandComputed();
    void rleStringsMatchPycocotools_data();
    void rleStringsMatchPycocotools();
    void rleStringErrors_data();
    void rleStringErrors();
    void polygonsMatchPycocotools_data();
    void polygonsMatchPycocotools();
    void polygonRefusesHugeCoordinates();
};

void TestCocoMasks::rleHandComputed() {
    // A 3x2 mask, rows "011" and "001": column by column 0 0 | 1 0 | 1 1, runs 2, 1, 1, 2.
    Mask m;
    m.width = 3;
    m.height = 2;
    m.values = {0, 1, 1, 0, 0, 1};
    QCOMPARE(rleFromMask(m), (std::vector<std::uint32_t>{2, 1, 1, 2}));
    QVERIFY(maskFromRle({2, 1, 1, 2}, 3, 2) == m);
    // Values other than 1 count as inside.
    m.values = {0, 7, 255, 0, 0, 3};
    QCOMPARE(rleFromMask(m), (std::vector<std::uint32_t>{2, 1, 1, 2}));
    // Strings: each count in 5-bit groups + 48; from the fourth on, the difference from the count
    // two before. [1, 2, 3, 4]: '1' '2' '3', then 4 - 2 = 2: "1232". [1, 5, 2, 3]: 3 - 5 = -2 is
    // 30 in 5 bits with the sign bit set, one group: 48 + 30 = 'N'. 100 = 3 * 32 + 4: groups 4 (more
    // follow: + 32) and 3: 'T' '3'.
    QCOMPARE(rleToString({1, 2, 3, 4}), std::string("1232"));
    QCOMPARE(rleToString({1, 5, 2, 3}), std::string("152N"));
    QCOMPARE(rleToString({100}), std::string("T3"));
    // 16 has bit 4 set, which would read as negative: 48 + 16 + 32 = '`', then a group of 0.
    QCOMPARE(rleToString({16}), std::string("`0"));
    QCOMPARE(rleFromString("1232", "x"), (std::vector<std::uint32_t>{1, 2, 3, 4}));
    QCOMPARE(rleFromString("152N", "x"), (std::vector<std::uint32_t>{1, 5, 2, 3}));
    QCOMPARE(rleFromString("T3", "x"), (std::vector<std::uint32_t>{100}));
    QCOMPARE(rleFromString("", "x"), std::vector<std::uint32_t>{});
    try {
        maskFromRle({2, 1, 1}, 3, 2);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), QString("the RLE runs cover 4 pixels, a 3x2 mask has 6"));
    }
}

void TestCocoMasks::rleStringsMatchPycocotools_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<QString>("string");
    QTest::addColumn<QList<qint64>>("counts");
    const nlohmann::json ref = readJson(kAnnotationData / "reference/rle_strings.json");
    for (const nlohmann::json& c : ref["cases"]) {
        QList<qint64> counts;
        for (const nlohmann::json& n : c["counts"]) counts << n.get<qint64>();
        QTest::newRow(c["name"].get<std::string>().c_str())
            << c["width"].get<int>() << c["height"].get<int>()
            << QString::fromStdString(c["rle"].get<std::string>()) << counts;
    }
}

void TestCocoMasks::rleStringsMatchPycocotools() {
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(QString, string);
    QFETCH(QList<qint64>, counts);
    std::vector<std::uint32_t> runs;
    for (qint64 c : counts) runs.push_back(std::uint32_t(c));
    QCOMPARE(QString::fromStdString(rleToString(runs)), string);
    QCOMPARE(rleFromString(string.toStdString(), "ref"), runs);
    QCOMPARE(rleFromMask(maskFromRle(runs, width, height)), runs);
}

void TestCocoMasks::rleStringErrors_data() {
    QTest::addColumn<QString>("string");
    QTest::addColumn<QString>("what");
    // 'T' is 48 + 36: bit 5 says another group follows, and none does.
    QTest::newRow("truncated") << "1T"
                               << "the compressed RLE ends inside a number (truncated at character 2)";
    QTest::newRow("space") << "12 3"
                           << "character 2 (' ') is not part of a compressed RLE";
    QTest::newRow("beyond 'o'") << "1~"
                                << "character 1 ('~') is not part of a compressed RLE";
    // 'N' alone is -2, and the first counts are not differences.
    QTest::newRow("negative") << "N"
                              << "run 0 is -2, not a pixel count";
    QTest::newRow("too long") << "ooooooo1"
                              << "the number at character 0 is too long";
}

void TestCocoMasks::rleStringErrors() {
    QFETCH(QString, string);
    QFETCH(QString, what);
    try {
        rleFromString(string.toStdString(), "f.json: a.counts");
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString(e.what()), "f.json: a.counts: " + what);
    }
}

void TestCocoMasks::polygonsMatchPycocotools_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<QList<double>>("polygon");
    QTest::addColumn<QString>("string");
    QTest::addColumn<QStringList>("rows");
    const nlohmann::json ref = readJson(kAnnotationData / "reference/polygons.json");
    for (const nlohmann::json& c : ref["cases"]) {
        QList<double> xy;
        for (const nlohmann::json& v : c["polygon"]) xy << v.get<double>();
        QTest::newRow(c["name"].get<std::string>().c_str())
            << c["width"].get<int>() << c["height"].get<int>() << xy
            << QString::fromStdString(c["rle"].get<std::string>())
            << q(c["rows"].get<std::vector<std::string>>());
    }
}

void TestCocoMasks::polygonsMatchPycocotools() {
    // pycocotools' frPyObjects([polygon], h, w) then decode, for the same polygon and size.
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(QList<double>, polygon);
    QFETCH(QString, string);
    QFETCH(QStringList, rows);
    const Mask m = maskFromPolygon(std::vector<double>(polygon.begin(), polygon.end()), width, height);
    QCOMPARE(m.width, width);
    QCOMPARE(m.height, height);
    QCOMPARE(m.owner, -1);
    QCOMPARE(q(rowsOf(m)), rows);
    QCOMPARE(QString::fromStdString(rleToString(rleFromMask(m))), string);
}

void TestCocoMasks::polygonRefusesHugeCoordinates() {
    // Coordinates are traced in int on a 5x finer grid (as pycocotools does): far-away ones are
    // refused instead of overflowing or tracing billions of points.
    QVERIFY_THROWS_EXCEPTION(InputError, maskFromPolygon({0, 0, 2e6, 0, 0, 5}, 10, 10));
    QVERIFY_THROWS_EXCEPTION(InputError, maskFromPolygon({0, 0, qInf(), 0, 0, 5}, 10, 10));
    // Degenerate input: no points, one point, an empty image.
    QCOMPARE(maskFromPolygon({}, 3, 2).values, std::vector<std::uint8_t>(6, 0));
    QCOMPARE(maskFromPolygon({1, 1}, 3, 2).values, std::vector<std::uint8_t>(6, 0));
    QVERIFY(maskFromPolygon({0, 0, 1, 0, 1, 1}, 0, 0).values.empty());
}

QTEST_GUILESS_MAIN(TestCocoMasks)
#include "test_coco_masks.moc"
