// The decoded-image cache of the app: a byte budget bounds memory however many images are browsed,
// the least recently used go first, decodes are made at the level the grid asks for and replaced
// by a finer one only when asked, headers and broken files are remembered.

#include <QTemporaryDir>
#include <QtTest>

#include "image_cache.h"

using namespace auglab;

class TestImageCache : public QObject {
    Q_OBJECT

private slots:
    void staysWithinBudget();
    void keepsRecentlyUsed();
    void remembersErrors();
    void decodesAtTheLevelAskedFor();
    void remembersHeaders();
};

namespace {
QString sample(const char* f) { return QString(AUGLAB_SOURCE_DIR) + "/resources/samples/" + f; }
}  // namespace

void TestImageCache::staysWithinBudget() {
    // chelsea.png decodes to 451*300*3 bytes (+ a third for its levels): about 541 KB.
    const std::size_t budget = 2'000'000;
    ImageCache cache(budget);
    QTemporaryDir dir;
    for (int i = 0; i < 20; ++i) {
        const QString copy = dir.filePath(QString("c%1.png").arg(i));
        QVERIFY(QFile::copy(sample("chelsea.png"), copy));
        QString error;
        QVERIFY(cache.get(copy, 0, error));
        QVERIFY(error.isEmpty());
        QVERIFY2(cache.bytes() <= budget, qPrintable(QString::number(cache.bytes())));
    }
    QVERIFY(cache.bytes() >= budget / 2);  // it does keep images, up to the budget
}

void TestImageCache::keepsRecentlyUsed() {
    ImageCache cache(1'200'000);  // room for two decoded chelsea.png
    QTemporaryDir dir;
    QStringList files;
    for (int i = 0; i < 3; ++i) {
        files << dir.filePath(QString("c%1.png").arg(i));
        QVERIFY(QFile::copy(sample("chelsea.png"), files.last()));
    }
    QString error;
    auto a = cache.get(files[0], 0, error);
    cache.get(files[1], 0, error);
    QCOMPARE(cache.get(files[0], 0, error), a);  // a hit: the same decoded image, now the most recent
    cache.get(files[2], 0, error);               // evicts files[1], the least recently used
    QCOMPARE(cache.get(files[0], 0, error), a);
}

void TestImageCache::remembersErrors() {
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.png");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not an image");
    f.close();
    ImageCache cache;
    QString error;
    QVERIFY(!cache.get(bad, 2, error));
    QVERIFY(error.contains("bad.png"));
    QFile::remove(bad);  // not read again: the error is remembered
    QString again;
    QVERIFY(!cache.get(bad, 2, again));
    QCOMPARE(again, error);
}

void TestImageCache::decodesAtTheLevelAskedFor() {
    // rocket.jpg is 640x427: level 3 is 80x54, decoded at 1/4 and reduced once.
    ImageCache cache;
    const QString jpg = sample("rocket.jpg");
    QString error;
    const auto coarse = cache.get(jpg, 3, error);
    QVERIFY(coarse && error.isEmpty());
    QCOMPARE(coarse->firstLevel(), 3);
    QCOMPARE(coarse->width(), 640);
    QCOMPARE(coarse->level(3).width, 80);
    QCOMPARE(cache.bytes(), std::size_t(80 * 54 * 3) * 4 / 3);
    QCOMPARE(cache.get(jpg, 5, error), coarse);  // coarser: made from what is held
    const auto fine = cache.get(jpg, 1, error);  // finer: decoded again, in its place
    QVERIFY(fine != coarse);
    QCOMPARE(fine->firstLevel(), 1);
    QCOMPARE(cache.bytes(), std::size_t(320 * 214 * 3) * 4 / 3);
    QCOMPARE(cache.get(jpg, 3, error), fine);
    const auto whole = cache.get(jpg, 0, error);
    QCOMPARE(whole->firstLevel(), 0);
    QCOMPARE(whole->level(0).width, 640);
}

void TestImageCache::remembersHeaders() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("r.jpg");
    QVERIFY(QFile::copy(sample("rocket.jpg"), copy));
    ImageCache cache;
    ImageInfo info;
    QString error;
    QVERIFY(cache.info(copy, info, error));
    QCOMPARE(info.width, 640);
    QCOMPARE(info.height, 427);
    QVERIFY(QFile::remove(copy));  // not read again
    ImageInfo again;
    QVERIFY(cache.info(copy, again, error));
    QCOMPARE(again.height, 427);
    QVERIFY(!cache.info(dir.filePath("missing.png"), info, error));
    QVERIFY(error.contains("missing.png"));
}

QTEST_APPLESS_MAIN(TestImageCache)
#include "test_image_cache.moc"
