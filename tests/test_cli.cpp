// auglab-cli driven as a user drives it: the real binary in a QProcess, real files, exit codes
// (0 ok, 2 bad usage or input, 1 other failures) and what it prints.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <opencv2/imgcodecs.hpp>

#include "cli_test_support.h"
#include "image_io.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

using Run = CliRun;

QString sample(const char* f) {
    return QString::fromStdString(samplePath(f));
}

const char* const kPreset = kBusyPreset;

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void infoJson();
    void validate_data();
    void validate();
    void usageErrors_data();
    void usageErrors();
    void renderIsDeterministicAcrossThreads();
    void applyEqualsRenderTile();
    void replayReproducesApply();
    void mixTakesPartnersFromThePool();
    void realismIsReported();
    void labelsFollowTheSample();
    void mosaicBringsPartnersLabels();
    void badLabelsAreErrors();
    void renderDrawsOverlays();
    void badImages_data();
    void badImages();
    void dirSkipsBrokenFiles();
    void schemaMatchesFile();

private:
    QTemporaryDir dir_;
    QString preset_;
};

void TestCli::initTestCase() {
    QVERIFY(dir_.isValid());
    preset_ = dir_.filePath("p.auglab.json");
    QVERIFY(writeBytes(preset_, kPreset));
}

void TestCli::infoJson() {
    const Run r = cli({"info", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY(j.contains("version"));
    QStringList names;
    // Auto's documented rule, applied to what this machine offers: CUDA when a device is there, else
    // GL on a hardware renderer (a software one such as llvmpipe is slower than the CPU), else the CPU.
    bool cuda = false, hardwareGl = false;
    for (const auto& b : j["backends"].toArray()) {
        const QJsonObject o = b.toObject();
        names << o["name"].toString();
        QVERIFY(o.contains("compiled") && o.contains("available") && !o["detail"].toString().isEmpty());
        if (o["name"] == "cpu") QVERIFY(o["available"].toBool());
        // The codec step runs on the CPU inside the GPU backends' plans, and they say so.
        const QJsonArray onCpu = o["ops_on_cpu"].toArray();
        QCOMPARE(onCpu.contains(QJsonValue("image_compression")), o["name"] != "cpu");
        // Steps whose per-pixel maths GLSL 3.30 cannot do exactly run on the CPU for GL only; CUDA
        // runs them on the device.
        for (const char* name : {"clahe", "fancy_pca", "iso_noise"})
            QCOMPARE(onCpu.contains(QJsonValue(name)), o["name"] == "gl");
        // The sun flare's physics_based layer only; rain, shadows and fog are drawn as keyed tables.
        QCOMPARE(onCpu.contains(QJsonValue("random_sun_flare (method physics_based)")), o["name"] == "gl");
        for (const char* name : {"random_rain", "random_shadow", "random_fog", "random_sun_flare"})
            QVERIFY(!onCpu.contains(QJsonValue(name)));
        const QString detail = o["detail"].toString().toLower();
        const bool software = detail.contains("llvmpipe") || detail.contains("softpipe") ||
                              detail.contains("swrast") || detail.contains("software");
        cuda = cuda || (o["name"] == "cuda" && o["available"].toBool());
        hardwareGl = hardwareGl || (o["name"] == "gl" && o["available"].toBool() && !software);
    }
    QCOMPARE(names, (QStringList{"cpu", "gl", "cuda"}));
    QCOMPARE(j["auto"].toString(), QString(cuda ? "cuda" : hardwareGl ? "gl" : "cpu"));
    const QJsonArray ops = j["ops"].toArray();
    QVERIFY(ops.contains(QJsonValue("affine")) && ops.contains(QJsonValue("coarse_dropout")) &&
            ops.contains(QJsonValue("to_gray")));
}

void TestCli::validate_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("good") << QByteArray(kPreset) << 0 << "ok";
    QTest::newRow("min > max") << QByteArray(R"({"format": "auglab-preset", "version": 1, "pipeline": [
        {"op": "affine"}, {"op": "horizontal_flip"}, {"op": "coarse_dropout", "holes": [9, 8]}]})")
                               << 2 << "pipeline[2].holes: min 9 > max 8";
    QTest::newRow("unknown key") << QByteArray(R"({"format": "auglab-preset", "version": 1, "pipeline": [
        {"op": "affine", "rotation": [1, 2]}]})")
                                 << 2 << "pipeline[0].rotation: unknown key";
    QTest::newRow("newer version") << QByteArray(
                                          R"({"format": "auglab-preset", "version": 7, "pipeline": []})")
                                   << 2 << "version: preset version 7 is newer";
    QTest::newRow("syntax") << QByteArray("{\"format\": \"auglab-preset\",\n \"version\": 1,,}") << 2
                            << "line 2";
}

void TestCli::validate() {
    QFETCH(QByteArray, text);
    QFETCH(int, code);
    QFETCH(QString, message);
    const QString path = dir_.filePath("v.auglab.json");
    QVERIFY(writeBytes(path, text));
    const Run r = cli({"validate", path});
    QCOMPARE(r.code, code);
    QVERIFY2((r.out + r.err).contains(message), qPrintable(r.out + r.err));
}

void TestCli::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList{} << "usage";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command";
    QTest::newRow("unknown option") << QStringList{"render", "--colour", "red"} << "unknown option --colour";
    QTest::newRow("missing out") << QStringList{"render", "--image", sample("chelsea.png")} << "--out";
    QTest::newRow("bad grid") << QStringList{"render", "--image", sample("chelsea.png"), "--grid", "8by8",
                                             "--out",  "x.png"}
                              << "--grid";
    QTest::newRow("bad index") << QStringList{"apply", "--image", sample("chelsea.png"), "--index", "-3",
                                              "--out", "x.png"}
                               << "--index";
    QTest::newRow("unknown backend") << QStringList{"render",    "--image", sample("chelsea.png"),
                                                    "--backend", "tpu",     "--out",
                                                    "x.png"}
                                     << "unknown backend";
    QTest::newRow("bad output extension")
        << QStringList{"render", "--image", sample("chelsea.png"), "--out", "x.webp"} << ".webp";
    QTest::newRow("missing image") << QStringList{"apply", "--image", "/no/such/file.png", "--index", "0",
                                                  "--out", "x.png"}
                                   << "/no/such/file.png";
}

void TestCli::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = cli(args);
    QCOMPARE(r.code, 2);
    QVERIFY2((r.out + r.err).contains(message), qPrintable(r.out + r.err));
}

void TestCli::renderIsDeterministicAcrossThreads() {
    const QString a = dir_.filePath("a.png"), b = dir_.filePath("b.png");
    const QStringList common{"render", "--preset", preset_,  "--image", sample("coffee.png"),
                             "--grid", "4x3",      "--tile", "96"};
    QCOMPARE(cli(common + QStringList{"--threads", "1", "--out", a}).code, 0);
    QCOMPARE(cli(common + QStringList{"--threads", "2", "--out", b}).code, 0);
    const QByteArray bytesA = readAll(a);
    QVERIFY(bytesA.size() > 1000);
    QCOMPARE(readAll(b), bytesA);
    const Image sheet = loadImage(a.toStdString()).image;
    QCOMPARE(sheet.width, 4 * 96 + 5 * 2);
    QCOMPARE(sheet.height, 3 * 96 + 4 * 2);
    // Another seed gives another sheet.
    QCOMPARE(cli(common + QStringList{"--seed", "6", "--out", b}).code, 0);
    QVERIFY(readAll(b) != bytesA);
}

void TestCli::applyEqualsRenderTile() {
    const QString replays = dir_.filePath("tiles.json");
    QCOMPARE(cli({"render", "--preset", preset_, "--image", sample("chelsea.png"), "--grid", "3x2", "--tile",
                  "64", "--seed", "31", "--out", dir_.filePath("s.png"), "--save-replays", replays})
                 .code,
             0);
    const QJsonArray tiles = QJsonDocument::fromJson(readAll(replays)).array();
    QCOMPARE(tiles.size(), 6);
    for (int i : {0, 4, 5}) {
        const QString one = dir_.filePath(QString("r%1.json").arg(i));
        const Run r =
            cli({"apply", "--preset", preset_, "--image", sample("chelsea.png"), "--index",
                 QString::number(i), "--seed", "31", "--out", dir_.filePath("o.png"), "--save-replay", one});
        QCOMPARE(r.code, 0);
        QCOMPARE(QJsonDocument::fromJson(readAll(one)).object(), tiles[i].toObject());
    }
    // And the pixels: with tiles as large as the image (chelsea.png is 451x300) a tile is what
    // apply writes, bit for bit. Cells are `--tile` pixels with 2-pixel gaps, the image centred.
    const QString sheet = dir_.filePath("big.png"), applied = dir_.filePath("one.png");
    QCOMPARE(cli({"render", "--preset", preset_, "--image", sample("chelsea.png"), "--grid", "2x1", "--tile",
                  "451", "--seed", "31", "--out", sheet})
                 .code,
             0);
    QCOMPARE(cli({"apply", "--preset", preset_, "--image", sample("chelsea.png"), "--index", "1", "--seed",
                  "31", "--out", applied})
                 .code,
             0);
    const cv::Mat s = cv::imread(sheet.toStdString()), a = cv::imread(applied.toStdString());
    QCOMPARE(QSize(a.cols, a.rows), QSize(451, 300));
    const cv::Mat tile = s(cv::Rect(2 + 451 + 2, 2 + (451 - 300) / 2, 451, 300));
    QCOMPARE(cv::norm(tile, a, cv::NORM_INF), 0.0);
    QVERIFY(cv::norm(s(cv::Rect(2, 2 + (451 - 300) / 2, 451, 300)), a, cv::NORM_INF) >
            0);  // tile 0 is another sample
}

void TestCli::replayReproducesApply() {
    const QString out = dir_.filePath("apply.png"), rep = dir_.filePath("apply.json"),
                  again = dir_.filePath("again.png");
    QCOMPARE(cli({"apply", "--preset", preset_, "--image", sample("astronaut.png"), "--index", "17", "--out",
                  out, "--save-replay", rep})
                 .code,
             0);
    QCOMPARE(cli({"replay", "--replay", rep, "--image", sample("astronaut.png"), "--out", again}).code, 0);
    const Image a = loadImage(out.toStdString()).image, b = loadImage(again.toStdString()).image;
    QVERIFY(samePixels(a, b));
    // A replay drawn for another image size is refused with a clear message.
    const Run wrong = cli({"replay", "--replay", rep, "--image", sample("chelsea.png"), "--out", again});
    QCOMPARE(wrong.code, 2);
    QVERIFY2(wrong.err.contains("512x512"), qPrintable(wrong.err));
}

void TestCli::mixTakesPartnersFromThePool() {
    // apply --partner: mixup's and cutmix's partners are the other images given; the replay names
    // each partner's file, and `replay` reads them back from there (or from --partner); render
    // draws partners from every image given.
    const QString preset = dir_.filePath("mix.auglab.json");
    QVERIFY(writeBytes(preset,
                       R"({"format": "auglab-preset", "version": 1, "name": "mix", "seed": 3, "pipeline": [
        {"op": "mixup", "alpha": 1.0}, {"op": "cutmix", "alpha": 1.0}]})"));
    const QString out = dir_.filePath("mix.png"), rep = dir_.filePath("mix.json"),
                  again = dir_.filePath("mix2.png");
    const Run apply =
        cli({"apply", "--preset", preset, "--image", sample("chelsea.png"), "--partner", sample("coffee.png"),
             sample("astronaut.png"), "--index", "5", "--out", out, "--save-replay", rep});
    QVERIFY2(apply.code == 0, qPrintable(apply.err));
    const QJsonArray ops = QJsonDocument::fromJson(readAll(rep)).object()["ops"].toArray();
    QCOMPARE(ops.size(), 2);
    for (const auto& v : ops) {
        const QJsonObject o = v.toObject();
        QCOMPARE(o["partners"].toInt(), 3);
        QVERIFY(o["partner"].toInt() == 1 || o["partner"].toInt() == 2);  // never the image itself
        QVERIFY(o["partner_path"].toString().endsWith(o["partner"].toInt() == 1 ? "coffee.png"
                                                                                : "astronaut.png"));
    }
    QVERIFY(ops[1].toObject().contains("box_px") && ops[1].toObject().contains("effective_lambda"));
    const Image a = loadImage(out.toStdString()).image;
    QCOMPARE(cli({"replay", "--replay", rep, "--image", sample("chelsea.png"), "--out", again}).code, 0);
    QVERIFY(samePixels(a, loadImage(again.toStdString()).image));
    QCOMPARE(cli({"replay", "--replay", rep, "--image", sample("chelsea.png"), "--partner",
                  sample("coffee.png"), sample("astronaut.png"), "--out", again})
                 .code,
             0);
    QVERIFY(samePixels(a, loadImage(again.toStdString()).image));
    // Without --partner, the pool is the image alone: both ops change nothing.
    QCOMPARE(
        cli({"apply", "--preset", preset, "--image", sample("chelsea.png"), "--index", "5", "--out", again})
            .code,
        0);
    QVERIFY(samePixels(loadImage(sample("chelsea.png").toStdString()).image,
                       loadImage(again.toStdString()).image));
    // A partner that cannot be read is an error naming it.
    const Run missing = cli({"apply", "--preset", preset, "--image", sample("chelsea.png"), "--partner",
                             dir_.filePath("nope.png"), "--index", "5", "--out", again});
    QCOMPARE(missing.code, 2);
    QVERIFY2(missing.err.contains("nope.png") && missing.err.contains("partner image 1"),
             qPrintable(missing.err));
    // render: the partners of a dataset page's tiles come from the images given.
    const QString sheet = dir_.filePath("mix-sheet.png"), reps = dir_.filePath("mix-sheet.json");
    const Run render = cli({"render", "--preset", preset, "--image", sample("chelsea.png"),
                            sample("coffee.png"), sample("astronaut.png"), "--mode", "dataset", "--grid",
                            "3x1", "--tile", "64", "--out", sheet, "--save-replays", reps});
    QVERIFY2(render.code == 0, qPrintable(render.err));
    const QJsonArray tiles = QJsonDocument::fromJson(readAll(reps)).array();
    QCOMPARE(tiles.size(), 3);
    for (int i = 0; i < 3; ++i)
        for (const auto& v : tiles[i].toObject()["ops"].toArray())
            QVERIFY(v.toObject()["partner"].toInt() != i);
}

void TestCli::realismIsReported() {
    // A shift by exactly a quarter of the width: a quarter of every output is border fill.
    const QString preset = dir_.filePath("shift.auglab.json");
    QVERIFY(writeBytes(preset,
                       R"({"format": "auglab-preset", "version": 1, "name": "shift", "seed": 3, "pipeline": [
        {"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.25, 0.25],
         "translate_y_frac": [0, 0]}]})"));
    const QString sheet = dir_.filePath("shift.png"), reps = dir_.filePath("shift.json");
    const Run r = cli({"render", "--preset", preset, "--image", sample("astronaut.png"), "--grid", "2x1",
                       "--tile", "64", "--out", sheet, "--realism", "--save-replays", reps});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("tile 0 (sample 0): 25.0% invented") &&
                 r.out.contains("median: 25.0% invented over 2 tiles"),
             qPrintable(r.out));
    for (const auto& v : QJsonDocument::fromJson(readAll(reps)).array())
        QCOMPARE(v.toObject()["realism"].toDouble(), 0.25);
    // apply says it too, and its replay carries it (and reads back).
    const QString out = dir_.filePath("shift-apply.png"), rep = dir_.filePath("shift-apply.json");
    const Run apply = cli({"apply", "--preset", preset, "--image", sample("astronaut.png"), "--index", "0",
                           "--out", out, "--save-replay", rep});
    QVERIFY2(apply.code == 0 && apply.out.contains("25.0% invented"), qPrintable(apply.out + apply.err));
    QCOMPARE(QJsonDocument::fromJson(readAll(rep)).object()["realism"].toDouble(), 0.25);
    QCOMPARE(cli({"replay", "--replay", rep, "--image", sample("astronaut.png"), "--out", out}).code, 0);
}

// A shift right by exactly a quarter of the 512-px width (128 px), nothing else: every label's new
// place is known by hand.
static const char* const kShiftPreset = R"({"format": "auglab-preset", "version": 1, "seed": 3, "pipeline": [
    {"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.25, 0.25],
     "translate_y_frac": [0, 0], "p": 1}], "targets": {"boxes": {"format": "yolo", "min_visibility": 0.8}}})";

void TestCli::labelsFollowTheSample() {
    const QString preset = dir_.filePath("shift-labels.auglab.json");
    QVERIFY(writeBytes(preset, kShiftPreset));
    const QString image = sample("astronaut.png"), out = dir_.filePath("labels-out.png");
    // YOLO: box 0 moves 128 px (cx 0.3 -> 0.55); box 1 ends wholly outside; box 2 keeps 0.75 of its
    // width (307.2..409.6 -> 435.2..512 of 537.6), under min_visibility 0.8: dropped.
    const QString yolo = dir_.filePath("a.txt"), yoloOut = dir_.filePath("a-out.txt");
    QVERIFY(writeBytes(yolo, "0 0.3 0.5 0.2 0.2\n1 0.9 0.5 0.1 0.1\n2 0.7 0.2 0.2 0.1\n"));
    Run r = cli({"apply", "--preset", preset, "--image", image, "--index", "0", "--out", out, "--annotations",
                 yolo, "--out-annotations", yoloOut});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("1 of 3 boxes kept (1 min_visibility, 1 outside the image)"), qPrintable(r.out));
    QCOMPARE(readAll(yoloOut), QByteArray("0 0.550000 0.500000 0.200000 0.200000\n"));
    // Pascal VOC: the same shift on whole pixels.
    const QString voc = dir_.filePath("a.xml"), vocOut = dir_.filePath("a-out.xml");
    QVERIFY(writeBytes(voc, R"(<annotation><size><width>512</width><height>512</height><depth>3</depth></size>
        <object><name>person</name><difficult>0</difficult><bndbox><xmin>100</xmin><ymin>200</ymin>
        <xmax>200</xmax><ymax>300</ymax></bndbox></object></annotation>)"));
    r = cli({"apply", "--preset", preset, "--image", image, "--index", "0", "--out", out, "--annotations",
             voc, "--out-annotations", vocOut});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QByteArray xml = readAll(vocOut);
    QVERIFY2(xml.contains("<xmin>228</xmin>") && xml.contains("<xmax>328</xmax>") &&
                 xml.contains("<ymin>200</ymin>") && xml.contains("<name>person</name>") &&
                 xml.contains("<filename>labels-out.png</filename>"),
             xml.constData());
    // COCO: the output file names the output image; its box moved; its polygon became the moved mask's RLE.
    const QString coco = dir_.filePath("instances.json"), cocoOut = dir_.filePath("instances-out.json");
    QVERIFY(
        writeBytes(coco, R"({"images": [{"id": 7, "file_name": "astronaut.png", "width": 512, "height": 512}],
        "annotations": [{"id": 3, "image_id": 7, "category_id": 1, "iscrowd": 0, "bbox": [100, 200, 100, 100],
                         "area": 10000, "segmentation": [[100, 200, 200, 200, 200, 300, 100, 300]]}],
        "categories": [{"id": 1, "name": "person"}]})"));
    r = cli({"apply", "--preset", preset, "--image", image, "--index", "0", "--out", out, "--annotations",
             coco, "--out-annotations", cocoOut});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject doc = QJsonDocument::fromJson(readAll(cocoOut)).object();
    QCOMPARE(doc["images"].toArray()[0].toObject()["file_name"].toString(), QString("labels-out.png"));
    const QJsonObject a = doc["annotations"].toArray()[0].toObject();
    const QJsonArray bbox = a["bbox"].toArray();
    QCOMPARE(bbox[0].toDouble(), 228.0);
    QCOMPARE(bbox[1].toDouble(), 200.0);
    QCOMPARE(bbox[2].toDouble(), 100.0);
    QCOMPARE(doc["categories"].toArray()[0].toObject()["name"].toString(), QString("person"));
    QVERIFY(a["segmentation"].toObject().contains("counts"));
    // A mask: the rectangle of 3s at x 100..199 lands at 228..327 (a whole-pixel shift moves it exactly).
    Image mask(512, 512, 3, 0);
    for (int y = 50; y < 60; ++y)
        for (int x = 100; x < 200; ++x) mask.at(x, y)[0] = mask.at(x, y)[1] = mask.at(x, y)[2] = 3;
    const QString maskIn = dir_.filePath("mask.png"), maskOut = dir_.filePath("mask-out.png");
    saveImage(maskIn.toStdString(), mask);
    r = cli({"apply", "--preset", preset, "--image", image, "--index", "0", "--out", out, "--mask", maskIn,
             "--out-mask", maskOut});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const Image moved = loadImage(maskOut.toStdString()).image;
    QCOMPARE(moved.width, 512);
    int threes = 0, misplaced = 0;
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 512; ++x) {
            const bool inside = y >= 50 && y < 60 && x >= 228 && x < 328;
            const int v = moved.at(x, y)[0];
            threes += v == 3;
            misplaced += inside != (v == 3);
        }
    QCOMPARE(threes, 1000);
    QCOMPARE(misplaced, 0);
}

void TestCli::mosaicBringsPartnersLabels() {
    // Centre (512, 512) on a grid of 512-pixel cells: four 256 x 256 cells of a 512 x 512 mosaic, the
    // image in the top-left one. Each image of the pool is labelled by a whole-image box of class k and
    // a mask of value k + 1 (k its pool number), so each cell's box is the cell and its mask the cell's
    // value: whatever partners the sampler drew (the replay says), the labels must say the same.
    const QString preset = dir_.filePath("mosaic-labels.auglab.json");
    QVERIFY(writeBytes(preset, R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [
        {"op": "mosaic", "p": 1, "center_range": [0.5, 0.5]}], "targets": {"boxes": {"format": "yolo"}}})"));
    const QByteArray photo = readAll(sample("astronaut.png"));
    QStringList images, labels, masks;
    for (int k = 0; k < 4; ++k) {
        images << dir_.filePath(QString("pool%1.png").arg(k));
        labels << dir_.filePath(QString("pool%1.txt").arg(k));
        masks << dir_.filePath(QString("pool%1-mask.png").arg(k));
        QVERIFY(writeBytes(images.back(), photo));
        QVERIFY(writeBytes(labels.back(), QByteArray::number(k) + " 0.5 0.5 1 1\n"));
        saveImage(masks.back().toStdString(), Image(512, 512, 3, static_cast<std::uint8_t>(k + 1)));
    }
    const QString out = dir_.filePath("mosaic-out.png"), outLabels = dir_.filePath("mosaic-out.txt"),
                  outMask = dir_.filePath("mosaic-out-mask.png"),
                  replay = dir_.filePath("mosaic.replay.json");
    const Run r = cli(QStringList{"apply",   "--preset",          preset,    "--image",
                                  images[0], "--index",           "2",       "--out",
                                  out,       "--save-replay",     replay,    "--annotations",
                                  labels[0], "--out-annotations", outLabels, "--mask",
                                  masks[0],  "--out-mask",        outMask,   "--partner"} +
                      images.mid(1) + QStringList{"--partner-annotations"} + labels.mid(1) +
                      QStringList{"--partner-masks"} + masks.mid(1));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("4 of 4 boxes kept"), qPrintable(r.out));
    const QJsonArray cells =
        QJsonDocument::fromJson(readAll(replay)).object()["ops"].toArray()[0].toObject()["cells"].toArray();
    QCOMPARE(cells.size(), 4);
    QStringList expected;
    const Image mask = loadImage(outMask.toStdString()).image;
    for (const QJsonValue& v : cells) {
        const QJsonObject c = v.toObject();
        const QJsonArray rect = c["rect_px"].toArray();
        const int x0 = rect[0].toInt(), y0 = rect[1].toInt(), partner = c["partner"].toInt();
        QCOMPARE(rect[2].toInt() - x0, 256);
        QCOMPARE(c["primary"].toBool(), x0 == 0 && y0 == 0);
        expected << QString("%1 %2 %3 0.500000 0.500000")
                        .arg(partner)
                        .arg((x0 + 128) / 512.0, 0, 'f', 6)
                        .arg((y0 + 128) / 512.0, 0, 'f', 6);
        QCOMPARE(int(mask.at(x0 + 3, y0 + 250)[0]), partner + 1);
        QCOMPARE(int(mask.at(x0 + 255, y0)[0]), partner + 1);
    }
    QStringList written = QString::fromUtf8(readAll(outLabels)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(written.first(), expected.first());  // the image's own box first, as Albumentations orders them
    written.sort();
    expected.sort();
    QCOMPARE(written, expected);
}

void TestCli::badLabelsAreErrors() {
    const QString preset = dir_.filePath("shift-labels.auglab.json");
    QVERIFY(writeBytes(preset, kShiftPreset));
    const QString bad = dir_.filePath("bad.txt"), out = dir_.filePath("bad-out.png"),
                  labelsOut = dir_.filePath("bad-out.txt");
    QVERIFY(writeBytes(bad, "0 0.3 0.5 0.2 0.2\n0 0.5 0.5 -0.2 0.1\n"));
    const Run r = cli({"apply", "--preset", preset, "--image", sample("astronaut.png"), "--index", "0",
                       "--out", out, "--annotations", bad, "--out-annotations", labelsOut});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad.txt:2") && r.err.contains("negative"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out) && !QFileInfo::exists(labelsOut));  // nothing written
    // Half the options, or a format that cannot be told, are usage errors.
    QCOMPARE(cli({"apply", "--preset", preset, "--image", sample("astronaut.png"), "--index", "0", "--out",
                  out, "--annotations", bad})
                 .code,
             2);
    const QString odd = dir_.filePath("labels.dat");
    QVERIFY(writeBytes(odd, "0 0.3 0.5 0.2 0.2\n"));
    const Run unknown = cli({"apply", "--preset", preset, "--image", sample("astronaut.png"), "--index", "0",
                             "--out", out, "--annotations", odd, "--out-annotations", labelsOut});
    QCOMPARE(unknown.code, 2);
    QVERIFY2(unknown.err.contains("--annotations-format"), qPrintable(unknown.err));
    const Run given =
        cli({"apply", "--preset", preset, "--image", sample("astronaut.png"), "--index", "0", "--out", out,
             "--annotations", odd, "--annotations-format", "yolo", "--out-annotations", labelsOut});
    QVERIFY2(given.code == 0, qPrintable(given.err));
}

void TestCli::renderDrawsOverlays() {
    // A YOLO dataset of one photo under images/, its box at x 0.2..0.4, y 0.3..0.7; a flip alone puts it
    // at x 0.6..0.8 of the tile.
    const QString root = dir_.filePath("overlay-ds");
    QVERIFY(QDir().mkpath(root + "/images") && QDir().mkpath(root + "/labels"));
    QVERIFY(QFile::copy(sample("chelsea.png"), root + "/images/chelsea.png"));
    QVERIFY(writeBytes(root + "/labels/chelsea.txt", "1 0.3 0.5 0.2 0.4\n"));
    QVERIFY(writeBytes(root + "/data.yaml", "names: [dog, cat]\n"));
    const QString preset = dir_.filePath("flip-labels.auglab.json");
    QVERIFY(writeBytes(preset, R"({"format": "auglab-preset", "version": 1, "pipeline": [
        {"op": "horizontal_flip", "p": 1}]})"));
    const QString sheet = dir_.filePath("overlays.png");
    const Run r = cli({"render", "--preset", preset, "--dir", root, "--mode", "dataset", "--grid", "1x1",
                       "--tile", "400", "--overlays", "--out", sheet});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("labels (yolo): 1 of 1 boxes kept, median visibility 1.00"), qPrintable(r.out));
    const Image img = loadImage(sheet.toStdString()).image;
    // The tile: chelsea (451x300) fitted to 400 px wide, 266 high, centred in its 400x400 cell (67 px
    // down) after the sheet's 2-px margin; the box's 2-px outline in class 1's colour (the palette's
    // second: 255, 127, 14) spans x 240..320 and y 0.3..0.7 of 266 (79.8..186.2) within the tile.
    int x0 = img.width, y0 = img.height, x1 = -1, y1 = -1;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const std::uint8_t* p = img.at(x, y);
            if (p[0] != 255 || p[1] != 127 || p[2] != 14) continue;
            x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
    QVERIFY2(std::abs(x0 - 242) <= 1 && std::abs(x1 - 321) <= 1 && std::abs(y0 - 148) <= 1 &&
                 std::abs(y1 - 255) <= 1,
             qPrintable(QString("box drawn at x %1..%2, y %3..%4").arg(x0).arg(x1).arg(y0).arg(y1)));
    // --overlays needs a labelled folder.
    QCOMPARE(
        cli({"render", "--preset", preset, "--image", sample("chelsea.png"), "--overlays", "--out", sheet})
            .code,
        2);
}

void TestCli::badImages_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");
    const QByteArray png = readAll(sample("chelsea.png"));
    QTest::newRow("zero bytes") << QByteArray() << "empty";
    QTest::newRow("truncated png") << png.left(png.size() / 3) << "bad.png";
    QTest::newRow("text named png") << QByteArray("hello, I am not an image\n") << "not a supported image";
    // A PNG signature and an IHDR chunk claiming 60000x60000. Its CRC is left zero: the size must
    // be refused from the header, before anything is decoded or checked.
    QByteArray huge("\x89PNG\r\n\x1a\n", 8);
    huge += QByteArray("\x00\x00\x00\x0dIHDR", 8);
    huge += QByteArray("\x00\x00\xea\x60\x00\x00\xea\x60\x08\x02\x00\x00\x00", 13);
    huge += QByteArray("\x00\x00\x00\x00", 4);
    QTest::newRow("60000x60000 header") << huge << "100 megapixel";
}

void TestCli::badImages() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    const QString path = dir_.filePath("bad.png");
    QVERIFY(writeBytes(path, bytes));
    const QString out = dir_.filePath("never.png");
    const Run r = cli({"apply", "--image", path, "--index", "0", "--out", out});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad.png") && r.err.contains(reason), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
}

void TestCli::dirSkipsBrokenFiles() {
    QTemporaryDir d;
    QVERIFY(QFile::copy(sample("chelsea.png"), d.filePath("a.png")));
    QVERIFY(QFile::copy(sample("rocket.jpg"), d.filePath("c.jpg")));
    QVERIFY(writeBytes(d.filePath("b.png"), "not an image"));
    const QString out = dir_.filePath("dataset.png");
    const Run r = cli(
        {"render", "--dir", d.path(), "--mode", "dataset", "--grid", "2x1", "--tile", "64", "--out", out});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("skipped") && r.err.contains("b.png"), qPrintable(r.err));
    QVERIFY(QFile::exists(out));
}

void TestCli::schemaMatchesFile() {
    const Run r = cli({"schema"});
    QCOMPARE(r.code, 0);
    const QByteArray file = readAll(QString(AUGLAB_SOURCE_DIR) + "/presets/auglab-preset.schema.json");
    QVERIFY2(!file.isEmpty(), "presets/auglab-preset.schema.json is missing");
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()), QJsonDocument::fromJson(file));
}

QTEST_APPLESS_MAIN(TestCli)
#include "test_cli.moc"
