// `auglab-cli augment` driven as a user drives it: the real binary in a QProcess over folders of
// small crops of the bundled photos. Outputs are checked against `apply` and `replay` bit for bit,
// resumes against file identities (inode and modification time), refusals against a snapshot of
// every file around them. Sharded runs and their merge: test_augment_shards.cpp.

#include <sys/stat.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "suite_main.h"

#include <filesystem>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "augment_test_support.h"
#include "cli_test_support.h"
#include "image_io.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;
namespace fs = std::filesystem;

namespace {

using Run = CliRun;

const char* const kPreset = kBusyPreset;

const char* kOtherPreset = R"({"format": "auglab-preset", "version": 1, "name": "t", "seed": 5, "pipeline": [
  {"op": "affine", "rotate_deg": [-30, 30], "border": "reflect"}]})";

}  // namespace

class TestAugment : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void outputsEqualApply_data();
    void outputsEqualApply();
    void manifestReplaysReproduceOutputs();
    void resumeWritesOnlyWhatIsMissing();
    void addedFilesKeepOtherOutputs();
    void changedArgumentsRefused_data();
    void changedArgumentsRefused();
    void overwriteStartsAgain();
    void foreignFolderRefused();
    void corruptInputsSkipped();
    void pipelineTooLargeForAnImageFailsThatImage();
    void clashingNamesReported();
    void inputsNeverOverwritten_data();
    void inputsNeverOverwritten();
    void jobsGiveIdenticalOutputs();
    void memoryBoundKeepsOutputs();
    void interruptedRunLeavesWholeFilesAndResumes();
    void jpegDropsAlphaWithNote();
    void jpegsDecodeOnlyWhatTheSamplesRead();
    void yoloLabelsFollowEveryOutput();
    void cocoLabelsInOneFile();
    void maskFolderIsLabelsNotInputs();
    void usageErrors_data();
    void usageErrors();

private:
    QStringList base(const QString& in, const QString& out) const {
        return {"augment", "--preset", preset_, "--input", in, "--output", out, "--backend", "cpu"};
    }
    QTemporaryDir dir_;
    QString preset_, otherPreset_, input_;
};

void TestAugment::initTestCase() {
    QVERIFY(dir_.isValid());
    preset_ = dir_.filePath("p.auglab.json");
    otherPreset_ = dir_.filePath("other.auglab.json");
    QVERIFY(writeBytes(preset_, kPreset));
    QVERIFY(writeBytes(otherPreset_, kOtherPreset));
    input_ = dir_.filePath("input");
    makeInput(input_);
}

void TestAugment::outputsEqualApply_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("png") << "png";
    QTest::newRow("jpg") << "jpg";  // quality 95 on both sides
}

void TestAugment::outputsEqualApply() {
    QFETCH(QString, format);
    QTemporaryDir d;
    const QString out = d.filePath("out");
    const Run r = cli(base(input_, out) + QStringList{"--copies", "2", "--seed", "77", "--format", format});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("4 files, 8 outputs written, 0 already done, 0 failed"), qPrintable(r.out));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));  // no progress line when stderr is not a terminal
    const Manifest m = readManifest(out);
    QVERIFY(m.valid);
    QCOMPARE(m.ok.size(), 8);
    QCOMPARE(m.header["format"].toString(), QString("auglab-augment-manifest"));
    QCOMPARE(m.header["copies"].toInt(), 2);
    QCOMPARE(m.header["image_format"].toString(), format);
    for (const QString& input : kInputs)
        for (int copy : {0, 1}) {
            // The folder is mirrored and the name is <stem>_aug<k>.<ext>.
            const QString name = outputName(input, copy, format);
            const QJsonObject line = m.output(name);
            QCOMPARE(line["input"].toString(), input);
            QCOMPARE(line["copy"].toInt(), copy);
            QCOMPARE(line["seed"].toInteger(), 77);
            QCOMPARE(line["index"].toInteger(), expectedIndex(input, copy));
            const QByteArray bytes = readAll(out + "/" + name);
            QVERIFY(bytes.size() > 500);
            QCOMPARE(line["bytes"].toInteger(), bytes.size());
            if (copy == 1 && input == "chelsea.png") continue;  // three of four are enough for apply
            const QString applied = d.filePath("apply." + format);
            const Run a = cli({"apply", "--preset", preset_, "--image", input_ + "/" + input, "--index",
                               QString::number(line["index"].toInteger()), "--seed", "77", "--backend", "cpu",
                               "--out", applied});
            QCOMPARE(a.code, 0);
            QVERIFY2(readAll(applied) == bytes, qPrintable(name));
        }
    // Copies differ from each other.
    QVERIFY(readAll(out + "/chelsea_aug0." + format) != readAll(out + "/chelsea_aug1." + format));
}

void TestAugment::manifestReplaysReproduceOutputs() {
    QTemporaryDir d;
    const QString out = d.filePath("out");
    QCOMPARE(cli(base(input_, out) + QStringList{"--copies", "2"}).code, 0);
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 8);
    for (const int i : {1, 6}) {
        const QJsonObject line = m.ok[i];
        const QJsonObject replay = line["replay"].toObject();
        QCOMPARE(replay["format"].toString(), QString("auglab-replay"));
        QCOMPARE(replay["index"].toInteger(), line["index"].toInteger());
        QCOMPARE(replay["seed"].toInteger(), 5);  // the preset's seed without --seed
        // The replay's text exactly as in the manifest: it is the last member of the line.
        const QByteArray& raw = m.okLines[i];
        QVERIFY(raw.endsWith("}}"));
        const QByteArray replayText = raw.mid(raw.indexOf("\"replay\":") + 9).chopped(1);
        QCOMPARE(QJsonDocument::fromJson(replayText).object(), replay);
        const QString replayFile = d.filePath("r.json"), again = d.filePath("again.png");
        QVERIFY(writeBytes(replayFile, replayText));
        const QString image = m.header["input"].toString() + "/" + line["input"].toString();
        QCOMPARE(cli({"replay", "--replay", replayFile, "--image", image, "--backend", "cpu", "--out", again})
                     .code,
                 0);
        QCOMPARE(readAll(again), readAll(out + "/" + line["output"].toString()));
    }
}

void TestAugment::resumeWritesOnlyWhatIsMissing() {
    QTemporaryDir d;
    const QString out = d.filePath("out");
    const QStringList args = base(input_, out) + QStringList{"--copies", "2"};
    QCOMPARE(cli(args).code, 0);
    const QString gone = out + "/cats/coffee_aug1.png";
    const QByteArray goneBytes = readAll(gone);
    QVERIFY(!goneBytes.isEmpty());
    Snapshot before = snapshot(out);
    QVERIFY(QFile::remove(gone));
    QThread::msleep(20);  // a rewrite would get a later modification time

    const Run r = cli(args);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("1 outputs written, 7 already done"), qPrintable(r.out));
    QCOMPARE(readAll(gone), goneBytes);
    Snapshot after = snapshot(out);
    for (Snapshot* s : {&before, &after}) {
        s->erase("auglab-manifest.jsonl");
        s->erase("cats/coffee_aug1.png");
    }
    QCOMPARE(after.size(), std::size_t(7));
    QVERIFY(after == before);  // the other outputs were not touched: same inode, same mtime
    Manifest m = readManifest(out);
    QVERIFY(m.valid);
    QCOMPARE(m.ok.size(), 8);  // one line per output, the rewritten one once

    // A manifest cut by a kill mid-line: the cut line is ignored, nothing else is lost.
    QVERIFY(QFile::remove(out + "/chelsea_aug0.png"));
    {
        QFile f(out + "/auglab-manifest.jsonl");
        QVERIFY(f.open(QIODevice::Append));
        f.write("{\"status\":\"ok\",\"input\":\"chel");
    }
    const Run cut = cli(args);
    QCOMPARE(cut.code, 0);
    QVERIFY2(cut.err.contains("unreadable manifest line"), qPrintable(cut.err));
    QVERIFY2(cut.out.contains("1 outputs written, 7 already done"), qPrintable(cut.out));
    m = readManifest(out);
    QVERIFY(m.valid);
    QCOMPARE(m.ok.size(), 8);
}

void TestAugment::addedFilesKeepOtherOutputs() {
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    makeInput(in);
    QCOMPARE(cli(base(in, out) + QStringList{"--copies", "2"}).code, 0);
    const Manifest before = readManifest(out);
    writePhoto(in + "/aaa.png", "coffee.png", 64, 48);  // sorts first: an ordinal index would shift
    const Run r = cli(base(in, out) + QStringList{"--copies", "2"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("5 files, 2 outputs written, 8 already done"), qPrintable(r.out));
    const Manifest after = readManifest(out);
    QCOMPARE(after.ok.size(), 10);
    for (const QJsonObject& old : before.ok) QCOMPARE(after.output(old["output"].toString()), old);
}

void TestAugment::changedArgumentsRefused_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("difference");
    QTest::newRow("seed") << "seed"
                          << "78"
                          << "seed 77 there, 78 now";
    QTest::newRow("copies") << "copies"
                            << "3"
                            << "copies 2 there, 3 now";
    QTest::newRow("format") << "format"
                            << "jpg"
                            << "format png there, jpg now";
    QTest::newRow("preset") << "preset"
                            << "OTHER"
                            << "a different preset pipeline";
    QTest::newRow("input") << "input"
                           << "OTHER"
                           << "input folder";
}

void TestAugment::changedArgumentsRefused() {
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, difference);
    QTemporaryDir d;
    const QString out = d.filePath("out");
    QMap<QString, QString> args{{"preset", preset_}, {"input", input_}, {"output", out},
                                {"copies", "2"},     {"seed", "77"},    {"backend", "cpu"}};
    const auto command = [&] {
        QStringList list{"augment"};
        for (auto it = args.begin(); it != args.end(); ++it) list << "--" + it.key() << it.value();
        return list;
    };
    QCOMPARE(cli(command()).code, 0);
    if (value == "OTHER") {
        value = option == "preset" ? otherPreset_ : d.filePath("copy");
        if (option == "input") makeInput(value);  // the same images in another folder
    }
    args[option] = value;
    const Snapshot before = snapshot(out);
    const Run r = cli(command());
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("other arguments") && r.err.contains(difference) && r.err.contains("--overwrite"),
             qPrintable(r.err));
    QVERIFY(snapshot(out) == before);  // nothing written, nothing removed, manifest untouched
}

void TestAugment::overwriteStartsAgain() {
    QTemporaryDir d;
    const QString out = d.filePath("out");
    QCOMPARE(cli(base(input_, out) + QStringList{"--copies", "3"}).code, 0);
    QVERIFY(QFile::exists(out + "/chelsea_aug2.png"));
    QCOMPARE(cli(base(input_, out) + QStringList{"--copies", "1"}).code, 2);
    const Run r = cli(base(input_, out) + QStringList{"--copies", "1", "--overwrite"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("removed 12 outputs"), qPrintable(r.err));
    QStringList names;
    for (const auto& [name, state] : snapshot(out)) names << QString::fromStdString(name);
    names.sort();
    QStringList expected{"auglab-manifest.jsonl"};
    for (const QString& in : kInputs) expected << outputName(in, 0, "png");
    expected.sort();
    QCOMPARE(names, expected);  // the old copies 1 and 2 are gone: the runs are not mixed
    const Manifest m = readManifest(out);
    QCOMPARE(m.header["copies"].toInt(), 1);
    QCOMPARE(m.ok.size(), 4);
}

void TestAugment::foreignFolderRefused() {
    QTemporaryDir d;
    const QString out = d.filePath("out");
    QVERIFY(writeBytes(out + "/notes.txt", "mine"));
    const Snapshot before = snapshot(out);
    const Run r = cli(base(input_, out));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("is not empty") && r.err.contains("--overwrite"), qPrintable(r.err));
    QVERIFY(snapshot(out) == before);
}

void TestAugment::corruptInputsSkipped() {
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    makeInput(in);
    const QByteArray jpeg = readAll(QString::fromStdString(samplePath("rocket.jpg")));
    QVERIFY(writeBytes(in + "/broken/cut.jpg", jpeg.left(jpeg.size() / 3)));
    QVERIFY(writeBytes(in + "/broken/text.png", "hello, I am not an image\n"));
    const Run r = cli(base(in, out) + QStringList{"--copies", "2", "--jobs", "2"});
    QCOMPARE(r.code, 1);  // some inputs failed, after every other one was done
    QVERIFY2(r.err.contains("cut.jpg") && r.err.contains("truncated JPEG"), qPrintable(r.err));
    QVERIFY2(r.err.contains("text.png") && r.err.contains("not a supported image"), qPrintable(r.err));
    QVERIFY2(r.out.contains("6 files, 8 outputs written, 0 already done, 2 failed"), qPrintable(r.out));
    const Manifest m = readManifest(out);
    QVERIFY(m.valid);
    QCOMPARE(m.ok.size(), 8);
    QCOMPARE(m.failed.size(), 2);
    QCOMPARE(m.failed[0]["input"].toString(), QString("broken/cut.jpg"));
    QVERIFY(m.failed[0]["error"].toString().contains("truncated JPEG"));
    QCOMPARE(m.failed[1]["input"].toString(), QString("broken/text.png"));
    QVERIFY(!QFile::exists(out + "/broken/cut_aug0.png") && !QFile::exists(out + "/broken/text_aug0.png"));
    QCOMPARE(snapshot(out).size(), std::size_t(9));  // the 8 outputs and the manifest, nothing else
    // A rerun tries the failed inputs again and leaves the rest alone.
    const Run again = cli(base(in, out) + QStringList{"--copies", "2"});
    QCOMPARE(again.code, 1);
    QVERIFY2(again.out.contains("0 outputs written, 8 already done, 2 failed"), qPrintable(again.out));
}

void TestAugment::pipelineTooLargeForAnImageFailsThatImage() {
    // Holes of at least 50 px do not fit a 40x40 image (Albumentations raises there too): that input
    // fails with the reason, the others are written, and the run goes on.
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out"), preset = d.filePath("holes.auglab.json");
    writePhoto(in + "/big.png", "chelsea.png", 120, 80);
    writePhoto(in + "/small.png", "coffee.png", 40, 40);
    QVERIFY(
        writeBytes(preset, R"({"format": "auglab-preset", "version": 1, "pipeline": [{"op": "coarse_dropout",
        "holes": [1, 2], "hole_height_px": [50, 60], "hole_width_px": [10, 20]}]})"));
    const Run r = cli({"augment", "--preset", preset, "--input", in, "--output", out, "--backend", "cpu"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("small.png") && r.err.contains("do not fit this 40x40 image"), qPrintable(r.err));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);
    QCOMPARE(m.failed.size(), 1);
    QCOMPARE(m.failed[0]["input"].toString(), QString("small.png"));
}

void TestAugment::clashingNamesReported() {
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    writePhoto(in + "/a.jpg", "chelsea.png", 64, 48);
    writePhoto(in + "/a.png", "coffee.png", 64, 48);  // a_aug0.png too: the second in order fails
    const Run r = cli(base(in, out));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("a.png") && r.err.contains("rename one"), qPrintable(r.err));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 1);
    QCOMPARE(m.ok[0]["input"].toString(), QString("a.jpg"));
    QCOMPARE(m.failed.size(), 1);
    QCOMPARE(m.failed[0]["input"].toString(), QString("a.png"));
}

void TestAugment::inputsNeverOverwritten_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("output");
    QTest::addColumn<QString>("message");
    QTest::newRow("output is the input") << "in"
                                         << "in"
                                         << "is the --input folder";
    QTest::newRow("output inside input") << "in"
                                         << "in/augmented"
                                         << "is inside --input";
    QTest::newRow("input inside output") << "in/cats"
                                         << "in"
                                         << "is inside --output";
    QTest::newRow("output links to input") << "in"
                                           << "link"
                                           << "is the --input folder";
    QTest::newRow("output is a file") << "in"
                                      << "in/chelsea.png"
                                      << "is not a folder";
}

void TestAugment::inputsNeverOverwritten() {
    QFETCH(QString, input);
    QFETCH(QString, output);
    QFETCH(QString, message);
    QTemporaryDir d;
    makeInput(d.filePath("in"));
    QVERIFY(QFile::link(d.filePath("in"), d.filePath("link")));
    const Snapshot before = snapshot(d.path());
    const Run r = cli(base(d.filePath(input), d.filePath(output)));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(snapshot(d.path()) == before);  // not a byte written anywhere
    QVERIFY(!QFileInfo::exists(d.filePath("in/augmented")));
}

void TestAugment::jobsGiveIdenticalOutputs() {
    QTemporaryDir d;
    const QString one = d.filePath("one"), two = d.filePath("two");
    QCOMPARE(cli(base(input_, one) + QStringList{"--copies", "3", "--jobs", "1"}).code, 0);
    QCOMPARE(cli(base(input_, two) + QStringList{"--copies", "3", "--jobs", "2"}).code, 0);
    const Snapshot a = snapshot(one), b = snapshot(two);
    QCOMPARE(a.size(), std::size_t(13));  // 12 outputs and the manifest: no temporary file left
    QCOMPARE(b.size(), a.size());
    for (const auto& [name, state] : a) {
        const QString n = QString::fromStdString(name);
        QVERIFY2(b.count(name), qPrintable(n));
        QVERIFY2(readAll(one + "/" + n) == readAll(two + "/" + n), qPrintable(n));  // the manifests too
    }
}

void TestAugment::memoryBoundKeepsOutputs() {
    // Three 400x400 photos hold 1.3 MB each in flight (decode and output): under --memory-mb 1 the
    // two jobs take turns, each file alone. The outputs are those of one job, and nothing hangs.
    QTemporaryDir d;
    const QString in = d.filePath("in"), one = d.filePath("one"), bounded = d.filePath("bounded");
    writePhoto(in + "/a.png", "astronaut.png", 400, 400);
    writePhoto(in + "/b.jpg", "coffee.png", 400, 400);
    writePhoto(in + "/c.png", "chelsea.png", 400, 400);
    QCOMPARE(cli(base(in, one) + QStringList{"--copies", "2", "--jobs", "1"}).code, 0);
    const Run r = cli(base(in, bounded) + QStringList{"--copies", "2", "--jobs", "2", "--memory-mb", "1"});
    QCOMPARE(r.code, 0);
    const Snapshot a = snapshot(one), b = snapshot(bounded);
    QCOMPARE(a.size(), std::size_t(7));
    QCOMPARE(b.size(), a.size());
    for (const auto& [name, state] : a) {
        const QString n = QString::fromStdString(name);
        QVERIFY2(readAll(one + "/" + n) == readAll(bounded + "/" + n), qPrintable(n));
    }
    QCOMPARE(cli(base(in, d.filePath("x")) + QStringList{"--memory-mb", "0"}).code, 2);
}

void TestAugment::interruptedRunLeavesWholeFilesAndResumes() {
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    writePhoto(in + "/photo.png", "astronaut.png", 160, 120);
    const QStringList args = base(in, out).mid(1) + QStringList{"--copies", "200", "--jobs", "1"};
    QProcess p;
    p.start(QStringLiteral(AUGLAB_CLI), QStringList{"augment"} + args);
    QVERIFY(p.waitForStarted());
    // Wait for the first output line in the manifest, then stop it as a `kill` would.
    QElapsedTimer t;
    t.start();
    while (readAll(out + "/auglab-manifest.jsonl").count('\n') < 2 && t.elapsed() < 30000) QThread::msleep(2);
    p.terminate();  // SIGTERM
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // handled, not killed
    QCOMPARE(p.exitCode(), 143);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains("interrupted by SIGTERM") && err.contains("resume"), qPrintable(err));

    const Manifest m = readManifest(out);
    QVERIFY(m.valid);
    const int done = static_cast<int>(m.ok.size());
    QVERIFY2(done >= 1 && done < 200, qPrintable(QString::number(done)));
    // Every file is the manifest or a whole output it lists: no temporary, no half-written file.
    const Snapshot files = snapshot(out);
    QCOMPARE(files.size(), std::size_t(done + 1));
    for (const auto& [name, state] : files) {
        if (name == "auglab-manifest.jsonl") continue;
        const QJsonObject line = m.output(QString::fromStdString(name));
        QVERIFY2(!line.isEmpty(), name.c_str());
        QCOMPARE(static_cast<qint64>(state.size), line["bytes"].toInteger());
        QCOMPARE(loadImage(native(out) / name).image.width, 160);
    }
    const Run r = cli(QStringList{"augment"} + args);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QString("%1 outputs written, %2 already done").arg(200 - done).arg(done)),
             qPrintable(r.out));
    QCOMPARE(snapshot(out).size(), std::size_t(201));
}

void TestAugment::jpegDropsAlphaWithNote() {
    QTemporaryDir d;
    const QString in = d.filePath("in");
    writePhoto(in + "/a.png", "chelsea.png", 64, 48, 4);
    writePhoto(in + "/b.png", "coffee.png", 64, 48, 4);
    const Run jpg = cli(base(in, d.filePath("jpg")) + QStringList{"--format", "jpg", "--quality", "80"});
    QCOMPARE(jpg.code, 0);
    QCOMPARE(jpg.err.count("note: JPEG has no alpha channel"), 1);  // told once, not per file
    QCOMPARE(loadImage(native(d.filePath("jpg/a_aug0.jpg"))).image.channels, 3);
    const Run png = cli(base(in, d.filePath("png")));
    QCOMPARE(png.code, 0);
    QVERIFY(!png.err.contains("alpha"));
    QCOMPARE(loadImage(native(d.filePath("png/a_aug0.png"))).image.channels, 4);  // PNG keeps it
}

void TestAugment::jpegsDecodeOnlyWhatTheSamplesRead() {
    // A baseline JPEG is decoded only where the copies' first warps read it (crops, zooms): the
    // outputs are still `apply`'s, which decodes the whole file. Progressive and gray files too.
    QTemporaryDir d;
    const QString in = d.filePath("in"), preset = d.filePath("crop.auglab.json");
    QVERIFY(writeBytes(preset, R"({"format": "auglab-preset", "version": 1, "seed": 9, "pipeline": [
        {"op": "random_resized_crop", "size": [64, 64], "p": 1}, {"op": "horizontal_flip", "p": 0.5},
        {"op": "color_jitter", "p": 0.8}, {"op": "coarse_dropout", "p": 0.5},
        {"op": "affine", "scale_x": [1, 1.5], "scale_y": [1, 1.5], "rotate_deg": [-20, 20], "border": "constant"}]})"));
    writePhoto(in + "/coffee.jpg", "coffee.png", 333, 250);
    writePhoto(in + "/astronaut.jpg", "astronaut.png", 300, 300);
    const cv::Mat photo = toMat(photoCrop("rocket.jpg", 256, 200, 3));
    cv::Mat gray;
    cv::cvtColor(photo, gray, cv::COLOR_RGB2GRAY);
    QVERIFY(cv::imwrite(native(in + "/progressive.jpg"), photo, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
    QVERIFY(cv::imwrite(native(in + "/gray.jpg"), gray));
    const QString out = d.filePath("out");
    const Run r = cli({"augment", "--preset", preset, "--input", in, "--output", out, "--backend", "cpu", "--copies",
                       "3", "--format", "png"});
    QCOMPARE(r.code, 0);
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 12);
    for (const QJsonObject& line : m.ok) {
        const QString applied = d.filePath("apply.png");
        const Run a = cli({"apply", "--preset", preset, "--image", in + "/" + line["input"].toString(), "--index",
                           QString::number(line["index"].toInteger()), "--backend", "cpu", "--out", applied});
        QCOMPARE(a.code, 0);
        QVERIFY2(readAll(applied) == readAll(out + "/" + line["output"].toString()),
                 qPrintable(line["output"].toString()));
    }
}

// A labelled dataset of two photos: YOLO (images/ and labels/, data.yaml), a preset that moves boxes.
static void makeYoloDataset(const QString& root) {
    writePhoto(root + "/images/train/chelsea.png", "chelsea.png", 120, 80);
    writePhoto(root + "/images/train/coffee.jpg", "coffee.png", 100, 70);
    QVERIFY(writeBytes(root + "/data.yaml", "path: .\ntrain: images/train\nnames: [cat, cup]\n"));
    QVERIFY(writeBytes(root + "/labels/train/chelsea.txt", "0 0.5 0.5 0.4 0.5\n1 0.1 0.1 0.1 0.1\n"));
    // coffee.jpg has no label file: an image without objects.
}

static const char* const kLabelPreset = R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [
    {"op": "affine", "rotate_deg": [-30, 30], "scale_x": [0.8, 1.2], "scale_y": [0.8, 1.2], "p": 1},
    {"op": "horizontal_flip", "p": 0.5}], "targets": {"boxes": {"format": "yolo", "min_visibility": 0.3}}})";

void TestAugment::yoloLabelsFollowEveryOutput() {
    QTemporaryDir d;
    const QString in = d.filePath("ds"), out = d.filePath("out"), preset = d.filePath("labels.auglab.json");
    makeYoloDataset(in);
    QVERIFY(writeBytes(preset, kLabelPreset));
    const QStringList args{"augment",   "--preset", preset,     "--input", in,       "--output", out,
                           "--backend", "cpu",      "--copies", "3",       "--seed", "9"};
    const Run r = cli(args);
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("labels: yolo"), qPrintable(r.out));
    const Manifest m = readManifest(out);
    QCOMPARE(m.ok.size(), 6);
    QCOMPARE(m.header["labels"].toString(), QString("yolo"));
    for (const QJsonObject& o : m.ok) {
        const QString output = o["output"].toString();
        const QString label = o["labels"].toObject()["file"].toString();
        // The label file sits where the input's does, named after the output.
        QCOMPARE(label, "labels/train/" + QFileInfo(output).completeBaseName() + ".txt");
        QVERIFY(QFileInfo::exists(out + "/" + label));
        // The same labels as apply writes for that sample.
        const QString input = o["input"].toString();
        const QString applyOut = d.filePath("apply.png"), applyLabels = d.filePath("apply.txt");
        const QString source = in + "/" + input;
        const QString labelsIn = input.contains("chelsea") ? in + "/labels/train/chelsea.txt" : QString();
        QStringList applyArgs{"apply",
                              "--preset",
                              preset,
                              "--image",
                              source,
                              "--index",
                              QString::number(o["index"].toInteger()),
                              "--seed",
                              "9",
                              "--out",
                              applyOut,
                              "--backend",
                              "cpu"};
        if (!labelsIn.isEmpty()) {
            applyArgs << "--annotations" << labelsIn << "--out-annotations" << applyLabels;
            const Run a = cli(applyArgs);
            QVERIFY2(a.code == 0, qPrintable(a.err));
            QCOMPARE(readAll(out + "/" + label), readAll(applyLabels));
            QVERIFY(!readAll(applyLabels).isEmpty());
        } else {
            QCOMPARE(readAll(out + "/" + label), QByteArray());  // no objects in, none out
        }
    }
    // A label file lost since: its output is done again, labels first.
    const QString lost = out + "/" + m.ok[0]["labels"].toObject()["file"].toString();
    const QByteArray lostBytes = readAll(lost);
    QVERIFY(QFile::remove(lost));
    const Run again = cli(args);
    QVERIFY2(again.code == 0 && again.out.contains("1 outputs written, 5 already done"),
             qPrintable(again.out));
    QCOMPARE(readAll(lost), lostBytes);
    // --overwrite removes the old run's label files with its images.
    QVERIFY(writeBytes(preset, QByteArray(kLabelPreset).replace("\"seed\": 5", "\"seed\": 6")));
    const QString oldLabel = lost;
    QVERIFY(cli(args + QStringList{"--overwrite"}).code == 0);
    QVERIFY(QFileInfo::exists(oldLabel));  // same names, written again by the new run
    // Another targets section is another run.
    QVERIFY(writeBytes(preset, QByteArray(kLabelPreset).replace("0.3", "0.5")));
    const Run refused = cli(args);
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains("a different targets section"), qPrintable(refused.err));
}

void TestAugment::cocoLabelsInOneFile() {
    QTemporaryDir d;
    const QString in = d.filePath("coco"), out = d.filePath("out"), preset = d.filePath("labels.auglab.json");
    writePhoto(in + "/images/chelsea.png", "chelsea.png", 120, 80);
    writePhoto(in + "/images/coffee.png", "coffee.png", 100, 70);
    QVERIFY(writeBytes(in + "/annotations/instances_train.json", R"({"images": [
        {"id": 1, "file_name": "chelsea.png", "width": 120, "height": 80},
        {"id": 2, "file_name": "coffee.png", "width": 100, "height": 70}],
      "annotations": [
        {"id": 10, "image_id": 1, "category_id": 3, "iscrowd": 0, "bbox": [30, 20, 60, 40], "area": 2400,
         "segmentation": [[30, 20, 90, 20, 90, 60, 30, 60]]},
        {"id": 11, "image_id": 2, "category_id": 5, "iscrowd": 0, "bbox": [10, 10, 20, 20], "area": 400}],
      "categories": [{"id": 3, "name": "cat"}, {"id": 5, "name": "cup"}]})"));
    QVERIFY(writeBytes(preset, QByteArray(kLabelPreset).replace("\"yolo\"", "\"coco\"")));
    const QStringList args{"augment", "--preset",  preset, "--input",  in, "--output",
                           out,       "--backend", "cpu",  "--copies", "2"};
    const Run r = cli(args);
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    const QJsonObject doc =
        QJsonDocument::fromJson(readAll(out + "/annotations/instances_train.json")).object();
    const QJsonArray images = doc["images"].toArray();
    QCOMPARE(images.size(), 4);
    QSet<QString> names;
    for (const auto& v : images) {
        names.insert(v.toObject()["file_name"].toString());
        QVERIFY(QFileInfo::exists(out + "/" + v.toObject()["file_name"].toString()));
    }
    QCOMPARE(names.size(), 4);
    QCOMPARE(doc["categories"].toArray().size(), 2);
    // Every annotation belongs to one of the images, with the category it had.
    for (const auto& v : doc["annotations"].toArray()) {
        const QJsonObject a = v.toObject();
        QVERIFY(a["image_id"].toInt() >= 1 && a["image_id"].toInt() <= 4);
        const QString file = images[a["image_id"].toInt() - 1].toObject()["file_name"].toString();
        QCOMPARE(a["category_id"].toInt(), file.contains("chelsea") ? 3 : 5);
        QCOMPARE(a["bbox"].toArray().size(), 4);
    }
}

void TestAugment::maskFolderIsLabelsNotInputs() {
    QTemporaryDir d;
    const QString in = d.filePath("seg"), out = d.filePath("out"), preset = d.filePath("labels.auglab.json");
    writePhoto(in + "/images/chelsea.png", "chelsea.png", 120, 80);
    Image mask(120, 80, 3, 0);
    for (int y = 20; y < 60; ++y)
        for (int x = 30; x < 90; ++x) mask.at(x, y)[0] = mask.at(x, y)[1] = mask.at(x, y)[2] = 2;
    QDir().mkpath(in + "/masks");
    saveImage(native(in + "/masks/chelsea.png"), mask);
    QVERIFY(writeBytes(preset, kLabelPreset));
    const Run r = cli(
        {"augment", "--preset", preset, "--input", in, "--output", out, "--backend", "cpu", "--copies", "2"});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("1 files, 2 outputs written"), qPrintable(r.out));  // the mask is not an input
    for (int k = 0; k < 2; ++k) {
        const QString file = out + "/masks/chelsea_aug" + QString::number(k) + ".png";
        const Image m = loadImage(native(file)).image;
        QCOMPARE(m.width, 120);
        QCOMPARE(m.height, 80);
        int twos = 0, other = 0;
        for (int y = 0; y < m.height; ++y)
            for (int x = 0; x < m.width; ++x) {
                const int v = m.at(x, y)[0];
                twos += v == 2;
                other += v != 0 && v != 2;
            }
        QVERIFY(twos > 1000);  // the 60x40 region, rotated and zoomed by at most 30 degrees and 0.8x
        QCOMPARE(other, 0);    // nearest neighbour: no value the mask did not have
    }
}

void TestAugment::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString in = "@IN", out = "@OUT";
    QTest::newRow("missing preset") << QStringList{"--input", in, "--output", out} << "--preset";
    QTest::newRow("missing input") << QStringList{"--preset", "@P", "--output", out} << "--input";
    QTest::newRow("missing output") << QStringList{"--preset", "@P", "--input", in} << "--output";
    QTest::newRow("no such input") << QStringList{"--preset",     "@P",       "--input",
                                                  "/no/such/dir", "--output", out}
                                   << "does not exist";
    QTest::newRow("input is a file") << QStringList{"--preset", "@P", "--input", "@P", "--output", out}
                                     << "is not a folder";
    QTest::newRow("no images") << QStringList{"--preset", "@P", "--input", "@EMPTY", "--output", out}
                               << "no image files";
    const QStringList ok{"--preset", "@P", "--input", in, "--output", out};
    QTest::newRow("copies 0") << ok + QStringList{"--copies", "0"} << "--copies: 0 is outside 1..65536";
    QTest::newRow("copies 70000") << ok + QStringList{"--copies", "70000"} << "--copies";
    QTest::newRow("copies word") << ok + QStringList{"--copies", "two"} << "expected an integer";
    QTest::newRow("bad format") << ok + QStringList{"--format", "webp"} << "--format: expected png or jpg";
    QTest::newRow("quality 0") << ok + QStringList{"--format", "jpg", "--quality", "0"}
                               << "--quality: 0 is outside 1..100";
    QTest::newRow("quality 101") << ok + QStringList{"--format", "jpg", "--quality", "101"} << "--quality";
    QTest::newRow("quality for png") << ok + QStringList{"--quality", "90"} << "--format jpg only";
    QTest::newRow("jobs 0") << ok + QStringList{"--jobs", "0"} << "--jobs";
    QTest::newRow("unknown backend") << ok + QStringList{"--backend", "tpu"} << "unknown backend";
    QTest::newRow("bad preset") << QStringList{"--preset", "@BADP", "--input", in, "--output", out}
                                << "bad.auglab.json";
}

void TestAugment::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir d;
    QVERIFY(QDir().mkpath(d.filePath("empty")));
    QVERIFY(writeBytes(d.filePath("bad.auglab.json"), "{\"format\": \"auglab-preset\", \"version\": 1,,}"));
    for (QString& a : args)
        a = a == "@IN"      ? input_
            : a == "@OUT"   ? d.filePath("out")
            : a == "@P"     ? preset_
            : a == "@EMPTY" ? d.filePath("empty")
            : a == "@BADP"  ? d.filePath("bad.auglab.json")
                            : a;
    const Run r = cli(QStringList{"augment"} + args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(d.filePath("out")));  // refused before anything was made
    const Run help = cli({"augment", "--help"});
    QCOMPARE(help.code, 0);
    QVERIFY(help.out.contains("auglab-manifest.jsonl"));
}

// Needs the GL backend (a display: Xvfb's software renderer will do).
class TestAugmentGl : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void glBackendIsDeterministic();

private:
    QTemporaryDir dir_;
};

void TestAugmentGl::initTestCase() {
    const Run info = cli({"info", "--json"});
    for (const auto& b : QJsonDocument::fromJson(info.out.toUtf8()).object()["backends"].toArray())
        if (b.toObject()["name"] == "gl" && !b.toObject()["available"].toBool())
            QSKIP(qPrintable("the GL backend is not available: " + b.toObject()["detail"].toString()));
    QVERIFY(dir_.isValid());
    QVERIFY(writeBytes(dir_.filePath("p.auglab.json"), kPreset));
    makeInput(dir_.filePath("input"));
}

void TestAugmentGl::glBackendIsDeterministic() {
    // The GL backend renders on the main thread for every worker: still the same bytes for any --jobs.
    QTemporaryDir d;
    QStringList args{"augment",
                     "--preset",
                     dir_.filePath("p.auglab.json"),
                     "--input",
                     dir_.filePath("input"),
                     "--output",
                     d.filePath("one"),
                     "--backend",
                     "gl"};
    QCOMPARE(cli(args + QStringList{"--copies", "2", "--jobs", "1"}).code, 0);
    args[args.indexOf(d.filePath("one"))] = d.filePath("two");
    QCOMPARE(cli(args + QStringList{"--copies", "2", "--jobs", "3"}).code, 0);
    const Manifest m = readManifest(d.filePath("one"));
    QCOMPARE(m.ok.size(), 8);
    for (const QJsonObject& line : m.ok) {
        QCOMPARE(line["backend"].toString(), QString("gl"));
        const QString name = line["output"].toString();
        QCOMPARE(readAll(d.filePath("one/" + name)), readAll(d.filePath("two/" + name)));
    }
    QCOMPARE(readAll(d.filePath("one/auglab-manifest.jsonl")),
             readAll(d.filePath("two/auglab-manifest.jsonl")));
}

int main(int argc, char** argv) {
    return auglab::testing::runSuites<TestAugment, TestAugmentGl>(argc, argv);
}
#include "test_augment.moc"
