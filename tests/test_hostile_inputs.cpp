// Hostile inputs (issue 31): every reproducer found by trying AugLab as a hostile user would, as a
// test. Each of them crashed the tool, exhausted its memory, took quadratic time, wrote outside the
// output folder, lost a file, or failed with an error that did not say what and where. TestHostileFiles
// calls the readers in process; TestHostileCli drives the real auglab-cli as a user does and checks
// what it left on disk, byte for byte.

#include <sys/resource.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "suite_main.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "annotations.h"
#include "augment_test_support.h"
#include "cli_test_support.h"
#include "error.h"
#include "image_io.h"
#include "preset.h"
#include "ops/resize.h"
#include "sampler.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;
namespace fs = std::filesystem;

namespace {

using Run = CliRun;

std::string nested(std::size_t depth, const std::string& open, const std::string& inner, const std::string& close) {
    std::string s;
    s.reserve(depth * (open.size() + close.size()) + inner.size());
    for (std::size_t i = 0; i < depth; ++i) s += open;
    s += inner;
    for (std::size_t i = 0; i < depth; ++i) s += close;
    return s;
}

// A COCO file of one 64x48 image with one box, whose annotation carries a member nested `depth`
// arrays deep (kept members are copied to the outputs' COCO file).
std::string deepCoco(std::size_t depth) {
    return R"({"images": [{"id": 1, "file_name": "a.png", "width": 64, "height": 48}], "categories": [{"id": 1, "name": "x"}],
      "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [4, 4, 20, 20], "extra": )" +
           nested(depth, "[", "1", "]") + "}]}";
}

// A preset whose pipeline is one op inside `depth` nested sequential groups.
std::string deepPreset(std::size_t depth) {
    return R"({"format": "auglab-preset", "version": 1, "pipeline": [)" +
           nested(depth, R"({"group": "sequential", "p": 1, "children": [)", R"({"op": "horizontal_flip"})", "]}") +
           "]}";
}

// some_of groups drawing 1000 children with replacement, three deep: 10^9 ops for one sample.
const char* const kExplodingPreset = R"({"format": "auglab-preset", "version": 1, "pipeline": [
  {"group": "some_of", "n": 1000, "replace": true, "children": [
    {"group": "some_of", "n": 1000, "replace": true, "children": [
      {"group": "some_of", "n": 1000, "replace": true, "children": [{"op": "horizontal_flip"}]}]}]}]})";

bool writeText(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    return bool(out);
}

QString q(const fs::path& p) {
    return QString::fromStdString(p.string());
}

// The error an InputError-throwing call gives, or "" when it did not throw one.
template <typename F>
QString inputError(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

const char* const kFlipPreset = R"({"format": "auglab-preset", "version": 1, "seed": 3, "pipeline": [
  {"op": "affine", "rotate_deg": [-10, 10], "p": 1}, {"op": "horizontal_flip", "p": 0.5}]})";

}  // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT

private slots:
    void deeplyNestedCocoMemberRefused();
    void deeplyNestedPresetRefused();
    void opCountBoundedByValidation();
    void framesBoundedLikeImages();
    void integersWrittenAsFloatsAccepted();
    void hugeClassCountRefused();
    void gifLargerThanItsBytesRefused();
    void pngOfZeroPixelsNamed();
    void yoloKeypointOnTheEdgeKept();
    void moreKeypointsThanKptShapeSkipped();
    void vocThatIsNotXmlRefused_data();
    void vocThatIsNotXmlRefused();
    void labelLinksLeavingTheDatasetRefused();
    void instanceMasksBoundedPerImage();
    void manyObjectsReadInLinearTime();

private:
    QTemporaryDir dir_;
};

void TestHostileFiles::deeplyNestedCocoMemberRefused() {
    // 100,000 levels killed augment (stack overflow in the copy of the kept member); refused now,
    // with where.
    const fs::path file = fs::path(dir_.path().toStdString()) / "deep/instances.json";
    QVERIFY(writeText(file, deepCoco(100000)));
    LabelReport report;
    const QString err = inputError([&] { (void)CocoLabels::load(file, report); });
    QVERIFY2(err.contains("annotations[0].extra[0][0]") && err.contains("nested deeper than 256"), qPrintable(err));
    // Within the limit it reads, and the member goes to the output's COCO file whole.
    QVERIFY(writeText(file, deepCoco(200)));
    const CocoLabels ok = CocoLabels::load(file, report);
    QCOMPARE(ok.labelsFor("a.png", 64, 48, report).boxes.size(), std::size_t(1));
}

void TestHostileFiles::deeplyNestedPresetRefused() {
    // 11,000 levels killed validate, render, augment and Python's Pipeline.load; memory grew with the
    // square of the depth.
    const QString err = inputError([] { (void)parsePreset(deepPreset(11000), "deep.auglab.json"); });
    QVERIFY2(err.startsWith("deep.auglab.json: pipeline[0].children[0].children[0]") &&
                 err.contains("nested deeper than 256 levels"),
             qPrintable(err.left(300)));
    // 100 groups deep (200 JSON levels) is still a preset.
    QCOMPARE(parsePreset(deepPreset(100), "ok").pipeline.size(), std::size_t(1));
}

void TestHostileFiles::opCountBoundedByValidation() {
    // It passed validate, then one sample took 3.7 GB and ended in std::bad_alloc.
    const QString err = inputError([] { (void)parsePreset(kExplodingPreset, "x"); });
    QVERIFY2(err.contains("pipeline[0].children[0]") && err.contains("up to 1e+09 ops") && err.contains("10000"),
             qPrintable(err));
    // 100 draws of 100 draws (10,000 ops) is the bound itself: allowed.
    const std::string atBound = R"({"format": "auglab-preset", "version": 1, "pipeline": [
      {"group": "some_of", "n": 100, "replace": true, "children": [
        {"group": "some_of", "n": 100, "replace": true, "children": [{"op": "horizontal_flip"}]}]}]})";
    QCOMPARE(parsePreset(atBound, "ok").pipeline.size(), std::size_t(1));
}

void TestHostileFiles::framesBoundedLikeImages() {
    // smallest_max_size on a 1 x 50,000,000 image: 1024 x 5.1e10 overflowed an int (undefined
    // behaviour, UBSan's report through the Python module). Every frame a sample makes is an image
    // the render holds, bounded as the images AugLab reads are.
    const Preset p = parsePreset(R"({"format": "auglab-preset", "version": 1, "pipeline": [
        {"op": "smallest_max_size", "max_size": [1024, 1024], "p": 1}]})",
                                 "x");
    const QString err = inputError([&] { (void)samplePipeline(p.pipeline, 1, 0, 1, 50'000'000); });
    QVERIFY2(err.startsWith("smallest_max_size makes a ") && err.contains("(H x W) of the 50000000 x 1 one") &&
                 err.contains("100 megapixel limit"),
             qPrintable(err));
    const Replay ok = samplePipeline(p.pipeline, 1, 0, 640, 480);
    QCOMPARE(std::get<ResizeParams>(ok.ops[0].params).outWidth, 1365);  // round(640 * 1024 / 480)
}

void TestHostileFiles::integersWrittenAsFloatsAccepted() {
    // The bundled JSON Schema's "integer" allows 1.0; the reader refused "seed": 1.0 and "version": 1.0.
    const Preset p = parsePreset(R"({"format": "auglab-preset", "version": 1.0, "seed": 7.0, "pipeline": [
        {"op": "coarse_dropout", "holes": [1.0, 8], "p": 1}]})",
                                 "floats");
    QCOMPARE(p.seed, std::uint64_t(7));
    const QString half = inputError([] {
        (void)parsePreset(R"({"format": "auglab-preset", "version": 1, "seed": 7.5, "pipeline": []})", "x");
    });
    QCOMPARE(half, QString("seed: expected a non-negative integer, got 7.5"));
}

void TestHostileFiles::hugeClassCountRefused() {
    // nc: 100000000 without names made up 10^8 names: 2 GB, then std::bad_alloc without the file's name.
    const fs::path file = fs::path(dir_.path().toStdString()) / "nc/data.yaml";
    QVERIFY(writeText(file, "path: .\ntrain: images\nnc: 100000000\n"));
    QElapsedTimer t;
    t.start();
    const QString err = inputError([&] { (void)readYoloDataYaml(file); });
    QVERIFY2(err.contains(q(file)) && err.contains("nc: 100000000") && err.contains("100000"), qPrintable(err));
    QVERIFY(t.elapsed() < 5000);  // refused before anything is made (it took 2 GB and seconds)
    QVERIFY(writeText(file, "path: .\ntrain: images\nnc: 3\n"));
    QCOMPARE(readYoloDataYaml(file).names.size(), std::size_t(3));
}

void TestHostileFiles::gifLargerThanItsBytesRefused() {
    // A 29-byte GIF whose screen and frame claim 9000x9000 (under the 100 MP cap): stb allocated
    // the whole screen (324 MB) and decoded for seconds. Its LZW data cannot fill more than a few
    // hundred thousand pixels.
    QByteArray gif("GIF89a");
    const auto u16 = [&](int v) { gif.append(char(v & 0xFF)).append(char(v >> 8)); };
    u16(9000);
    u16(9000);
    gif.append(char(0)).append(char(0)).append(char(0));  // no colour table
    gif.append(char(0x2C));
    u16(0);
    u16(0);
    u16(9000);
    u16(9000);
    gif.append(char(0));                                          // no local table
    gif.append(char(2)).append(char(2)).append(char(0x4C)).append(char(0x01)).append(char(0));
    gif.append(char(0x3B));
    const fs::path file = fs::path(dir_.path().toStdString()) / "claims.gif";
    QVERIFY(writeText(file, gif.toStdString()));
    const QString err = inputError([&] { (void)loadImage(file); });
    QVERIFY2(err.contains("claims.gif") && err.contains("9000x9000") && err.contains("29 bytes"), qPrintable(err));
}

void TestHostileFiles::pngOfZeroPixelsNamed() {
    // A PNG whose header says 0x0 was reported as "not a readable JPEG".
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    png.append(QByteArray("\0\0\0\x0dIHDR", 8));
    png.append(QByteArray(8, '\0'));                        // width 0, height 0
    png.append(QByteArray("\x08\x02\0\0\0", 5));            // 8-bit RGB
    png.append(QByteArray("\0\0\0\0", 4));                  // CRC (never reached)
    const fs::path file = fs::path(dir_.path().toStdString()) / "empty.png";
    QVERIFY(writeText(file, png.toStdString()));
    const QString err = inputError([&] { (void)loadImage(file); });
    QVERIFY2(err.contains("empty.png") && err.contains("PNG header says 0x0") && !err.contains("JPEG"),
             qPrintable(err));
}

void TestHostileFiles::yoloKeypointOnTheEdgeKept() {
    // x = 1.0 is the right edge, x = W: the reader took it, then the engine refused it (outside
    // [0, W)) with no file or line. It is put on the last column instead, as Albumentations takes it.
    const fs::path file = fs::path(dir_.path().toStdString()) / "edge/p.txt";
    QVERIFY(writeText(file, "0 0.5 0.5 0.5 0.5 1.0 0.5 2 0.25 1.0 2\n"));
    LabelReport report;
    const Targets t = readYoloLabels(file, 32, 24, {"person"}, report, 3, 2);
    QVERIFY2(report.skipped.empty(), report.skipped.empty() ? "" : report.skipped.front().c_str());
    QCOMPARE(t.keypoints.size(), std::size_t(2));
    QVERIFY(t.keypoints[0].x < 32 && t.keypoints[0].x > 31.99);
    QCOMPARE(t.keypoints[0].y, 12.0);
    QVERIFY(t.keypoints[1].y < 24 && t.keypoints[1].y > 23.99);
}

void TestHostileFiles::moreKeypointsThanKptShapeSkipped() {
    // kpt_shape [2, 3] and a line of 3 keypoints: accepted silently before.
    const fs::path file = fs::path(dir_.path().toStdString()) / "kpt/p.txt";
    QVERIFY(writeText(file, "0 0.5 0.5 0.5 0.5 0.1 0.1 2 0.2 0.2 2 0.3 0.3 2\n0 0.5 0.5 0.2 0.2 0.1 0.1 2 0.2 0.2 2\n"));
    LabelReport report;
    const Targets t = readYoloLabels(file, 32, 24, {"person"}, report, 3, 2);
    QCOMPARE(t.boxes.size(), std::size_t(1));  // the second line
    QCOMPARE(report.skipped.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(report.skipped[0]).contains("p.txt:1: 3 keypoints, but data.yaml's kpt_shape declares 2"),
             report.skipped[0].c_str());
}

void TestHostileFiles::vocThatIsNotXmlRefused_data() {
    QTest::addColumn<QByteArray>("xml");
    QTest::addColumn<QString>("message");
    const QByteArray object = "<object><name>cat</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>9</xmax>"
                              "<ymax>9</ymax></bndbox></object>";
    QTest::newRow("control character") << QByteArray("<annotation>\n<size><width>32</width><height>24</height></size>\n"
                                                     "<object><name>c\x01t</name></object>\n</annotation>")
                                       << QString(":3: invalid XML: character U+0001 is not allowed in XML");
    QTest::newRow("bytes not UTF-8") << "<annotation>\n" + object + "\n<folder>caf\xe9</folder>\n</annotation>"
                                     << QString(":3: invalid XML: bytes that are not UTF-8 text");
    QTest::newRow("two roots") << "<annotation>" + object + "</annotation>\n<annotation></annotation>"
                               << QString("invalid XML: more than one root element");
}

void TestHostileFiles::vocThatIsNotXmlRefused() {
    // pugixml parses leniently: such text went into outputs that XML readers refuse.
    QFETCH(QByteArray, xml);
    QFETCH(QString, message);
    const fs::path file = fs::path(dir_.path().toStdString()) / "voc/a.xml";
    QVERIFY(writeText(file, xml.toStdString()));
    std::vector<std::string> names;
    LabelReport report;
    const QString err = inputError([&] { (void)readVocXml(file, names, report); });
    QVERIFY2(err.contains("a.xml") && err.contains(message), qPrintable(err));
}

void TestHostileFiles::labelLinksLeavingTheDatasetRefused() {
    // A label file that is a link out of the dataset was read and its lines quoted in reports; a
    // link to nothing was taken as "no objects" without a word.
    const fs::path root = fs::path(dir_.path().toStdString()) / "linked";
    const fs::path secret = fs::path(dir_.path().toStdString()) / "secret.txt";
    QVERIFY(writeText(secret, "SECRET-TOKEN 1 2 3 4\n"));
    QVERIFY(writeText(root / "labels/a.txt", "0 0.5 0.5 0.2 0.2\n"));
    QVERIFY(writeText(root / "labels/inside.txt", "0 0.5 0.5 0.2 0.2\n"));
    fs::create_symlink(secret, root / "labels/b.txt");
    fs::create_symlink(root / "labels/gone.txt", root / "labels/c.txt");
    fs::create_symlink(root / "labels/inside.txt", root / "labels/d.txt");  // inside: fine
    LabelReport report;
    const std::optional<LabelledDataset> d = detectLabels(root, report);
    QVERIFY(d && d->format() == LabelFormat::Yolo);
    QCOMPARE(d->labelsFor(root / "images/a.png", 64, 48, report).boxes.size(), std::size_t(1));
    QCOMPARE(d->labelsFor(root / "images/d.png", 64, 48, report).boxes.size(), std::size_t(1));
    const QString out = inputError([&] { (void)d->labelsFor(root / "images/b.png", 64, 48, report); });
    QVERIFY2(out.contains("labels/b.txt") && out.contains("leads outside the dataset folder") &&
                 !out.contains("SECRET"),
             qPrintable(out));
    const QString dangling = inputError([&] { (void)d->labelsFor(root / "images/c.png", 64, 48, report); });
    QVERIFY2(dangling.contains("labels/c.txt") && dangling.contains("symbolic link to nothing"), qPrintable(dangling));
    QVERIFY(report.skipped.empty());
}

void TestHostileFiles::instanceMasksBoundedPerImage() {
    // Instance masks are held at the image's size: 9,000 small polygons on a 640x480 image took 7 GB
    // (render --overlays) and would have been killed for memory on most machines. Refused for that
    // image, named, before any mask is made; boxes alone are nothing to hold.
    const auto coco = [](int n, bool segmented) {
        std::string anns;
        for (int i = 0; i < n; ++i) {
            const std::string x = std::to_string(10 + i % 600), y = std::to_string(10 + (i / 600) % 440);
            const std::string x8 = std::to_string(18 + i % 600), y8 = std::to_string(18 + (i / 600) % 440);
            if (i > 0) anns += ',';
            anns += R"({"id": )";
            anns += std::to_string(i + 1);
            anns += R"(, "image_id": 1, "category_id": 1, "bbox": [)";
            anns += x + ", " + y + ", 8, 8]";
            if (segmented) anns += R"(, "segmentation": [[)" + x + "," + y + "," + x8 + "," + y + "," + x + "," + y8 + "]]";
            anns += '}';
        }
        return R"({"images": [{"id": 1, "file_name": "a.png", "width": 640, "height": 480}], "categories": [{"id": 1, "name": "x"}], "annotations": [)" +
               anns + "]}";
    };
    const fs::path file = fs::path(dir_.path().toStdString()) / "crowd/instances.json";
    QVERIFY(writeText(file, coco(9000, true)));
    LabelReport report;
    const CocoLabels crowd = CocoLabels::load(file, report);
    const QString err = inputError([&] { (void)crowd.labelsFor("a.png", 640, 480, report); });
    QVERIFY2(err.contains("instances.json: images[0] ('a.png'): 9000 segmented annotations on a 640x480 image") &&
                 err.contains("2765 MB") && err.contains("2000 MB"),
             qPrintable(err));
    QVERIFY(writeText(file, coco(9000, false)));
    QCOMPARE(CocoLabels::load(file, report).labelsFor("a.png", 640, 480, report).boxes.size(), std::size_t(9000));
    QVERIFY(writeText(file, coco(500, true)));
    QCOMPARE(CocoLabels::load(file, report).labelsFor("a.png", 640, 480, report).masks.size(), std::size_t(500));
}

void TestHostileFiles::manyObjectsReadInLinearTime() {
    // Hang guards, not timings: each reader took time growing with the square of the number of objects
    // (200,000 YOLO pose objects past 100 s, 100,000 VOC objects past 30 s). Linear, each takes about a
    // second here; the bound only catches a quadratic reader (or a debugger attached).
    const fs::path base = fs::path(dir_.path().toStdString()) / "many";
    std::string yolo;
    for (int i = 0; i < 200000; ++i) yolo += "0 0.5 0.5 0.2 0.2 0.4 0.4 2 0.6 0.6 1\n";
    QVERIFY(writeText(base / "pose.txt", yolo));
    std::string voc = "<annotation><size><width>640</width><height>480</height><depth>3</depth></size>\n";
    for (int i = 0; i < 100000; ++i)
        voc += "<object><name>cat</name><bndbox><xmin>10</xmin><ymin>10</ymin><xmax>90</xmax><ymax>90</ymax>"
               "</bndbox></object>\n";
    voc += "</annotation>\n";
    QVERIFY(writeText(base / "many.xml", voc));
    QElapsedTimer t;
    t.start();
    LabelReport report;
    const Targets pose = readYoloLabels(base / "pose.txt", 640, 480, {"person"}, report, 3, 2);
    QCOMPARE(pose.keypoints.size(), std::size_t(400000));
    const std::string back = yoloLabelText(pose, 640, 480, 2);
    QCOMPARE(std::count(back.begin(), back.end(), '\n'), std::ptrdiff_t(200000));
    std::vector<std::string> names;
    const Targets boxes = readVocXml(base / "many.xml", names, report);
    QCOMPARE(boxes.boxes.size(), std::size_t(100000));
    QVERIFY(report.skipped.empty());
    QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed()) + " ms"));
}

class TestHostileCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void manifestMemoryPerOutputIsSmall();  // first: the peak of this process's children is its own
    void deepJsonNeverCrashes();
    void explodingPresetRefusedByValidate();
    void outputLinkLeavingTheFolderNotFollowed();
    void overwriteNeverDeletesThroughALink();
    void inputsSharingALabelFileFail();
    void cocoImagesAndFilesMustMatch();
    void nameTooLongFailsThatInputAlone();
    void applyWritesAllOrNothing();
    void replayOfNonUtf8PartnerRefusedFirst();
    void keypointOnTheEdgeApplies();
    void labelLinkLeavingTheDatasetFailsThatInput();

private:
    QTemporaryDir dir_;
    QString preset_;
};

void TestHostileCli::initTestCase() {
    QVERIFY(dir_.isValid());
    preset_ = dir_.filePath("flip.auglab.json");
    QVERIFY(writeBytes(preset_, kFlipPreset));
}

void TestHostileCli::deepJsonNeverCrashes() {
    QTemporaryDir d;
    const QString ds = d.filePath("coco");
    writePhoto(ds + "/images/a.png", "chelsea.png", 64, 48);
    QVERIFY(writeBytes(ds + "/annotations/instances.json", QByteArray::fromStdString(deepCoco(100000))));
    const Run a = cli({"augment", "--preset", preset_, "--input", ds, "--output", d.filePath("out"), "--backend", "cpu"});
    QCOMPARE(a.code, 2);  // a crash is -1
    QVERIFY2(a.err.contains("instances.json") && a.err.contains("nested deeper than 256"), qPrintable(a.err.left(500)));
    QVERIFY(!QFileInfo::exists(d.filePath("out")));
    const Run r = cli({"render", "--preset", preset_, "--dir", ds, "--overlays", "--out", d.filePath("sheet.png"),
                       "--grid", "2x1", "--backend", "cpu"});
    QVERIFY2(r.code == 2 && r.err.contains("nested deeper than 256"), qPrintable(r.err.left(500)));
    QVERIFY(writeBytes(d.filePath("deep.auglab.json"), QByteArray::fromStdString(deepPreset(11000))));
    const Run v = cli({"validate", d.filePath("deep.auglab.json")});
    QCOMPARE(v.code, 2);
    QVERIFY2(v.err.contains("nested deeper than 256 levels"), qPrintable(v.err.left(500)));
}

void TestHostileCli::explodingPresetRefusedByValidate() {
    QTemporaryDir d;
    QVERIFY(writeBytes(d.filePath("x.auglab.json"), kExplodingPreset));
    const Run v = cli({"validate", d.filePath("x.auglab.json")});
    QCOMPARE(v.code, 2);
    QVERIFY2(v.err.contains("more than the 10000 a sample may run"), qPrintable(v.err));
}

namespace {

QStringList augmentArgs(const QString& preset, const QString& in, const QString& out) {
    return {"augment", "--preset", preset, "--input", in, "--output", out, "--backend", "cpu", "--jobs", "1"};
}

}  // namespace

void TestHostileCli::outputLinkLeavingTheFolderNotFollowed() {
    // out/sub -> elsewhere/: a resumed run wrote its missing outputs there.
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out"), elsewhere = d.filePath("elsewhere");
    writePhoto(in + "/sub/a.png", "chelsea.png", 64, 48);
    writePhoto(in + "/b.png", "coffee.png", 64, 48);
    QCOMPARE(cli(augmentArgs(preset_, in, out)).code, 0);
    QVERIFY(QDir(out + "/sub").removeRecursively());
    QVERIFY(QDir().mkpath(elsewhere));
    QVERIFY(writeBytes(elsewhere + "/keep.txt", "mine"));
    QVERIFY(QFile::link(elsewhere, out + "/sub"));
    const Snapshot before = snapshot(elsewhere);
    const Run r = cli(augmentArgs(preset_, in, out));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("sub/a.png") && r.err.contains("is a symbolic link to") &&
                 r.err.contains("outside --output"),
             qPrintable(r.err));
    QVERIFY(snapshot(elsewhere) == before);  // nothing written there
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);  // b.png's output, from the first run
    QCOMPARE(m.failed.size(), 1);
}

void TestHostileCli::overwriteNeverDeletesThroughALink() {
    // --overwrite deleted, through the link, the files the old manifest names.
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out"), elsewhere = d.filePath("elsewhere");
    writePhoto(in + "/sub/a.png", "chelsea.png", 64, 48);
    QCOMPARE(cli(augmentArgs(preset_, in, out)).code, 0);
    QVERIFY(QDir().rename(out + "/sub", elsewhere));  // the user's files now, sub/a_aug0.png among them
    QVERIFY(QFile::link(elsewhere, out + "/sub"));
    const Snapshot before = snapshot(elsewhere);
    QCOMPARE(before.size(), std::size_t(1));
    const Run r = cli(augmentArgs(preset_, in, out) + QStringList{"--copies", "2", "--overwrite"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("not removed") && r.err.contains("is a symbolic link to"), qPrintable(r.err));
    QVERIFY(snapshot(elsewhere) == before);  // neither deleted nor rewritten
}

void TestHostileCli::inputsSharingALabelFileFail() {
    // images/a.png and a root-level a.png both read labels/a.txt and wrote labels/a_aug0.txt: the
    // second overwrote the first's labels.
    QTemporaryDir d;
    const QString ds = d.filePath("ds"), out = d.filePath("out");
    writePhoto(ds + "/images/a.png", "chelsea.png", 64, 48);
    writePhoto(ds + "/a.png", "coffee.png", 64, 48);
    writePhoto(ds + "/images/b.png", "rocket.jpg", 64, 48);
    QVERIFY(writeBytes(ds + "/labels/a.txt", "0 0.5 0.5 0.4 0.4\n"));
    QVERIFY(writeBytes(ds + "/labels/b.txt", "0 0.5 0.5 0.2 0.2\n"));
    const Run r = cli(augmentArgs(preset_, ds, out));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("'a.png', 'images/a.png' would all take their labels from") && r.err.contains("labels/a.txt"),
             qPrintable(r.err));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);
    QCOMPARE(m.ok[0]["input"].toString(), QString("images/b.png"));
    QCOMPARE(m.failed.size(), 2);
    QVERIFY(!QFileInfo::exists(out + "/labels/a_aug0.txt"));
    QVERIFY(QFileInfo::exists(out + "/labels/b_aug0.txt"));
}

void TestHostileCli::cocoImagesAndFilesMustMatch() {
    // An images entry matching no file was ignored without a word, and an unlisted file was
    // augmented as if it had no objects.
    QTemporaryDir d;
    const QString ds = d.filePath("coco"), out = d.filePath("out");
    writePhoto(ds + "/images/a.png", "chelsea.png", 64, 48);
    writePhoto(ds + "/images/b.png", "coffee.png", 64, 48);
    QVERIFY(writeBytes(ds + "/annotations/instances.json", R"({"images": [
        {"id": 1, "file_name": "a.png", "width": 64, "height": 48},
        {"id": 2, "file_name": "typo.png", "width": 64, "height": 48}],
      "annotations": [{"id": 1, "image_id": 2, "category_id": 1, "bbox": [4, 4, 20, 20]}],
      "categories": [{"id": 1, "name": "cat"}]})"));
    const Run r = cli(augmentArgs(preset_, ds, out));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("images[1]: file_name 'typo.png' matches no image file"), qPrintable(r.err));
    QVERIFY2(r.err.contains("images/b.png") && r.err.contains("no COCO file of the dataset lists it"), qPrintable(r.err));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);
    QCOMPARE(m.failed.size(), 1);
    QCOMPARE(m.failed[0]["input"].toString(), QString("images/b.png"));
    QVERIFY(!QFileInfo::exists(out + "/images/b_aug0.png"));
}

void TestHostileCli::nameTooLongFailsThatInputAlone() {
    // A 251-byte name becomes a 256-byte output name: the write failed and stopped the whole run
    // (0 outputs), and every resume stopped at the same place.
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    const QString longName = QString(247, 'n') + ".png";
    writePhoto(in + "/" + longName, "chelsea.png", 32, 24);
    writePhoto(in + "/a.png", "coffee.png", 32, 24);
    writePhoto(in + "/z.png", "rocket.jpg", 32, 24);
    for (int pass = 0; pass < 2; ++pass) {  // the run, then its resume
        const Run r = cli(augmentArgs(preset_, in, out));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(longName.left(20)) && r.err.contains("more than the 255"), qPrintable(r.err));
        const Manifest m = readManifest(out);
        QCOMPARE(m.ok.size(), 2);
        QCOMPARE(m.failed.size(), 1);
    }
}

void TestHostileCli::applyWritesAllOrNothing() {
    // The image was written first; when its labels could not be, apply exited 2 with the image left.
    QTemporaryDir d;
    const QString image = d.filePath("a.png"), labels = d.filePath("a.txt");
    writePhoto(image, "chelsea.png", 64, 48);
    QVERIFY(writeBytes(labels, "0 0.5 0.5 0.4 0.4\n"));
    const QStringList base{"apply", "--preset", preset_, "--image", image, "--index", "3", "--backend", "cpu",
                           "--annotations", labels};
    const QString out = d.filePath("out.png");
    Run r = cli(base + QStringList{"--out", out, "--out-annotations", d.filePath("missing/dir/out.txt")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("missing/dir") && r.err.contains("does not exist"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
    // A replay that cannot be written takes the image and its labels with it, and an existing image
    // is left as it was.
    QVERIFY(writeBytes(out, "old"));
    QVERIFY(QDir().mkpath(d.filePath("replay-is-a-folder.json")));
    r = cli(base + QStringList{"--out", out, "--out-annotations", d.filePath("out.txt"), "--save-replay",
                               d.filePath("replay-is-a-folder.json")});
    QCOMPARE(r.code, 2);
    QCOMPARE(readAll(out), QByteArray("old"));
    QVERIFY(!QFileInfo::exists(d.filePath("out.txt")));
    QCOMPARE(QDir(d.path()).entryList(QDir::Hidden | QDir::Files).filter("auglab-tmp").size(), 0);
    // All there: the three appear together.
    r = cli(base + QStringList{"--out", out, "--out-annotations", d.filePath("out.txt"), "--save-replay",
                               d.filePath("r.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(readAll(out).startsWith("\x89PNG") && QFileInfo::exists(d.filePath("out.txt")) &&
            QFileInfo::exists(d.filePath("r.json")));
}

void TestHostileCli::replayOfNonUtf8PartnerRefusedFirst() {
    // --partner with a name that is not UTF-8 and --save-replay: exit 1 with a raw
    // "json.exception.type_error.316", after the image was written.
    QTemporaryDir d;
    const QString image = d.filePath("a.png"), mixPreset = d.filePath("mix.auglab.json");
    writePhoto(image, "chelsea.png", 64, 48);
    const std::string partner = d.path().toStdString() + "/caf\xe9.png";
    saveImage(partner, photoCrop("coffee.png", 64, 48, 3));
    QVERIFY(writeBytes(mixPreset, R"({"format": "auglab-preset", "version": 1, "pipeline": [{"op": "mixup", "p": 1}]})"));
    // QProcess passes arguments as UTF-8; the shell passes the name's bytes as they are.
    QProcess p;
    p.setProgram("/bin/sh");
    p.setArguments({"-c", "exec \"$0\" apply --preset \"$1\" --image \"$2\" --index 1 --backend cpu --out \"$3\" "
                          "--save-replay \"$4\" --partner \"$5\"$(printf '\\351').png",
                    QStringLiteral(AUGLAB_CLI), mixPreset, image, d.filePath("out.png"), d.filePath("r.json"),
                    d.filePath("caf")});
    p.start();
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.contains("--partner") && err.contains("not valid UTF-8") && !err.contains("type_error"),
             qPrintable(err));
    QVERIFY(!QFileInfo::exists(d.filePath("out.png")) && !QFileInfo::exists(d.filePath("r.json")));
    fs::remove(partner);  // QTemporaryDir cannot name it to remove it
}

void TestHostileCli::keypointOnTheEdgeApplies() {
    // A YOLO keypoint at x = 1.0: apply exited 2 without naming the file and line; augment dropped
    // the whole image.
    QTemporaryDir d;
    const QString ds = d.filePath("pose"), out = d.filePath("out");
    writePhoto(ds + "/images/a.png", "chelsea.png", 64, 48);
    QVERIFY(writeBytes(ds + "/data.yaml", "path: .\ntrain: images\nkpt_shape: [2, 3]\nnames: [person]\n"));
    QVERIFY(writeBytes(ds + "/labels/a.txt", "0 0.5 0.5 0.5 0.5 1.0 0.5 2 0.5 1.0 2\n"));
    const Run a = cli({"apply", "--preset", preset_, "--image", ds + "/images/a.png", "--index", "0", "--backend",
                       "cpu", "--out", d.filePath("a.png"), "--annotations", ds + "/labels/a.txt",
                       "--out-annotations", d.filePath("a.txt")});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    const Run r = cli(augmentArgs(preset_, ds, out));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(out + "/images/a_aug0.png") && QFileInfo::exists(out + "/labels/a_aug0.txt"));
}

void TestHostileCli::labelLinkLeavingTheDatasetFailsThatInput() {
    QTemporaryDir d;
    const QString ds = d.filePath("ds"), out = d.filePath("out");
    writePhoto(ds + "/images/a.png", "chelsea.png", 64, 48);
    writePhoto(ds + "/images/b.png", "coffee.png", 64, 48);
    writePhoto(ds + "/images/c.png", "rocket.jpg", 64, 48);
    QVERIFY(writeBytes(ds + "/labels/a.txt", "0 0.5 0.5 0.4 0.4\n"));
    QVERIFY(writeBytes(d.filePath("secret.txt"), "SECRET-TOKEN hunter2\n"));
    QVERIFY(QFile::link(d.filePath("secret.txt"), ds + "/labels/b.txt"));
    QVERIFY(QFile::link(ds + "/labels/gone.txt", ds + "/labels/c.txt"));
    const Run r = cli(augmentArgs(preset_, ds, out));
    QCOMPARE(r.code, 1);
    QVERIFY2(!r.err.contains("SECRET") && !r.out.contains("SECRET"), qPrintable(r.err));
    QVERIFY2(r.err.contains("labels/b.txt: leads outside the dataset folder"), qPrintable(r.err));
    QVERIFY2(r.err.contains("labels/c.txt: a symbolic link to nothing"), qPrintable(r.err));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);
    QCOMPARE(m.failed.size(), 2);
}

void TestHostileCli::manifestMemoryPerOutputIsSmall() {
    // augment held every output's manifest line (its replay, ~2.5 KB) until the end, whatever
    // --memory-mb said: 400,000 outputs took 1 GB. The lines stay in the file now. Measured as the
    // child's peak resident memory (getrusage), a 1-output run against a 20,000-output one.
    QTemporaryDir d;
    const QString in = d.filePath("in");
    writePhoto(in + "/a.png", "chelsea.png", 8, 8);
    const auto peakKb = [] {
        rusage u{};
        getrusage(RUSAGE_CHILDREN, &u);
        return static_cast<long>(u.ru_maxrss);
    };
    const long before = peakKb();
    const Run small = cli(augmentArgs(preset_, in, d.filePath("one")));
    QCOMPARE(small.code, 0);
    const long one = std::max(peakKb(), before);
    QProcess p;
    p.start(QStringLiteral(AUGLAB_CLI), augmentArgs(preset_, in, d.filePath("many")) + QStringList{"--copies", "20000"});
    QVERIFY(p.waitForFinished(600000));
    QCOMPARE(p.exitCode(), 0);
    const long many = peakKb();
    const Manifest m = readManifest(d.filePath("many"));
    QCOMPARE(m.ok.size(), 20000);
    QVERIFY(m.okLines[0].size() > 500);  // a replay each: 20,000 of them held would be 10 MB and more
    // ~450 bytes per output kept (its names and numbers): 9 MB here; 2 KB each before (40 MB).
    // Allowed: 16 MB over the 1-output run.
    QVERIFY2(many - one < 16 * 1024,
             qPrintable(QString("peak %1 KB for 20000 outputs, %2 KB for 1").arg(many).arg(one)));
}

int main(int argc, char** argv) {
    return auglab::testing::runSuites<TestHostileFiles, TestHostileCli>(argc, argv);
}

#include "test_hostile_inputs.moc"
