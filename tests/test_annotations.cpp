// Dataset labels (annotations.h): YOLO, COCO, Pascal VOC and mask PNGs read from the fixtures in
// tests/data/annotations/ (their values are worked out by hand below, line by line), the bad labels
// each reader must skip and report, the files it must refuse, the writers read back, and dataset
// detection on every layout. COCO segmentations are compared with the real pycocotools'
// annToMask (reference/coco_masks.json, made by tests/data/annotations/make_reference.py with
// pycocotools 2.0.11); its RLE and polygon code alone is tested in test_coco_masks.cpp.

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "annotation_test_support.h"
#include "annotations.h"
#include "error.h"

using namespace auglab;
using namespace auglab::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kData = kAnnotationData;

// The box whose COCO annotation id is `annotationId` (Targets::objects keep it), -1 when none.
int boxOfAnnotation(const Targets& t, int annotationId) {
    for (std::size_t i = 0; i < t.objects.size(); ++i)
        if (t.objects[i].value("id", -1) == annotationId) return int(i);
    return -1;
}

const Mask* maskOf(const Targets& t, int owner) {
    for (const Mask& m : t.masks)
        if (m.owner == owner) return &m;
    return nullptr;
}

CocoLabels loadFixtureCoco() {
    LabelReport report;
    return CocoLabels::load(kData / "coco/annotations/instances_val.json", report);
}

}  // namespace

class TestAnnotations : public QObject {
    Q_OBJECT

private slots:
    void formatNames();

    void yoloBoxes();
    void yoloSkipsBadLines_data();
    void yoloSkipsBadLines();
    void yoloKeepsTheGoodLines();
    void yoloPose();
    void yoloLabelTextRoundTrip();
    void dataYamlNames_data();
    void dataYamlNames();
    void dataYamlErrors_data();
    void dataYamlErrors();

    void vocObjects();
    void vocSkipsBadObjects_data();
    void vocSkipsBadObjects();
    void vocRefusesFilesItCannotRead();
    void vocXmlTextRoundTrip();

    void cocoLoadReportsBrokenEntries();
    void cocoBoxesObjectsAndKeypoints();
    void cocoSkipsBadAnnotations_data();
    void cocoSkipsBadAnnotations();
    void cocoMasksByHand();
    void cocoMasksMatchPycocotools_data();
    void cocoMasksMatchPycocotools();
    void cocoSecondImage();
    void cocoLookup();
    void cocoRefusesBadJson();
    void cocoDocumentRoundTrip();

    void maskPngs_data();
    void maskPngs();
    void maskPngErrors_data();
    void maskPngErrors();
    void writeMaskPngRoundTrip();

    void detectYolo();
    void detectYoloVariants_data();
    void detectYoloVariants();
    void detectYoloSplits();
    void detectCoco();
    void detectCocoBesideImages();
    void detectVoc();
    void detectVocBesideImages();
    void detectMasks();
    void detectRefusesBrokenFiles();
    void detectNothing();
};

void TestAnnotations::formatNames() {
    const std::pair<LabelFormat, const char*> names[] = {{LabelFormat::Yolo, "yolo"},
                                                         {LabelFormat::Coco, "coco"},
                                                         {LabelFormat::PascalVoc, "pascal_voc"},
                                                         {LabelFormat::MaskPng, "masks"}};
    for (const auto& [f, n] : names) {
        QCOMPARE(labelFormatName(f), n);
        QCOMPARE(labelFormatFromName(n), std::optional<LabelFormat>(f));
    }
    QVERIFY(!labelFormatFromName("voc").has_value());
}

// --- YOLO ---------------------------------------------------------------------------------------

void TestAnnotations::yoloBoxes() {
    // a.txt on a 32x24 image: "0 0.5 0.5 0.25 0.5" is x (0.5 - 0.125) * 32 = 12 .. 20, y 6 .. 18;
    // "2 0.25 0.75 0.5 0.25" is x 0 .. 16, y (0.75 - 0.125) * 24 = 15 .. 21.
    LabelReport report;
    const std::vector<std::string> names{"cat", "dog", "bird"};
    const Targets t = readYoloLabels(kData / "yolo/labels/train/a.txt", 32, 24, names, report);
    QCOMPARE(q(report.skipped), QStringList());
    QCOMPARE(t.boxes.size(), std::size_t(2));
    QCOMPARE(t.boxes[0], (Box{12, 6, 20, 18, 0, 0}));
    QCOMPARE(t.boxes[1], (Box{0, 15, 16, 21, 2, 1}));
    QCOMPARE(q(t.classNames), q(names));
    QVERIFY(t.keypoints.empty());
    QVERIFY(t.masks.empty());
}

void TestAnnotations::yoloSkipsBadLines_data() {
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("what");
    QTest::newRow("unknown class") << 2 << "class 3 is not one of the names (0..2)";
    QTest::newRow("negative width") << 3 << "width -0.2 is negative";
    // cx 1.3, w 0.1 of 32: x (1.3 - 0.05) * 32 = 40 .. 43.2; y (0.5 -+ 0.05) * 24 = 10.8 .. 13.2.
    QTest::newRow("out of range") << 4 << "box (40, 10.8) - (43.2, 13.2) reaches outside the 32x24 image";
    QTest::newRow("too few values") << 5 << "4 values; a label is `class cx cy w h`";
    QTest::newRow("not a number") << 6 << "'abc' is not a number";
}

void TestAnnotations::yoloSkipsBadLines() {
    QFETCH(int, line);
    QFETCH(QString, what);
    LabelReport report;
    const fs::path file = kData / "yolo/labels/train/b.txt";
    readYoloLabels(file, 32, 24, {"cat", "dog", "bird"}, report);
    const QString expected = QString::fromStdString(shown(file)) + ":" + QString::number(line) + ": " + what;
    QVERIFY2(q(report.skipped).contains(expected), qPrintable(q(report.skipped).join('\n')));
}

void TestAnnotations::yoloKeepsTheGoodLines() {
    // b.txt: lines 1 and 8 (after an empty line 7, with a CRLF ending) are good, 2..6 are not.
    LabelReport report;
    const Targets t =
        readYoloLabels(kData / "yolo/labels/train/b.txt", 32, 24, {"cat", "dog", "bird"}, report);
    QCOMPARE(report.skipped.size(), std::size_t(5));
    QCOMPARE(t.boxes.size(), std::size_t(2));
    QCOMPARE(t.boxes[0], (Box{8, 6, 24, 18, 1, 0}));
    QCOMPARE(t.boxes[1], (Box{16, 0, 32, 12, 2, 1}));
    // Without names any non-negative class is fine: line 2 (class 3) is then kept.
    LabelReport unnamed;
    QCOMPARE(readYoloLabels(kData / "yolo/labels/train/b.txt", 32, 24, {}, unnamed).boxes.size(),
             std::size_t(3));
    QCOMPARE(unnamed.skipped.size(), std::size_t(4));
}

void TestAnnotations::yoloPose() {
    // p.txt, kpt_shape [3, 3] on 32x24:
    //  1: box 8..24 x 6..18; keypoint 0 at (0.375 * 32, 0.25 * 24) = (12, 6); keypoint 1 has v 0
    //     (not labelled); keypoint 2 at (20, 18).
    //  2: box 4..12 x 3..9; keypoint 0 at (8, 6); keypoint 1 at x 1.5 (outside); keypoint 2 v 0.
    //  3: box 20..28 x 15..21; keypoint 0 has visibility 3; the others v 0.
    LabelReport report;
    const fs::path file = kData / "yolo_pose/labels/p.txt";
    const Targets t = readYoloLabels(file, 32, 24, {"person"}, report, 3);
    QCOMPARE(t.boxes.size(), std::size_t(3));
    QCOMPARE(t.boxes[0], (Box{8, 6, 24, 18, 0, 0}));
    QCOMPARE(t.boxes[1], (Box{4, 3, 12, 9, 0, 1}));
    QCOMPARE(t.boxes[2], (Box{20, 15, 28, 21, 0, 2}));
    QCOMPARE(t.keypoints.size(), std::size_t(3));
    QCOMPARE(t.keypoints[0], keypoint(12, 6, 0, 0, 0));
    QCOMPARE(t.keypoints[1], keypoint(20, 18, 2, 1, 0));
    QCOMPARE(t.keypoints[2], keypoint(8, 6, 0, 2, 1));
    QCOMPARE(
        q(report.skipped),
        (QStringList{QString::fromStdString(shown(file)) + ":2: keypoint 1: (1.5, 0.5) is outside the image",
                     QString::fromStdString(shown(file)) + ":3: keypoint 0: visibility 3 is not 0, 1 or 2"}));
    // 9 values after the box fit 3 keypoints of 3 values, not of 2 (kpt_shape [x, 2]).
    LabelReport wrongShape;
    QVERIFY(readYoloLabels(file, 32, 24, {"person"}, wrongShape, 2).boxes.empty());
    QCOMPARE(wrongShape.skipped.size(), std::size_t(3));
    // Inferred from the line's length: 9 values are 3 keypoints of 3 (not 4.5 of 2).
    LabelReport inferred;
    QCOMPARE(readYoloLabels(file, 32, 24, {"person"}, inferred).keypoints.size(), std::size_t(3));
}

void TestAnnotations::yoloLabelTextRoundTrip() {
    // On 32x24: box 8..24 x 6..18 is centre (16, 12) = (0.5, 0.5), size 0.5 x 0.5; box 0..10 x 0..6
    // is centre (5/32, 3/24) = (0.15625, 0.125), size (0.3125, 0.25).
    Targets t;
    t.boxes = {Box{8, 6, 24, 18, 1, 0}, Box{0, 0, 10, 6, 0, 1}};
    QCOMPARE(QString::fromStdString(yoloLabelText(t, 32, 24)),
             QString("1 0.500000 0.500000 0.500000 0.500000\n0 0.156250 0.125000 0.312500 0.250000\n"));
    // Pose: box 0 has keypoint 0 at (12, 6) = (0.375, 0.25), none for 1, keypoint 2 outside the image.
    t.keypoints = {keypoint(12, 6, 0, 0, 0), keypoint(40, 6, 2, 1, 0), keypoint(16, 3, 1, 2, 1)};
    const std::string pose = yoloLabelText(t, 32, 24, 3);
    QCOMPARE(QString::fromStdString(pose),
             QString("1 0.500000 0.500000 0.500000 0.500000 0.375000 0.250000 2 0 0 0 0 0 0\n"
                     "0 0.156250 0.125000 0.312500 0.250000 0 0 0 0.500000 0.125000 2 0 0 0\n"));
    // Read back: the same boxes and the keypoints still in the image.
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "pose.txt";
    writeText(file, pose);
    LabelReport report;
    const Targets back = readYoloLabels(file, 32, 24, {"a", "b"}, report, 3);
    QCOMPARE(q(report.skipped), QStringList());
    QCOMPARE(back.boxes.size(), std::size_t(2));
    QCOMPARE(back.boxes[0], t.boxes[0]);
    QCOMPARE(back.boxes[1], t.boxes[1]);
    QCOMPARE(back.keypoints.size(), std::size_t(2));
    QCOMPARE(back.keypoints[0], keypoint(12, 6, 0, 0, 0));
    QCOMPARE(back.keypoints[1], keypoint(16, 3, 1, 1, 1));
    QCOMPARE(yoloLabelText(Targets{}, 32, 24), std::string());
}

void TestAnnotations::dataYamlNames_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<int>("keypoints");
    QTest::addColumn<int>("dims");
    QTest::newRow("list") << "yolo/data.yaml" << QStringList{"cat", "dog", "bird"} << 0 << 0;
    QTest::newRow("map") << "yolo_dict/data.yaml" << QStringList{"person", "car"} << 0 << 0;
    QTest::newRow("pose") << "yolo_pose/data.yaml" << QStringList{"person"} << 3 << 3;
}

void TestAnnotations::dataYamlNames() {
    QFETCH(QString, file);
    QFETCH(QStringList, names);
    QFETCH(int, keypoints);
    QFETCH(int, dims);
    const YoloDataYaml yaml = readYoloDataYaml(kData / file.toStdString());
    QCOMPARE(q(yaml.names), names);
    QCOMPARE(yaml.keypointsPerObject, keypoints);
    QCOMPARE(yaml.keypointDims, dims);
    QCOMPARE(q(readClassNamesTxt(kData / "yolo_classes/labels/classes.txt")),
             (QStringList{"apple", "banana"}));
}

void TestAnnotations::dataYamlErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not yaml") << "names: [a, b\nval: x\n"
                              << "invalid YAML";
    QTest::newRow("a list at the top") << "- a\n- b\n"
                                       << "the top level is not a map";
    QTest::newRow("a gap in the map") << "names:\n  0: a\n  2: b\n"
                                      << ":2: names: class 1 is missing";
    QTest::newRow("a key that is not an index") << "names:\n  0: a\n  x: b\n"
                                                << ":3: names: key 'x'";
    QTest::newRow("nc disagrees") << "nc: 3\nnames: [a, b]\n"
                                  << ":1: nc: 3 classes, but names lists 2";
    QTest::newRow("names not a list") << "names: a\n"
                                      << ":1: names: expected a list";
    QTest::newRow("kpt_shape") << "names: [a]\nkpt_shape: [17, 4]\n"
                               << ":2: kpt_shape: expected";
}

void TestAnnotations::dataYamlErrors() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "data.yaml";
    writeText(file, text.toStdString());
    try {
        readYoloDataYaml(file);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        const QString what = e.what();
        QVERIFY2(what.startsWith(QString::fromStdString(shown(file))), e.what());
        QVERIFY2(what.contains(message), e.what());
    }
}

// --- Pascal VOC ---------------------------------------------------------------------------------

void TestAnnotations::vocObjects() {
    // 000001.xml: dog 4,3 - 20,18 (pose Left, truncated); person 10.5,1 - 32,24 (difficult,
    // occluded, with a <part>). The numbers are the box's edges as written (pascal_voc).
    std::vector<std::string> names;
    LabelReport report;
    const Targets t = readVocXml(kData / "voc/Annotations/000001.xml", names, report);
    QCOMPARE(q(report.skipped), QStringList());
    QCOMPARE(q(names), (QStringList{"dog", "person"}));
    QCOMPARE(q(t.classNames), (QStringList{"dog", "person"}));
    QCOMPARE(t.boxes.size(), std::size_t(2));
    QCOMPARE(t.boxes[0], (Box{4, 3, 20, 18, 0, 0}));
    QCOMPARE(t.boxes[1], (Box{10.5, 1, 32, 24, 1, 1}));
    QCOMPARE(t.objects.size(), std::size_t(2));
    QCOMPARE(t.objects[0],
             nlohmann::json({{"name", "dog"}, {"pose", "Left"}, {"truncated", 1}, {"difficult", 0}}));
    QCOMPARE(t.objects[1], nlohmann::json({{"name", "person"},
                                           {"pose", "Unspecified"},
                                           {"truncated", 0},
                                           {"difficult", 1},
                                           {"occluded", 1}}));
    // Names already known keep their labels; the list grows with new ones.
    std::vector<std::string> known{"cat", "person", "dog"};
    const Targets again = readVocXml(kData / "voc/Annotations/000001.xml", known, report);
    QCOMPARE(again.boxes[0].label, 2);
    QCOMPARE(again.boxes[1].label, 1);
    QCOMPARE(known.size(), std::size_t(3));
}

void TestAnnotations::vocSkipsBadObjects_data() {
    // 000002.xml, objects at lines 10 (cat, good), 17, 21, 25, 29, 33 (bird, good).
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("what");
    QTest::newRow("negative width") << 17 << "object 'dog': width -10 is negative (xmin 20, xmax 10)";
    QTest::newRow("out of range") << 21
                                  << "object 'dog': box (20, 5) - (40, 9) reaches outside the 32x24 image";
    QTest::newRow("no bndbox") << 25 << "object 'person' has no <bndbox>";
    QTest::newRow("not a number") << 29 << "object 'cat': <xmin> 'abc' is not a number";
}

void TestAnnotations::vocSkipsBadObjects() {
    QFETCH(int, line);
    QFETCH(QString, what);
    const fs::path file = kData / "voc/Annotations/000002.xml";
    std::vector<std::string> names{"dog", "person"};
    LabelReport report;
    const Targets t = readVocXml(file, names, report);
    QCOMPARE(report.skipped.size(), std::size_t(4));
    const QString expected = QString::fromStdString(shown(file)) + ":" + QString::number(line) + ": " + what;
    QVERIFY2(q(report.skipped).contains(expected), qPrintable(q(report.skipped).join('\n')));
    // The good ones: cat 2,2 - 12,10 and bird 0.4,-0.5 - 32.6,8, which is within a pixel of the
    // image and clamped onto it: 0.4,0 - 32,8.
    QCOMPARE(t.boxes.size(), std::size_t(2));
    QCOMPARE(t.boxes[0], (Box{2, 2, 12, 10, 2, 0}));
    QCOMPARE(t.boxes[1], (Box{0.4, 0, 32, 8, 3, 1}));
    QCOMPARE(q(names), (QStringList{"dog", "person", "cat", "bird"}));
}

void TestAnnotations::vocRefusesFilesItCannotRead() {
    std::vector<std::string> names;
    LabelReport report;
    // </objekt> on line 8 closes <object>.
    const fs::path broken = kData / "voc_bad/broken.xml";
    try {
        readVocXml(broken, names, report);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(shown(broken)) + ":8:"), e.what());
        QVERIFY2(QString(e.what()).contains("invalid XML"), e.what());
    }
    try {
        readVocXml(kData / "voc_bad/not_voc.xml", names, report);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("no <annotation> element"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, readVocXml(kData / "voc_bad/missing.xml", names, report));
}

void TestAnnotations::vocXmlTextRoundTrip() {
    Targets t;
    t.classNames = {"dog", "cat"};
    t.boxes = {Box{4.4, 3, 20.5, 18, 0, 0}, Box{1, 2, 3, 4, 1, 1}};
    t.objects = {nlohmann::json{
                     {"name", "dog"}, {"pose", "Left"}, {"truncated", 1}, {"difficult", 0}, {"occluded", 1}},
                 nlohmann::json::object()};
    const std::string xml = vocXmlText(t, "a.png", 32, 24, 3);
    for (const char* part :
         {"<filename>a.png</filename>", "<width>32</width>", "<height>24</height>", "<depth>3</depth>",
          "<name>dog</name>", "<pose>Left</pose>", "<occluded>1</occluded>", "<xmin>4</xmin>",
          "<xmax>21</xmax>", "<name>cat</name>", "<pose>Unspecified</pose>"})
        QVERIFY2(xml.find(part) != std::string::npos, part);
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "a.xml";
    writeText(file, xml);
    std::vector<std::string> names{"dog", "cat"};
    LabelReport report;
    const Targets back = readVocXml(file, names, report);
    QCOMPARE(q(report.skipped), QStringList());
    QCOMPARE(back.boxes.size(), std::size_t(2));
    // Whole pixels: 4.4 -> 4, 20.5 -> 21.
    QCOMPARE(back.boxes[0], (Box{4, 3, 21, 18, 0, 0}));
    QCOMPARE(back.boxes[1], (Box{1, 2, 3, 4, 1, 1}));
    QCOMPARE(back.objects[0], t.objects[0]);
    QCOMPARE(back.objects[1],
             nlohmann::json({{"name", "cat"}, {"pose", "Unspecified"}, {"truncated", 0}, {"difficult", 0}}));
}

// --- COCO ---------------------------------------------------------------------------------------

void TestAnnotations::cocoLoadReportsBrokenEntries() {
    LabelReport report;
    const fs::path file = kData / "coco/annotations/instances_val.json";
    const CocoLabels coco = CocoLabels::load(file, report);
    const QString f = QString::fromStdString(shown(file));
    QCOMPARE(q(report.skipped),
             (QStringList{f + ": images[3]: file_name: missing or not a file name",
                          f + ": annotations[10].image_id: 42 is not the id of an image in images"}));
    QCOMPARE(coco.categories().size(), std::size_t(3));
    QCOMPARE(q(coco.keypointNames()), (QStringList{"nose", "left_eye", "right_eye"}));
    QVERIFY(coco.hasImage("img1.png"));
    QVERIFY(coco.hasImage("sub/img2.png"));
    QVERIFY(coco.hasImage("img3.png"));
    QVERIFY(!coco.hasImage("img4.png"));
}

void TestAnnotations::cocoBoxesObjectsAndKeypoints() {
    // img1.png: annotations 0..13 of the file; 4, 5 and 6 are skipped whole (bad box, unknown
    // category), the others keep their box even where a mask or keypoint is bad. Categories
    // person (id 1), car (3), dog (7) are labels 0, 1, 2.
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    const Targets t = coco.labelsFor("img1.png", 32, 24, report);
    QCOMPARE(q(t.classNames), (QStringList{"person", "car", "dog"}));
    const std::vector<Box> expected{{4, 2, 14, 14, 0, 0},   {16, 4, 28, 12, 1, 1}, {2, 15, 9, 22, 2, 2},
                                    {20, 14, 26, 22, 0, 3}, {2, 2, 6, 6, 1, 4},    {6, 6, 10, 10, 1, 5},
                                    {1, 1, 4, 4, 0, 6},     {8, 8, 12, 12, 2, 7},  {9, 9, 11, 11, 2, 8},
                                    {12, 12, 16, 16, 0, 9}};
    QCOMPARE(t.boxes.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) QCOMPARE(t.boxes[i], expected[i]);
    QCOMPARE(t.objects.size(), expected.size());
    QCOMPARE(t.objects[0], nlohmann::json({{"id", 101},
                                           {"image_id", 1},
                                           {"category_id", 1},
                                           {"iscrowd", 0},
                                           {"attributes", {{"occluded", false}}}}));
    QCOMPARE(t.objects[1]["iscrowd"], nlohmann::json(1));
    const int ids[] = {101, 102, 103, 104, 108, 109, 110, 112, 113, 114};
    for (std::size_t i = 0; i < expected.size(); ++i) QCOMPARE(t.objects[i]["id"], nlohmann::json(ids[i]));
    // Keypoints: annotation 101 has nose (6, 4) v 2, left_eye v 0 (not labelled), right_eye
    // (10.5, 8) v 1; 104 has none labelled; 114 has nose (13, 13), the others bad.
    QCOMPARE(t.keypoints.size(), std::size_t(3));
    QCOMPARE(t.keypoints[0], keypoint(6, 4, 0, 0, 0));
    QCOMPARE(t.keypoints[1], keypoint(10.5, 8, 2, 1, 0));
    QCOMPARE(t.keypoints[2], keypoint(13, 13, 0, 2, 9));
    // Masks: 101's polygons, 102's RLE list, 103's RLE string; those of 108, 109, 112, 113 are bad.
    QCOMPARE(t.masks.size(), std::size_t(3));
    for (int owner = 0; owner < 3; ++owner) QVERIFY(maskOf(t, owner) != nullptr);
    for (const Mask& m : t.masks) {
        QCOMPARE(m.width, 32);
        QCOMPARE(m.height, 24);
    }
}

void TestAnnotations::cocoSkipsBadAnnotations_data() {
    QTest::addColumn<QString>("what");
    QTest::newRow("negative width") << "annotations[4].bbox: width -3 is negative";
    QTest::newRow("out of range")
        << "annotations[5].bbox: box (28, 20) - (38, 30) reaches outside the 32x24 image";
    QTest::newRow("unknown category") << "annotations[6].category_id: 5 is not the id of a category";
    QTest::newRow("truncated RLE string") << "annotations[7].segmentation.counts: the compressed RLE ends "
                                             "inside a number (truncated at character 6)";
    QTest::newRow("RLE list too short")
        << "annotations[8].segmentation.counts: the RLE runs cover 150 pixels, a 32x24 mask has 768";
    QTest::newRow("keypoints not in threes")
        << "annotations[9].keypoints: expected [x, y, visibility, ...] numbers in threes";
    QTest::newRow("polygon of 5 values")
        << "annotations[11].segmentation[0]: a polygon is [x1, y1, x2, y2, ...] with at least 3 points";
    QTest::newRow("RLE of another size")
        << "annotations[12].segmentation.size: [20, 30] is not the image's [24, 32] (height, width)";
    QTest::newRow("keypoint outside") << "annotations[13].keypoints[3]: (50, 13) is outside the 32x24 image";
    QTest::newRow("bad visibility") << "annotations[13].keypoints[6]: visibility 7 is not 0, 1 or 2";
}

void TestAnnotations::cocoSkipsBadAnnotations() {
    QFETCH(QString, what);
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    coco.labelsFor("img1.png", 32, 24, report);
    QCOMPARE(report.skipped.size(), std::size_t(10));
    const QString expected =
        QString::fromStdString(shown(kData / "coco/annotations/instances_val.json")) + ": " + what;
    QVERIFY2(q(report.skipped).contains(expected), qPrintable(q(report.skipped).join('\n')));
}

void TestAnnotations::cocoMasksByHand() {
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    const Targets t = coco.labelsFor("img1.png", 32, 24, report);
    // Annotation 102's counts: 388 zeros (16 columns of 24, then 4 rows), then 12 columns of
    // 8 ones with 16 zeros between them: the rectangle x 16..27, y 4..11.
    const Mask* rect = maskOf(t, 1);
    QVERIFY(rect != nullptr);
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 32; ++x)
            QCOMPARE(int(rect->at(x, y)), int(x >= 16 && x <= 27 && y >= 4 && y <= 11));
    // Annotation 103's string is pycocotools' encoding of the disc (x - 5)^2 + (y - 18)^2 <= 9.
    const Mask* disc = maskOf(t, 2);
    QVERIFY(disc != nullptr);
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 32; ++x)
            QCOMPARE(int(disc->at(x, y)), int((x - 5) * (x - 5) + (y - 18) * (y - 18) <= 9));
    QCOMPARE(disc->owner, 2);
}

void TestAnnotations::cocoMasksMatchPycocotools_data() {
    QTest::addColumn<int>("annotation");
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<QStringList>("rows");
    const nlohmann::json ref = readJson(kData / "reference/coco_masks.json");
    for (const nlohmann::json& c : ref["cases"]) {
        const int id = c["annotation_id"];
        QTest::newRow(qPrintable(QString("annotation %1").arg(id)))
            << id << QString::fromStdString(c["file_name"].get<std::string>()) << c["width"].get<int>()
            << c["height"].get<int>() << q(c["rows"].get<std::vector<std::string>>());
    }
}

void TestAnnotations::cocoMasksMatchPycocotools() {
    // pycocotools' COCO.annToMask of the same annotation (polygons merged, RLE lists and strings).
    QFETCH(int, annotation);
    QFETCH(QString, fileName);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(QStringList, rows);
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    const Targets t = coco.labelsFor(fileName.toStdString(), width, height, report);
    const int box = boxOfAnnotation(t, annotation);
    QVERIFY(box >= 0);
    const Mask* m = maskOf(t, box);
    QVERIFY(m != nullptr);
    QCOMPARE(q(rowsOf(*m)), rows);
}

void TestAnnotations::cocoSecondImage() {
    // sub/img2.png (20x16): 201 and 202 have polygons (202's points reach 0.4 and 0.6 pixel outside,
    // within the tolerance); 203's polygon reaches x 40 (its mask is skipped, its box kept); 204's
    // box ends at (20.7, 16.5), within a pixel: clamped to (20, 16).
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    const Targets t = coco.labelsFor("sub/img2.png", 20, 16, report);
    QCOMPARE(t.boxes.size(), std::size_t(4));
    QCOMPARE(t.boxes[0], (Box{0, 0, 20, 16, 2, 0}));
    QCOMPARE(t.boxes[1], (Box{3.25, 4.5, 9.75, 9.5, 1, 1}));
    QCOMPARE(t.boxes[2], (Box{0, 0, 5, 5, 2, 2}));
    QCOMPARE(t.boxes[3], (Box{19.5, 15.5, 20, 16, 0, 3}));
    QCOMPARE(t.masks.size(), std::size_t(2));
    QCOMPARE(q(report.skipped),
             QStringList{QString::fromStdString(shown(kData / "coco/annotations/instances_val.json")) +
                         ": annotations[16].segmentation[0]: point (40, 0) is outside the 20x16 image"});
    // A size other than the file's is reported, and the labels are checked against the real one.
    LabelReport other;
    const Targets small = coco.labelsFor("sub/img2.png", 10, 8, other);
    QVERIFY(!other.skipped.empty());
    QVERIFY(q(other.skipped).first().contains("images[1]: the file says 20x16, the image is 10x8"));
    // Of the four boxes only 203's (0, 0) - (5, 5) fits in 10x8.
    QCOMPARE(small.boxes.size(), std::size_t(1));
    QCOMPARE(small.boxes[0], (Box{0, 0, 5, 5, 2, 0}));
}

void TestAnnotations::cocoLookup() {
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    // By the last path component when the path differs from file_name.
    QCOMPARE(coco.labelsFor("val/sub/img2.png", 20, 16, report).boxes.size(), std::size_t(4));
    QCOMPARE(coco.labelsFor("/anywhere/img1.png", 32, 24, report).boxes.size(), std::size_t(10));
    // Listed without annotations, and not listed: no targets, the class names still there.
    const Targets none = coco.labelsFor("img3.png", 32, 24, report);
    QVERIFY(none.empty());
    QCOMPARE(none.classNames.size(), std::size_t(3));
    QVERIFY(coco.labelsFor("nothere.png", 32, 24, report).empty());
}

void TestAnnotations::cocoRefusesBadJson() {
    LabelReport report;
    // The trailing comma after images[0] (line 3) leaves the "]" at line 4, column 3 unexpected.
    const fs::path file = kData / "coco_bad/annotations/instances_bad.json";
    try {
        CocoLabels::load(file, report);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(shown(file))), e.what());
        QVERIFY2(QString(e.what()).contains("invalid JSON at line 4, column 3"), e.what());
    }
    QTemporaryDir dir;
    const fs::path noImages = fs::path(dir.path().toStdString()) / "x.json";
    writeText(noImages, R"({"annotations": [], "categories": []})");
    QVERIFY_THROWS_EXCEPTION(InputError, CocoLabels::load(noImages, report));
    writeText(noImages, R"([1, 2])");
    QVERIFY_THROWS_EXCEPTION(InputError, CocoLabels::load(noImages, report));
}

void TestAnnotations::cocoDocumentRoundTrip() {
    const CocoLabels coco = loadFixtureCoco();
    LabelReport report;
    const Targets t = coco.labelsFor("img1.png", 32, 24, report);
    const nlohmann::ordered_json doc =
        cocoDocument({CocoImageEntry{"img1.png", 32, 24, t}}, coco.categories());
    QCOMPARE(doc["images"].dump(),
             std::string(R"([{"id":1,"file_name":"img1.png","width":32,"height":24}])"));
    const auto& anns = doc["annotations"];
    QCOMPARE(anns.size(), std::size_t(10));
    for (std::size_t i = 0; i < anns.size(); ++i) {
        QCOMPARE(anns[i]["id"].get<int>(), int(i) + 1);
        QCOMPARE(anns[i]["image_id"].get<int>(), 1);
    }
    // The masks' strings and areas are pycocotools' (reference/coco_masks.json).
    const nlohmann::json ref = readJson(kData / "reference/coco_masks.json");
    for (int i = 0; i < 3; ++i) {
        const nlohmann::json& r = ref["cases"][std::size_t(i)];
        QCOMPARE(r["annotation_id"].get<int>(), 101 + i);
        QCOMPARE(anns[i]["segmentation"]["counts"].get<std::string>(), r["rle"].get<std::string>());
        QCOMPARE(anns[i]["segmentation"]["size"].dump(), std::string("[24,32]"));
        QCOMPARE(anns[i]["area"].get<int>(), r["area"].get<int>());
    }
    QCOMPARE(anns[0]["category_id"].get<int>(), 1);
    QCOMPARE(anns[1]["category_id"].get<int>(), 3);
    QCOMPARE(anns[2]["category_id"].get<int>(), 7);
    QCOMPARE(anns[0]["bbox"].dump(), std::string("[4.0,2.0,10.0,12.0]"));
    QCOMPARE(anns[1]["iscrowd"].get<int>(), 1);
    QCOMPARE(anns[0]["attributes"].dump(), std::string(R"({"occluded":false})"));
    // Keypoints in the category's order, kept ones visible (2), the unlabelled one 0 0 0.
    QCOMPARE(anns[0]["keypoints"].dump(), std::string("[6.0,4.0,2,0.0,0.0,0,10.5,8.0,2]"));
    QCOMPARE(anns[0]["num_keypoints"].get<int>(), 2);
    QCOMPARE(anns[3]["num_keypoints"].get<int>(), 0);
    QVERIFY(!anns[3].contains("segmentation"));
    QCOMPARE(anns[3]["area"].get<double>(), 48.0);  // 6 x 8, its box
    QCOMPARE(doc["categories"].dump(), coco.categories().dump());

    // Read back: the same targets.
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "out.json";
    writeText(file, doc.dump(1));
    LabelReport backReport;
    const CocoLabels back = CocoLabels::load(file, backReport);
    const Targets b = back.labelsFor("img1.png", 32, 24, backReport);
    QCOMPARE(q(backReport.skipped), QStringList());
    QCOMPARE(b.boxes.size(), t.boxes.size());
    for (std::size_t i = 0; i < t.boxes.size(); ++i) QCOMPARE(b.boxes[i], t.boxes[i]);
    QCOMPARE(b.keypoints.size(), t.keypoints.size());
    for (std::size_t i = 0; i < t.keypoints.size(); ++i) QCOMPARE(b.keypoints[i], t.keypoints[i]);
    QVERIFY(b.masks == t.masks);
    QCOMPARE(b.objects[0]["attributes"], t.objects[0]["attributes"]);
}

// --- Mask PNGs ----------------------------------------------------------------------------------

void TestAnnotations::maskPngs_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("kind");
    // The rules make_images.py drew them by.
    QTest::newRow("8-bit gray") << "m1.png" << 32 << 24 << 1;
    QTest::newRow("8-bit palette") << "sub/m2.png" << 20 << 16 << 2;
    QTest::newRow("4-bit palette") << "m5.png" << 20 << 16 << 5;
    QTest::newRow("gray saved as RGB") << "m6.png" << 20 << 16 << 6;
}

void TestAnnotations::maskPngs() {
    QFETCH(QString, file);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, kind);
    const Mask m = readMaskPng(kData / "masks/masks" / file.toStdString(), width, height);
    QCOMPARE(m.width, width);
    QCOMPARE(m.height, height);
    QCOMPARE(m.owner, -1);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            int expected = 0;
            if (kind == 1) {
                if (x >= 4 && x < 12 && y >= 2 && y < 10) expected = 1;
                if (x >= 16 && x < 28 && y >= 12 && y < 22) expected = 2;
                if (x == 31) expected = 255;
            } else if (kind == 2) {
                expected = x / 5;  // indices, not the palette's colours (128, 0, 0) ...
            } else if (kind == 5) {
                expected = y / 4;
            } else {
                expected = (x + y) % 3;
            }
            QCOMPARE(int(m.at(x, y)), expected);
        }
}

void TestAnnotations::maskPngErrors_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<QString>("what");
    QTest::newRow("wrong size") << "m3.png" << 32 << 24 << "the mask is 30x24, the image is 32x24";
    QTest::newRow("colour")
        << "m7.png" << 20 << 16
        << "a colour PNG (pixel (3, 2) is not gray); masks are gray values or palette indices";
    QTest::newRow("not a PNG") << "../../yolo/data.yaml" << 1 << 1 << "not a readable PNG";
}

void TestAnnotations::maskPngErrors() {
    QFETCH(QString, file);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(QString, what);
    const fs::path path = kData / "masks/masks" / file.toStdString();
    try {
        readMaskPng(path, width, height);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(shown(path)) + ": " + what), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, readMaskPng(kData / "masks/masks/none.png", 4, 4));
}

void TestAnnotations::writeMaskPngRoundTrip() {
    Mask m;
    m.width = 7;
    m.height = 5;
    for (int i = 0; i < 35; ++i) m.values.push_back(std::uint8_t(i * 7));
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "mask.png";
    writeMaskPng(file, m);
    // OpenCV reads the file as one 8-bit channel with the same values.
    const cv::Mat read = cv::imread(file.string(), cv::IMREAD_UNCHANGED);
    QCOMPARE(read.type(), CV_8UC1);
    QCOMPARE(read.cols, 7);
    QCOMPARE(read.rows, 5);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 7; ++x) QCOMPARE(int(read.at<std::uint8_t>(y, x)), (y * 7 + x) * 7);
    QVERIFY(readMaskPng(file, 7, 5) == m);
    // Nothing but the file is left in the folder (the write went through a temporary file).
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"mask.png"});
    QVERIFY_THROWS_EXCEPTION(InputError, writeMaskPng(fs::path(dir.path().toStdString()) / "no/such.png", m));
}

// --- Datasets -----------------------------------------------------------------------------------

void TestAnnotations::detectYolo() {
    LabelReport report;
    const auto d = detectLabels(kData / "yolo", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::Yolo);
    QCOMPARE(q(d->classNames()), (QStringList{"cat", "dog", "bird"}));
    QCOMPARE(d->labelPath(kData / "yolo/images/train/a.png"), kData / "yolo/labels/train/a.txt");
    QCOMPARE(d->labelPath("images/val/c.png"), kData / "yolo/labels/val/c.txt");
    const Targets a = d->labelsFor(kData / "yolo/images/train/a.png", 32, 24, report);
    QCOMPARE(a.boxes.size(), std::size_t(2));
    QCOMPARE(a.boxes[1], (Box{0, 15, 16, 21, 2, 1}));
    // c.png has no .txt: an image without objects.
    const Targets c = d->labelsFor(kData / "yolo/images/val/c.png", 32, 24, report);
    QVERIFY(c.empty());
    QCOMPARE(c.classNames.size(), std::size_t(3));
    QCOMPARE(q(report.skipped), QStringList());
    d->labelsFor("images/train/b.png", 32, 24, report);
    QCOMPARE(report.skipped.size(), std::size_t(5));
}

void TestAnnotations::detectYoloVariants_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("image");
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<int>("boxes");
    QTest::addColumn<int>("keypoints");
    QTest::newRow("data.yaml names as a map") << "yolo_dict"
                                              << "images/x.png" << QStringList{"person", "car"} << 1 << 0;
    QTest::newRow("classes.txt in labels/") << "yolo_classes"
                                            << "images/y.png" << QStringList{"apple", "banana"} << 1 << 0;
    QTest::newRow("pose") << "yolo_pose"
                          << "images/p.png" << QStringList{"person"} << 3 << 3;
}

void TestAnnotations::detectYoloVariants() {
    QFETCH(QString, folder);
    QFETCH(QString, image);
    QFETCH(QStringList, names);
    QFETCH(int, boxes);
    QFETCH(int, keypoints);
    LabelReport report;
    const auto d = detectLabels(kData / folder.toStdString(), report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::Yolo);
    QCOMPARE(q(d->classNames()), names);
    const Targets t = d->labelsFor(image.toStdString(), 32, 24, report);
    QCOMPARE(int(t.boxes.size()), boxes);
    QCOMPARE(int(t.keypoints.size()), keypoints);
}

void TestAnnotations::detectYoloSplits() {
    // Roboflow's export: data.yaml at the top, train/images + train/labels in each split.
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    fs::create_directories(root / "train/images");
    fs::create_directories(root / "train/labels");
    fs::copy_file(kData / "yolo/data.yaml", root / "data.yaml");
    fs::copy_file(kData / "yolo/images/train/a.png", root / "train/images/a.png");
    fs::copy_file(kData / "yolo/labels/train/a.txt", root / "train/labels/a.txt");
    LabelReport report;
    const auto d = detectLabels(root, report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::Yolo);
    QCOMPARE(q(d->classNames()), (QStringList{"cat", "dog", "bird"}));
    QCOMPARE(d->labelPath(root / "train/images/a.png"), root / "train/labels/a.txt");
    QCOMPARE(d->labelPath("valid/images/b.png"), root / "valid/labels/b.txt");
    QCOMPARE(d->labelsFor("train/images/a.png", 32, 24, report).boxes.size(), std::size_t(2));
}

void TestAnnotations::detectCoco() {
    LabelReport report;
    const auto d = detectLabels(kData / "coco", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::Coco);
    QCOMPARE(report.skipped.size(), std::size_t(2));  // images[3] and annotations[10], at load
    QCOMPARE(q(d->classNames()), (QStringList{"person", "car", "dog"}));
    QVERIFY(d->coco() != nullptr);
    QCOMPARE(q(d->coco()->keypointNames()), (QStringList{"nose", "left_eye", "right_eye"}));
    QCOMPARE(d->labelPath(kData / "coco/val/img1.png"), kData / "coco/annotations/instances_val.json");
    LabelReport labels;
    QCOMPARE(d->labelsFor(kData / "coco/val/img1.png", 32, 24, labels).boxes.size(), std::size_t(10));
    QCOMPARE(d->labelsFor("val/sub/img2.png", 20, 16, labels).boxes.size(), std::size_t(4));
    QCOMPARE(labels.skipped.size(), std::size_t(11));
    QVERIFY(d->labelsFor("val/other.png", 32, 24, labels).empty());
}

void TestAnnotations::detectCocoBesideImages() {
    // Roboflow's layout: _annotations.coco.json beside the images; category 0 is the supercategory.
    LabelReport report;
    const auto d = detectLabels(kData / "coco_beside", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::Coco);
    QCOMPARE(q(d->classNames()), (QStringList{"objects", "box"}));
    const Targets t = d->labelsFor(kData / "coco_beside/a.png", 32, 24, report);
    QCOMPARE(t.boxes.size(), std::size_t(1));
    QCOMPARE(t.boxes[0], (Box{8, 6, 24, 18, 1, 0}));
    QVERIFY(t.masks.empty());  // "segmentation": []
    QCOMPARE(q(report.skipped), QStringList());
}

void TestAnnotations::detectVoc() {
    // Names from every file, sorted: 000001 has dog and person, 000002's good objects cat and bird.
    LabelReport report;
    const auto d = detectLabels(kData / "voc", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::PascalVoc);
    QCOMPARE(q(d->classNames()), (QStringList{"bird", "cat", "dog", "person"}));
    QCOMPARE(d->labelPath(kData / "voc/JPEGImages/000001.png"), kData / "voc/Annotations/000001.xml");
    const Targets t = d->labelsFor(kData / "voc/JPEGImages/000001.png", 32, 24, report);
    QCOMPARE(t.boxes.size(), std::size_t(2));
    QCOMPARE(t.boxes[0], (Box{4, 3, 20, 18, 2, 0}));
    QCOMPARE(t.boxes[1], (Box{10.5, 1, 32, 24, 3, 1}));
    QCOMPARE(q(report.skipped), QStringList());
    // Checked against the image's real size: at 16x12 the dog (to x 20) is outside.
    LabelReport smaller;
    const Targets s = d->labelsFor("JPEGImages/000001.png", 16, 12, smaller);
    QCOMPARE(s.boxes.size(), std::size_t(0));
    QVERIFY(!smaller.skipped.empty());
    QVERIFY(q(smaller.skipped).first().contains("<size> says 32x24, the image is 16x12"));
}

void TestAnnotations::detectVocBesideImages() {
    LabelReport report;
    const auto d = detectLabels(kData / "voc_beside", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::PascalVoc);
    QCOMPARE(q(d->classNames()), (QStringList{"antelope", "zebra"}));
    QCOMPARE(d->labelPath(kData / "voc_beside/sub/img2.png"), kData / "voc_beside/sub/img2.xml");
    const Targets t = d->labelsFor(kData / "voc_beside/sub/img2.png", 20, 16, report);
    QCOMPARE(t.boxes.size(), std::size_t(1));
    QCOMPARE(t.boxes[0], (Box{3, 4, 15, 16, 0, 0}));
    QCOMPARE(t.objects[0]["truncated"], nlohmann::json(1));
    QCOMPARE(d->labelsFor("img1.png", 32, 24, report).boxes[0], (Box{1, 2, 30, 22, 1, 0}));
    QVERIFY(d->labelsFor("img3.png", 32, 24, report).empty());

    // With a classes.txt the names are fixed, and others are unknown classes.
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    fs::copy(kData / "voc_beside", root, fs::copy_options::recursive);
    writeText(root / "classes.txt", "zebra\nhorse\n");
    LabelReport fixed;
    const auto f = detectLabels(root, fixed);
    QVERIFY(f.has_value());
    QCOMPARE(q(f->classNames()), (QStringList{"zebra", "horse"}));
    QCOMPARE(f->labelsFor("img1.png", 32, 24, fixed).boxes[0].label, 0);
    QVERIFY(f->labelsFor("sub/img2.png", 20, 16, fixed).boxes.empty());
    QCOMPARE(q(fixed.skipped), QStringList{QString::fromStdString(shown(root / "sub/img2.xml")) +
                                           ":10: class 'antelope' is not one of the dataset's names"});
}

void TestAnnotations::detectMasks() {
    LabelReport report;
    const auto d = detectLabels(kData / "masks", report);
    QVERIFY(d.has_value());
    QCOMPARE(d->format(), LabelFormat::MaskPng);
    QCOMPARE(d->labelPath(kData / "masks/images/sub/m2.png"), kData / "masks/masks/sub/m2.png");
    const Targets t = d->labelsFor(kData / "masks/images/m1.png", 32, 24, report);
    QCOMPARE(t.masks.size(), std::size_t(1));
    QCOMPARE(t.masks[0].owner, -1);
    QCOMPARE(int(t.masks[0].at(5, 3)), 1);
    QCOMPARE(int(t.masks[0].at(20, 15)), 2);
    QCOMPARE(int(t.masks[0].at(31, 0)), 255);
    QVERIFY(t.boxes.empty());
    QCOMPARE(int(d->labelsFor("images/sub/m2.png", 20, 16, report).masks[0].at(19, 0)), 3);
    QVERIFY(d->labelsFor("images/m4.png", 32, 24, report).empty());  // no mask file
    QVERIFY_THROWS_EXCEPTION(InputError, d->labelsFor("images/m3.png", 32, 24, report));
    QCOMPARE(q(report.skipped), QStringList());
}

void TestAnnotations::detectRefusesBrokenFiles() {
    LabelReport report;
    try {
        detectLabels(kData / "yolo_bad_yaml", report);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).startsWith(
                     QString::fromStdString(shown(kData / "yolo_bad_yaml/data.yaml")) + ":"),
                 e.what());
    }
    try {
        detectLabels(kData / "coco_bad", report);
        QFAIL("no InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("instances_bad.json: invalid JSON at line 4, column 3"),
                 e.what());
    }
}

void TestAnnotations::detectNothing() {
    LabelReport report;
    QTemporaryDir dir;
    const fs::path root(dir.path().toStdString());
    QVERIFY(!detectLabels(root, report).has_value());
    fs::copy_file(kData / "coco_beside/a.png", root / "a.png");
    writeText(root / "preset.json", R"({"pipeline": []})");
    fs::create_directories(root / "labels");
    QVERIFY(!detectLabels(root, report).has_value());
    QVERIFY(!detectLabels(root / "missing", report).has_value());
    QVERIFY(report.skipped.empty());
}

QTEST_GUILESS_MAIN(TestAnnotations)
#include "test_annotations.moc"
