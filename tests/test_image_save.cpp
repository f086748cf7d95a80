// Saving images: PNG/JPEG round trips (padded rows, alpha), JPEG quality, and atomic replacement:
// a failed save never touches the previous file and never leaves a temporary file behind.

#include <sys/resource.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "atomic_file.h"
#include "image_io.h"
#include "image_test_data.h"

using namespace auglab;
using namespace imagetest;

class TestImageSave : public QObject {
    Q_OBJECT

private slots:
    void saveRoundTrip_data();
    void saveRoundTrip();
    void jpegQuality();
    void jpegBytesAreOpenCvs_data();
    void jpegBytesAreOpenCvs();
    void saveIntoMissingFolder();
    void overwrite();
    void failedSaveKeepsOldFile_data();
    void failedSaveKeepsOldFile();
    void saveThroughSymlink();
    void textRoundTrip();
};

void TestImageSave::saveRoundTrip_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("padding");  // extra bytes at the end of each row
    QTest::addColumn<int>("loadedChannels");
    QTest::addColumn<bool>("exact");
    QTest::newRow("png rgb") << "a.png" << 3 << 0 << 3 << true;
    QTest::newRow("png rgba, padded rows") << "b.PNG" << 4 << 5 << 4 << true;
    QTest::newRow("jpg rgb") << "c.jpg" << 3 << 0 << 3 << false;
    QTest::newRow("jpeg rgba drops alpha, padded") << "d.JPEG" << 4 << 3 << 3 << false;
}

void TestImageSave::saveRoundTrip() {
    QFETCH(QString, name);
    QFETCH(int, channels);
    QFETCH(int, padding);
    QFETCH(int, loadedChannels);
    QFETCH(bool, exact);
    // A real photo (JPEG error on noise says nothing), in a buffer with padded rows full of junk.
    const cv::Mat bgr = cv::imread(sample("coffee.png").string());
    cv::Mat bgra;
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    bgra.forEach<cv::Vec4b>([](cv::Vec4b& p, const int* pos) { p[3] = std::uint8_t(pos[0] + pos[1]); });
    const Image packed = fromBgr(channels == 4 ? bgra : bgr);
    Image padded = packed;
    padded.stride = packed.stride + std::size_t(padding);
    padded.pixels.assign(padded.stride * std::size_t(packed.height), 0xA5);
    for (int y = 0; y < packed.height; ++y) std::memcpy(padded.row(y), packed.row(y), packed.stride);

    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    saveImage(fsPath(path), padded, 95);
    const LoadedImage loaded = loadImage(fsPath(path));
    QCOMPARE(loaded.image.channels, loadedChannels);
    if (exact) {
        QVERIFY(samePixels(loaded.image, packed));
        return;
    }
    // 4:2:0 chroma (as cv2.imwrite writes): the loss sits in the colour of sharp edges. Measured
    // mean 2.35, max 62 on this photo; a wrong colour matrix or a row misplaced by the stride
    // costs tens of levels of mean difference.
    const Diff d = diff(loaded.image, fromBgr(bgr));
    qInfo("JPEG q95 round trip: mean |diff| %.3f, max %d", d.mean, d.max);
    QVERIFY(d.mean < 3.0 && d.max < 80);
}

void TestImageSave::jpegBytesAreOpenCvs_data() {
    QTest::addColumn<int>("quality");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("padding");
    QTest::newRow("q95 rgb") << 95 << 3 << 0;
    QTest::newRow("q90 rgb, padded rows") << 90 << 3 << 7;
    QTest::newRow("q50 rgba (alpha ignored)") << 50 << 4 << 0;
    QTest::newRow("q100 rgb") << 100 << 3 << 0;
}

void TestImageSave::jpegBytesAreOpenCvs() {
    QFETCH(int, quality);
    QFETCH(int, channels);
    QFETCH(int, padding);
    // AugLab writes JPEG as cv2.imwrite does (libjpeg-turbo, accurate DCT, 4:2:0, standard tables,
    // no optimised Huffman coding): the very same bytes, so an offline-augmented dataset is what a
    // Python pipeline would have written.
    const cv::Mat bgr = cv::imread(sample("chelsea.png").string());
    cv::Mat ours = bgr;
    if (channels == 4) cv::cvtColor(bgr, ours, cv::COLOR_BGR2BGRA);
    const Image packed = fromBgr(ours);
    Image image = packed;
    image.stride = packed.stride + std::size_t(padding);
    image.pixels.assign(image.stride * std::size_t(packed.height), 0x5A);
    for (int y = 0; y < packed.height; ++y) std::memcpy(image.row(y), packed.row(y), packed.stride);
    const Bytes expected = encodeCv(bgr, ".jpg", {cv::IMWRITE_JPEG_QUALITY, quality});
    const Bytes written = encodeImage(image, ImageFormat::Jpeg, quality);
    QCOMPARE(written.size(), expected.size());
    QVERIFY(written == expected);
}

void TestImageSave::jpegQuality() {
    const Image img = fromBgr(cv::imread(sample("chelsea.png").string()));
    QTemporaryDir dir;
    const QString path = dir.filePath("never-written.jpg");
    for (int bad : {0, -5, 101}) {
        QVERIFY(inputError([&] { encodeImage(img, ImageFormat::Jpeg, bad); }).contains("out of range"));
        QVERIFY(inputError([&] { saveImage(fsPath(path), img, bad); }).contains(path));
    }
    QVERIFY(!QFileInfo::exists(path));
    const auto error = [&](int q) {
        return diff(decodeImage(encodeImage(img, ImageFormat::Jpeg, q), "q").image, img).mean;
    };
    const double e1 = error(1), e50 = error(50), e100 = error(100);
    qInfo("JPEG mean |diff| at quality 1/50/100: %.2f %.2f %.2f", e1, e50, e100);
    QVERIFY(e1 > e50 && e50 > e100 && e100 < 1.0);
    QVERIFY(encodeImage(img, ImageFormat::Png, 0).size() > 0);  // quality means nothing to PNG
}

void TestImageSave::saveIntoMissingFolder() {
    QTemporaryDir dir;
    const QString path = dir.filePath("missing/out.png");
    const QString message = inputError([&] { saveImage(fsPath(path), noise(4, 4, 3, 1)); });
    QVERIFY2(message.contains(path) && message.contains("does not exist"), qPrintable(message));
    QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
    // A file where the folder should be.
    writeBytesTo(dir.filePath("file.png"), "x");
    const QString inFile = dir.filePath("file.png/out.png");
    const QString notFolder = inputError([&] { saveImage(fsPath(inFile), noise(4, 4, 3, 1)); });
    QVERIFY2(notFolder.contains(inFile) && notFolder.contains("is not a folder"), qPrintable(notFolder));
}

void TestImageSave::overwrite() {
    QTemporaryDir dir;
    const QString path = dir.filePath("out.png");
    saveImage(fsPath(path), noise(8, 8, 3, 1));
    namespace fs = std::filesystem;
    const fs::perms perms = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read;
    fs::permissions(fsPath(path), perms);
    const Image second = noise(9, 7, 4, 2);
    saveImage(fsPath(path), second);
    QVERIFY(samePixels(loadImage(fsPath(path)).image, second));
    QVERIFY(fs::status(fsPath(path)).permissions() == perms);  // the replaced file's mode is kept
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"out.png"});
}

void TestImageSave::failedSaveKeepsOldFile_data() {
    QTest::addColumn<QString>("how");
    QTest::addColumn<bool>("userFault");  // an InputError: the user's fault (CLI exit 2), else a RuntimeError
    QTest::newRow("bad extension") << "bad extension" << true;
    QTest::newRow("bad quality") << "bad quality" << true;
    QTest::newRow("target is a folder") << "folder" << true;
    QTest::newRow("disk full mid-write") << "file size limit" << false;
}

void TestImageSave::failedSaveKeepsOldFile() {
    QFETCH(QString, how);
    QFETCH(bool, userFault);
    QTemporaryDir dir;
    const QString old = dir.filePath("keep.jpg");
    saveImage(fsPath(old), noise(16, 16, 3, 1));
    const QByteArray before = qbytes(readFileBytes(fsPath(old)));
    const Image big = noise(300, 300, 3, 2);
    QStringList expected{"keep.jpg"};
    bool threw = false;
    try {
        if (how == "bad extension") {
            saveImage(fsPath(dir.filePath("keep.jpg.bmp")), big);
        } else if (how == "bad quality") {
            saveImage(fsPath(old), big, 0);
        } else if (how == "folder") {
            QVERIFY(QDir(dir.path()).mkdir("sub.png"));
            expected.append("sub.png");
            saveImage(fsPath(dir.filePath("sub.png")), big);
        } else {
            // Writes beyond 4 KiB fail with EFBIG, as on a full disk, after the temp file exists.
            std::signal(SIGXFSZ, SIG_IGN);
            rlimit saved{};
            getrlimit(RLIMIT_FSIZE, &saved);
            rlimit small = saved;
            small.rlim_cur = 4096;
            setrlimit(RLIMIT_FSIZE, &small);
            try {
                saveImage(fsPath(old), big, 100);
            } catch (...) {
                setrlimit(RLIMIT_FSIZE, &saved);
                throw;
            }
            setrlimit(RLIMIT_FSIZE, &saved);
        }
    } catch (const std::runtime_error& e) {
        threw = true;
        QCOMPARE(dynamic_cast<const InputError*>(&e) != nullptr, userFault);
        QCOMPARE(dynamic_cast<const RuntimeError*>(&e) != nullptr, !userFault);
        qInfo("%s", e.what());
        QVERIFY(QString::fromUtf8(e.what()).contains(dir.path()));
    }
    QVERIFY(threw);
    QCOMPARE(qbytes(readFileBytes(fsPath(old))), before);
    QDir folder(dir.path());
    QCOMPARE(folder.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name), expected);
}

void TestImageSave::saveThroughSymlink() {
    // Like QSaveFile: the file the link points to is replaced, the link stays a link.
    QTemporaryDir dir;
    const QString target = dir.filePath("real.png"), link = dir.filePath("link.png");
    saveImage(fsPath(target), noise(5, 5, 3, 1));
    QVERIFY(QFile::link(target, link));
    const Image second = noise(6, 4, 3, 2);
    saveImage(fsPath(link), second);
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(samePixels(loadImage(fsPath(target)).image, second));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name),
             QStringList({"link.png", "real.png"}));
}

void TestImageSave::textRoundTrip() {
    QTemporaryDir dir;
    const auto path = fsPath(dir.filePath(QString::fromUtf8("пресет.auglab.json")));
    const std::string text = "{\"name\": \"ü 画像\"}\n";
    writeFileAtomically(path, text);
    QCOMPARE(readFileText(path), text);
    writeFileAtomically(path, std::string_view());
    QCOMPARE(readFileText(path), std::string());
    QVERIFY(readFileBytes(path).empty());
    QVERIFY(inputError([&] { readFileText(fsPath(dir.filePath("no.json"))); }).contains("no.json"));
}

QTEST_APPLESS_MAIN(TestImageSave)
#include "test_image_save.moc"
