// The decoded-image cache of the app: a byte budget bounds memory however many images are browsed,
// the least recently used go first, broken files are remembered with their error.

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
        QVERIFY(cache.get(copy, error));
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
    auto a = cache.get(files[0], error);
    cache.get(files[1], error);
    QCOMPARE(cache.get(files[0], error), a);  // a hit: the same decoded image, now the most recent
    cache.get(files[2], error);               // evicts files[1], the least recently used
    QCOMPARE(cache.get(files[0], error), a);
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
    QVERIFY(!cache.get(bad, error));
    QVERIFY(error.contains("bad.png"));
    QFile::remove(bad);  // not read again: the error is remembered
    QString again;
    QVERIFY(!cache.get(bad, again));
    QCOMPARE(again, error);
}

QTEST_APPLESS_MAIN(TestImageCache)
#include "test_image_cache.moc"
