// `auglab-cli augment --shard K/N` and `--merge-manifests`, driven as a cluster drives them: N
// processes of the real binary over one input folder, into one shared output folder (all at once)
// or into folders of their own copied together afterwards. Merged, their union must be one
// machine's run byte for byte: images, label files, the COCO file and the manifest. Refusals are
// checked against a snapshot of every file around them.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <filesystem>
#include <memory>

#include "augment_test_support.h"
#include "cli_test_support.h"

using namespace auglab;
using namespace auglab::testing;
namespace fs = std::filesystem;

namespace {

using Run = CliRun;

// The documented rule, computed here independently: the file's 37 bits of its sample index, mod N.
int expectedShard(const QString& relative, int count) {
    return static_cast<int>((static_cast<quint64>(expectedIndex(relative, 0)) >> 16) %
                            static_cast<quint64>(count));
}

QString shardManifest(int k, int n) {
    return QString("auglab-manifest.shard-%1-of-%2.jsonl").arg(k).arg(n);
}

// kBusyPreset's random streams and mixup, whose partner comes from every input of the folder: a
// shard must draw from the whole folder as one machine does, not from its own part.
const char* const kMixPreset = R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [
  {"op": "affine", "rotate_deg": [-25, 25], "border": "reflect"},
  {"op": "horizontal_flip", "p": 0.5},
  {"op": "coarse_dropout", "p": 0.7, "fill": "random"},
  {"op": "mixup", "alpha": 0.4, "p": 0.7},
  {"op": "gauss_noise", "p": 0.5}]})";

const char* const kLabelPreset = R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [
  {"op": "affine", "rotate_deg": [-30, 30], "scale_x": [0.8, 1.2], "scale_y": [0.8, 1.2], "p": 1},
  {"op": "horizontal_flip", "p": 0.5}, {"op": "mixup", "alpha": 0.4, "p": 0.5}],
  "targets": {"boxes": {"format": "yolo", "min_visibility": 0.3}}})";

const char* const kPhotos[] = {"chelsea.png", "coffee.png", "rocket.jpg", "astronaut.png"};

// kInputs and a dozen more photos in three folders, a truncated JPEG and two inputs whose outputs
// clash: failures must land in their shards' manifests as in one run's.
QStringList makeBigInput(const QString& dir) {
    makeInput(dir);
    QStringList all = kInputs;
    for (int i = 0; i < 12; ++i) {
        const QString name =
            QString("%1/p%2.%3").arg(i % 3 ? "birds" : "fish").arg(i).arg(i % 2 ? "png" : "jpg");
        writePhoto(dir + "/" + name, kPhotos[i % 4], 64 + 8 * i, 48 + 4 * i);
        all << name;
    }
    const QByteArray jpeg = readAll(QString::fromStdString(samplePath("rocket.jpg")));
    writeBytes(dir + "/broken/cut.jpg", jpeg.left(jpeg.size() / 3));
    writePhoto(dir + "/clash/a.jpg", "chelsea.png", 64, 48);
    writePhoto(dir + "/clash/a.png", "coffee.png", 64, 48);  // a_aug0.png too: fails, as in one run
    return all << "broken/cut.jpg"
               << "clash/a.jpg"
               << "clash/a.png";
}

// Runs the N shards: at once into `outs[0]` when there is one folder, else one after the other, shard
// k into outs[k]. Returns their exit codes.
QList<int> runShards(const QStringList& args, int n, const QStringList& outs) {
    QList<int> codes;
    std::vector<std::unique_ptr<QProcess>> running;
    for (int k = 0; k < n; ++k) {
        auto p = std::make_unique<QProcess>();
        const QString out = outs.size() == 1 ? outs[0] : outs[k];
        p->start(QStringLiteral(AUGLAB_CLI),
                 QStringList{"augment"} + args +
                     QStringList{"--output", out, "--shard", QString("%1/%2").arg(k).arg(n)});
        if (outs.size() > 1) {  // one after the other
            p->waitForFinished(120000);
            codes << (p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1);
            continue;
        }
        running.push_back(std::move(p));
    }
    for (auto& p : running) {
        p->waitForFinished(120000);
        codes << (p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1);
    }
    return codes;
}

bool copyTree(const QString& from, const QString& to) {
    std::error_code ec;
    fs::copy(native(from), native(to), fs::copy_options::recursive, ec);  // a name in both is an error
    return !ec;
}

// Every file of `one` (a single run) is in `merged` with the same bytes, and `merged` has nothing
// else but the shards' manifests: no lock file, no temporary, no stray output.
void compareWithOneRun(const QString& one, const QString& merged) {
    const Snapshot a = snapshot(one), b = snapshot(merged);
    QStringList extra;
    for (const auto& [name, state] : b)
        if (!a.count(name) && QString::fromStdString(name).indexOf("auglab-manifest.shard-") != 0)
            extra << QString::fromStdString(name);
    QVERIFY2(extra.isEmpty(), qPrintable(extra.join(", ")));
    for (const auto& [name, state] : a) {
        const QString n = QString::fromStdString(name);
        QVERIFY2(b.count(name), qPrintable("missing " + n));
        QVERIFY2(readAll(one + "/" + n) == readAll(merged + "/" + n), qPrintable("differs: " + n));
    }
}

}  // namespace

class TestAugmentShards : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void shardsEqualOneRun_data();
    void shardsEqualOneRun();
    void labelledShardsEqualOneRun_data();
    void labelledShardsEqualOneRun();
    void addedFilesKeepTheirShards();
    void badShardValues_data();
    void badShardValues();
    void mergeRefuses_data();
    void mergeRefuses();
    void shardResumesAndMergeIsOneRun();
    void interruptedShardIsNotMerged();
    void shardRemovesOnlyItsOwnTemporaries();
    void locksKeepRunsApart();
    void helpDescribesShards();

private:
    QStringList args(const QString& in, const QString& preset) const {
        return {"--preset", preset, "--input", in, "--backend", "cpu", "--jobs", "2"};
    }
    QTemporaryDir dir_;
    QString mixPreset_, busyPreset_, input_;
    QStringList inputs_;
};

void TestAugmentShards::initTestCase() {
    QVERIFY(dir_.isValid());
    mixPreset_ = dir_.filePath("mix.auglab.json");
    busyPreset_ = dir_.filePath("busy.auglab.json");
    QVERIFY(writeBytes(mixPreset_, kMixPreset));
    QVERIFY(writeBytes(busyPreset_, kBusyPreset));
    input_ = dir_.filePath("input");
    inputs_ = makeBigInput(input_);
}

void TestAugmentShards::shardsEqualOneRun_data() {
    QTest::addColumn<int>("shards");
    QTest::addColumn<bool>("sharedFolder");
    QTest::addColumn<QString>("format");
    QTest::newRow("1 shard") << 1 << true << "png";
    QTest::newRow("3 shards in one folder at once") << 3 << true << "png";
    QTest::newRow("3 shards in their own folders, copied together") << 3 << false << "png";
    QTest::newRow("4 shards, jpg") << 4 << true << "jpg";
    QTest::newRow("25 shards for 19 files: some empty") << 25 << true << "png";
}

void TestAugmentShards::shardsEqualOneRun() {
    QFETCH(int, shards);
    QFETCH(bool, sharedFolder);
    QFETCH(QString, format);
    QTemporaryDir d;
    const QStringList common = args(input_, mixPreset_) + QStringList{"--copies", "2", "--format", format};
    const Run one = cli(QStringList{"augment"} + common + QStringList{"--output", d.filePath("one")});
    QCOMPARE(one.code, 1);  // the truncated JPEG and the clash fail; every other output is done

    QStringList outs{d.filePath("sharded")};
    if (!sharedFolder)
        for (int k = 1; k < shards; ++k) outs << d.filePath(QString("machine%1").arg(k));
    const QList<int> codes = runShards(common, shards, outs);
    for (int k = 0; k < shards; ++k) {
        // A shard fails where it holds a failing input, and only there.
        bool failing = false;
        for (const char* bad : {"broken/cut.jpg", "clash/a.png"}) failing |= expectedShard(bad, shards) == k;
        QCOMPARE(codes[k], failing ? 1 : 0);
        const QString folder = sharedFolder ? outs[0] : outs[k];
        const Manifest m = readManifest(folder, shardManifest(k, shards));
        QVERIFY(m.valid);
        QCOMPARE(m.header["shard"].toObject()["index"].toInt(), k);
        QCOMPARE(m.header["shard"].toObject()["count"].toInt(), shards);
        QVERIFY(m.header["shard"].toObject()["complete"].toBool());
        // Exactly the inputs of the documented rule.
        QSet<QString> listed, expected;
        for (const QJsonObject& o : m.ok + m.failed) listed.insert(o["input"].toString());
        for (const QString& input : inputs_)
            if (expectedShard(input, shards) == k) expected.insert(input);
        QCOMPARE(listed, expected);
    }
    if (!sharedFolder)
        for (int k = 1; k < shards; ++k) QVERIFY(copyTree(outs[k], outs[0]));
    QVERIFY(!QFileInfo::exists(outs[0] + "/auglab-manifest.jsonl"));
    const Run merge = cli({"augment", "--merge-manifests", outs[0]});
    QVERIFY2(merge.code == 0, qPrintable(merge.err));
    QVERIFY2(merge.out.contains(QString("merge: %1 shards, 34 outputs, 2 failed inputs").arg(shards)),
             qPrintable(merge.out));
    compareWithOneRun(d.filePath("one"), outs[0]);
}

void TestAugmentShards::labelledShardsEqualOneRun_data() {
    QTest::addColumn<QString>("format");
    QTest::newRow("yolo") << "yolo";
    QTest::newRow("coco") << "coco";
}

void TestAugmentShards::labelledShardsEqualOneRun() {
    QFETCH(QString, format);
    QTemporaryDir d;
    const QString in = d.filePath("ds"), preset = d.filePath("labels.auglab.json");
    QJsonArray images, annotations;
    for (int i = 0; i < 8; ++i) {
        const QString name = QString("p%1.png").arg(i);
        const int w = 80 + 4 * i, h = 60 + 2 * i;
        writePhoto(in + "/images/" + name, kPhotos[i % 4], w, h);
        if (format == "yolo") {
            QVERIFY(
                writeBytes(in + QString("/labels/p%1.txt").arg(i), "0 0.5 0.5 0.4 0.5\n1 0.2 0.3 0.2 0.2\n"));
        } else {
            images.append(QJsonObject{{"id", i + 1}, {"file_name", name}, {"width", w}, {"height", h}});
            annotations.append(QJsonObject{{"id", 100 + i},
                                           {"image_id", i + 1},
                                           {"category_id", 3 + i % 2},
                                           {"iscrowd", 0},
                                           {"bbox", QJsonArray{10, 10, 30, 20}},
                                           {"area", 600}});
        }
    }
    if (format == "yolo") {
        QVERIFY(writeBytes(in + "/data.yaml", "path: .\ntrain: images\nnames: [cat, cup]\n"));
    } else {
        const QJsonObject doc{{"images", images},
                              {"annotations", annotations},
                              {"categories", QJsonArray{QJsonObject{{"id", 3}, {"name", "cat"}},
                                                        QJsonObject{{"id", 4}, {"name", "cup"}}}}};
        QVERIFY(writeBytes(in + "/annotations/instances_train.json", QJsonDocument(doc).toJson()));
    }
    QVERIFY(writeBytes(preset, QByteArray(kLabelPreset).replace("\"yolo\"", "\"" + format.toUtf8() + "\"")));
    const QStringList common = args(in, preset) + QStringList{"--copies", "3"};
    const Run one = cli(QStringList{"augment"} + common + QStringList{"--output", d.filePath("one")});
    QVERIFY2(one.code == 0, qPrintable(one.err));
    const QString sharded = d.filePath("sharded");
    QCOMPARE(runShards(common, 3, {sharded}), (QList<int>{0, 0, 0}));
    // The COCO file lists every output: the shards leave it to the merge.
    QVERIFY(!QFileInfo::exists(sharded + "/annotations/instances_train.json"));
    const Run merge = cli({"augment", "--merge-manifests", sharded});
    QVERIFY2(merge.code == 0, qPrintable(merge.err));
    if (format == "coco") QVERIFY2(merge.out.contains("instances_train.json"), qPrintable(merge.out));
    compareWithOneRun(d.filePath("one"), sharded);
    QVERIFY(QFileInfo::exists(
        sharded + (format == "yolo" ? "/labels/p0_aug2.txt" : "/annotations/instances_train.json")));
}

void TestAugmentShards::addedFilesKeepTheirShards() {
    // A file's shard is its path's alone: new files (one sorting first) move no other file, and
    // the outputs of the files that were there stay the same bytes.
    QTemporaryDir d;
    const QString in = d.filePath("in");
    makeInput(in);
    const QStringList common = args(in, busyPreset_) + QStringList{"--copies", "2", "--shard", "1/3"};
    QCOMPARE(cli(QStringList{"augment"} + common + QStringList{"--output", d.filePath("before")}).code, 0);
    for (const char* name : {"aaa.png", "cats/0.png", "zzz/z.png", "m.png"})
        writePhoto(in + "/" + name, "coffee.png", 64, 48);
    QCOMPARE(cli(QStringList{"augment"} + common + QStringList{"--output", d.filePath("after")}).code, 0);
    const Manifest before = readManifest(d.filePath("before"), shardManifest(1, 3));
    const Manifest after = readManifest(d.filePath("after"), shardManifest(1, 3));
    QSet<QString> kept;
    for (const QJsonObject& o : after.ok)
        if (kInputs.contains(o["input"].toString())) kept.insert(o["output"].toString());
    QSet<QString> was;
    for (const QJsonObject& o : before.ok) {
        was.insert(o["output"].toString());
        const QString name = o["output"].toString();
        QCOMPARE(readAll(d.filePath("after/" + name)), readAll(d.filePath("before/" + name)));
    }
    QCOMPARE(kept, was);
}

void TestAugmentShards::badShardValues_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    const QString format = "--shard: expected K/N, shard K (counted from 0) of N, such as 0/4";
    QTest::newRow("K = N") << "2/2"
                           << "--shard 2/2: K must be 0..1, counted from 0";
    QTest::newRow("K > N") << "3/2"
                           << "--shard 3/2: K must be 0..1";
    QTest::newRow("1-based last of 4") << "4/4"
                                       << "the shards of 4 are 0/4 to 3/4";
    QTest::newRow("N = 0") << "0/0"
                           << "--shard 0/0: N must be 1..100000";
    QTest::newRow("N too large") << "0/100001"
                                 << "N must be 1..100000";
    QTest::newRow("letters") << "a/b" << format;
    QTest::newRow("no slash") << "1" << format;
    QTest::newRow("empty") << "" << format;
    QTest::newRow("three parts") << "1/2/3" << format;
    QTest::newRow("negative K") << "-1/2" << format;
    QTest::newRow("negative N") << "1/-2" << format;
    QTest::newRow("plus sign") << "+1/2" << format;
    QTest::newRow("space") << " 1/2" << format;
    QTest::newRow("hex") << "0x1/2" << format;
    QTest::newRow("huge") << "99999999999999999999/2" << format;
    QTest::newRow("range") << "0-3/4" << format;
}

void TestAugmentShards::badShardValues() {
    QFETCH(QString, value);
    QFETCH(QString, message);
    QTemporaryDir d;
    const Run r = cli(QStringList{"augment"} + args(input_, busyPreset_) +
                      QStringList{"--output", d.filePath("out"), "--shard", value});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(d.filePath("out")));  // refused before anything was made
}

void TestAugmentShards::mergeRefuses_data() {
    QTest::addColumn<QString>("setup");
    QTest::addColumn<QString>("message");
    QTest::newRow("no shard manifest") << "empty"
                                       << "has no shard manifests";
    QTest::newRow("a shard missing") << "0/3 2/3"
                                     << "shard 1/3 has no manifest";
    QTest::newRow("two shards missing") << "2/3"
                                        << "2 of the 3 shards (0/3, 1/3) have no manifest";
    QTest::newRow("two splits") << "0/2 1/2 0/3"
                                << "split different ways (2 of 2 shards, 1 of 3 shards)";
    QTest::newRow("another seed") << "0/2 1/2:seed"
                                  << "not run with the same arguments (seed 5 in shard 0/2, 6 in shard 1/2)";
    QTest::newRow("another preset") << "0/2 1/2:preset"
                                    << "a different preset pipeline";
    QTest::newRow("another format") << "0/2 1/2:jpg"
                                    << "format png in shard 0/2, jpg in shard 1/2";
    QTest::newRow("an output lost") << "0/2 1/2 lose"
                                    << "1 output(s) the shards list are missing or changed";
    QTest::newRow("an output changed") << "0/2 1/2 change"
                                       << "missing or changed";
    QTest::newRow("manifests renamed") << "0/2 1/2 swap"
                                       << "its header says shard";
    QTest::newRow("another run's manifest") << "0/2 1/2 foreign"
                                            << "is the manifest of a run with other arguments";
    QTest::newRow("other options") << "0/2 1/2 --seed"
                                   << "--merge-manifests takes no other option (not --seed)";
    QTest::newRow("no such folder") << "missing"
                                    << "does not exist";
}

void TestAugmentShards::mergeRefuses() {
    QFETCH(QString, setup);
    QFETCH(QString, message);
    QTemporaryDir d;
    QString out = d.filePath("out");
    QVERIFY(QDir().mkpath(out));
    const QStringList common = args(input_, busyPreset_);
    for (const QString& step : setup.split(' ')) {
        if (!step.contains('/')) continue;
        // Another run's shard is run elsewhere (shards of two runs are refused in one folder) and
        // copied in, as a careless gather would.
        const QStringList parts = step.split(':');
        QStringList extra;
        if (parts.value(1) == "seed") extra = {"--seed", "6"};
        if (parts.value(1) == "jpg") extra = {"--format", "jpg"};
        const QString preset = parts.value(1) == "preset" ? mixPreset_ : busyPreset_;
        const QString target = parts.size() > 1 ? d.filePath("elsewhere") : out;
        const QStringList run = QStringList{"augment"} + args(input_, preset) + extra +
                                QStringList{"--output", target, "--shard", parts[0]};
        QVERIFY(cli(run).code <= 1);
        if (parts.size() > 1) QVERIFY(copyTree(target, out));
    }
    const Manifest m0 = readManifest(out, shardManifest(0, 2));
    if (setup.endsWith("lose") || setup.endsWith("change")) QVERIFY(m0.ok.size() >= 2);
    if (setup.endsWith("lose")) QVERIFY(QFile::remove(out + "/" + m0.ok[0]["output"].toString()));
    if (setup.endsWith("change")) {
        QFile f(out + "/" + m0.ok[1]["output"].toString());
        QVERIFY(f.open(QIODevice::Append) && f.write("x") == 1);
    }
    if (setup.endsWith("swap")) {
        QVERIFY(QFile::rename(out + "/" + shardManifest(0, 2), out + "/tmp"));
        QVERIFY(QFile::rename(out + "/" + shardManifest(1, 2), out + "/" + shardManifest(0, 2)));
        QVERIFY(QFile::rename(out + "/tmp", out + "/" + shardManifest(1, 2)));
    }
    if (setup.endsWith("foreign")) {
        QVERIFY(
            cli(QStringList{"augment"} + common + QStringList{"--output", d.filePath("other"), "--seed", "9"})
                .code <= 1);
        QVERIFY(QFile::copy(d.filePath("other/auglab-manifest.jsonl"), out + "/auglab-manifest.jsonl"));
    }
    if (setup == "missing") out = d.filePath("no/such/folder");
    QStringList merge{"augment", "--merge-manifests", out};
    if (setup.endsWith("--seed"))
        merge << "--seed"
              << "5";
    const Snapshot before = snapshot(d.path());
    const Run r = cli(merge);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(snapshot(d.path()) == before);  // nothing written, nothing removed
}

void TestAugmentShards::shardResumesAndMergeIsOneRun() {
    QTemporaryDir d;
    const QString out = d.filePath("out");
    const QStringList common = args(input_, mixPreset_) + QStringList{"--copies", "2", "--output", out};
    const auto shard = [&](int k, const QStringList& extra = {}) {
        return cli(QStringList{"augment"} + common + extra + QStringList{"--shard", QString("%1/3").arg(k)});
    };
    for (int k = 0; k < 3; ++k) QVERIFY(shard(k).code <= 1);
    // An output of shard 1 lost: rerunning shard 1 writes it alone and touches nothing else.
    const Manifest m1 = readManifest(out, shardManifest(1, 3));
    QVERIFY(m1.ok.size() >= 2);
    const QString gone = m1.ok[0]["output"].toString();
    const QByteArray goneBytes = readAll(out + "/" + gone);
    QVERIFY(QFile::remove(out + "/" + gone));
    Snapshot before = snapshot(out);
    QThread::msleep(20);  // a rewrite would get a later modification time
    const Run again = shard(1);
    QVERIFY2(again.code <= 1, qPrintable(again.err));
    QVERIFY2(again.out.contains(QString("shard 1/3: ")) &&
                 again.out.contains(QString("1 outputs written, %1 already done").arg(m1.ok.size() - 1)),
             qPrintable(again.out));
    QCOMPARE(readAll(out + "/" + gone), goneBytes);
    Snapshot after = snapshot(out);
    for (Snapshot* s : {&before, &after}) {
        s->erase(shardManifest(1, 3).toStdString());
        s->erase(gone.toStdString());
    }
    QVERIFY(after == before);

    // Other arguments are another run, refused beside these shards; so is one run over everything
    // before the merge, which it is told to do first.
    const Snapshot untouched = snapshot(out);
    const Run seed = shard(2, {"--seed", "6"});
    QCOMPARE(seed.code, 2);
    QVERIFY2(seed.err.contains("other arguments") && seed.err.contains("seed 5 there, 6 now"),
             qPrintable(seed.err));
    const Run whole = cli(QStringList{"augment"} + common);
    QCOMPARE(whole.code, 2);
    QVERIFY2(whole.err.contains("--merge-manifests"), qPrintable(whole.err));
    QVERIFY(snapshot(out) == untouched);

    // Merged, the folder is one run's: a run over everything has nothing left to do.
    QCOMPARE(cli({"augment", "--merge-manifests", out}).code, 0);
    const QByteArray merged = readAll(out + "/auglab-manifest.jsonl");
    const Run resumed = cli(QStringList{"augment"} + common);
    QCOMPARE(resumed.code, 1);  // the failing inputs are tried again, and fail again
    QVERIFY2(resumed.out.contains("0 outputs written, 34 already done, 2 failed"), qPrintable(resumed.out));
    QCOMPARE(readAll(out + "/auglab-manifest.jsonl"), merged);
    // A shard rerun after the merge, and the merge again: the same manifest.
    QVERIFY(shard(0).out.contains("0 outputs written"));
    QCOMPARE(cli({"augment", "--merge-manifests", out}).code, 0);
    QCOMPARE(readAll(out + "/auglab-manifest.jsonl"), merged);
}

void TestAugmentShards::interruptedShardIsNotMerged() {
    QTemporaryDir d;
    const QString in = d.filePath("in"), out = d.filePath("out");
    writePhoto(in + "/photo.png", "astronaut.png", 160, 120);
    const QStringList run{"augment", "--preset", busyPreset_, "--input", in,  "--output", out,  "--backend",
                          "cpu",     "--copies", "200",       "--jobs",  "1", "--shard",  "0/1"};
    QProcess p;
    p.start(QStringLiteral(AUGLAB_CLI), run);
    QVERIFY(p.waitForStarted());
    // Wait for the first output line in the manifest, then stop it as Slurm's time limit would.
    QElapsedTimer t;
    t.start();
    while (readAll(out + "/" + shardManifest(0, 1)).count('\n') < 2 && t.elapsed() < 30000)
        QThread::msleep(2);
    p.terminate();
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 143);
    const Manifest cut = readManifest(out, shardManifest(0, 1));
    QVERIFY(!cut.header["shard"].toObject()["complete"].toBool());
    const Run refused = cli({"augment", "--merge-manifests", out});
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains("shard 0/1") && refused.err.contains("did not finish"),
             qPrintable(refused.err));
    QVERIFY(!QFileInfo::exists(out + "/auglab-manifest.jsonl"));
    const Run resumed = cli(run);
    QCOMPARE(resumed.code, 0);
    QVERIFY2(resumed.out.contains(QString("%1 already done").arg(cut.ok.size())), qPrintable(resumed.out));
    const Run merge = cli({"augment", "--merge-manifests", out});
    QVERIFY2(merge.code == 0 && merge.out.contains("1 shards, 200 outputs"),
             qPrintable(merge.out + merge.err));
}

void TestAugmentShards::shardRemovesOnlyItsOwnTemporaries() {
    // Shards sharing a folder write at the same time: a shard starting (or resuming) removes what a
    // killed run of its own left, never a temporary another shard is writing now.
    QTemporaryDir d;
    const QString out = d.filePath("out");
    const int mine = expectedShard("chelsea.png", 2), theirs = 1 - mine;
    QString other;
    for (const QString& input : inputs_)
        if (expectedShard(input, 2) == theirs && !input.startsWith("broken/") && input != "clash/a.png")
            other = input;
    QVERIFY(!other.isEmpty());
    const QStringList common = args(input_, busyPreset_) + QStringList{"--output", out};
    QVERIFY(cli(QStringList{"augment"} + common + QStringList{"--shard", QString("%1/2").arg(theirs)}).code <=
            1);
    const QString ownTemp = out + "/.chelsea_aug0.png.auglab-tmp-999999-0";
    const QString otherOutput = outputName(other, 0, "png");
    const QString otherTemp = out + "/" + QFileInfo(otherOutput).path() + "/." +
                              QFileInfo(otherOutput).fileName() + ".auglab-tmp-999999-1";
    const QString otherManifestTemp = out + "/." + shardManifest(theirs, 2) + ".auglab-tmp-999999-2";
    for (const QString& f : {ownTemp, otherTemp, otherManifestTemp}) QVERIFY(writeBytes(f, "partial"));
    QVERIFY(cli(QStringList{"augment"} + common + QStringList{"--shard", QString("%1/2").arg(mine)}).code <=
            1);
    QVERIFY(!QFileInfo::exists(ownTemp));
    QVERIFY(QFileInfo::exists(otherTemp));
    QVERIFY(QFileInfo::exists(otherManifestTemp));
}

void TestAugmentShards::locksKeepRunsApart() {
    // The locks a running shard, a run over everything and a merge hold, taken here by hand: no
    // timing, only who is refused while they are held.
    QTemporaryDir d;
    const QString out = d.filePath("out");
    QVERIFY(QDir().mkpath(out));
    const QStringList common = args(input_, busyPreset_) + QStringList{"--output", out};
    const auto shard = [&](const char* k) {
        return cli(QStringList{"augment"} + common + QStringList{"--shard", k});
    };
    const int folder = ::open(native(out).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    QVERIFY(folder >= 0);
    // Shard 0/2 running: shard 0/2 again is refused, shard 1/2 runs beside it, the rest wait.
    QCOMPARE(::flock(folder, LOCK_SH), 0);
    const QString lockName = out + "/.auglab-manifest.shard-0-of-2.lock";
    const int lock = ::open(lockName.toUtf8().constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    QVERIFY(lock >= 0);
    QCOMPARE(::flock(lock, LOCK_EX), 0);
    const Run twice = shard("0/2");
    QCOMPARE(twice.code, 2);
    QVERIFY2(twice.err.contains("shard 0/2 is already running"), qPrintable(twice.err));
    QVERIFY(shard("1/2").code <= 1);
    const Run whole = cli(QStringList{"augment"} + common);
    QCOMPARE(whole.code, 2);
    QVERIFY2(whole.err.contains("is writing to"), qPrintable(whole.err));
    const Run merge = cli({"augment", "--merge-manifests", out});
    QCOMPARE(merge.code, 2);
    QVERIFY2(merge.err.contains("is writing to"), qPrintable(merge.err));
    ::close(lock);
    // A run over everything (or a merge) holding the folder: no shard starts.
    QCOMPARE(::flock(folder, LOCK_EX), 0);
    const Run during = shard("0/2");
    QCOMPARE(during.code, 2);
    QVERIFY2(during.err.contains("shards share a folder only with the other shards"), qPrintable(during.err));
    ::close(folder);
    QVERIFY(shard("0/2").code <= 1);
    QCOMPARE(cli({"augment", "--merge-manifests", out}).code, 0);
    QVERIFY(!QFileInfo::exists(lockName));  // the merge removes the shards' lock files
}

void TestAugmentShards::helpDescribesShards() {
    const Run help = cli({"augment", "--help"});
    QCOMPARE(help.code, 0);
    for (const char* text :
         {"[--shard K/N]", "--merge-manifests DIR", "counted from 0", "SLURM_ARRAY_TASK_ID",
          "JOB_COMPLETION_INDEX", "auglab-manifest.shard-K-of-N.jsonl"})
        QVERIFY2(help.out.contains(text), text);
}

QTEST_GUILESS_MAIN(TestAugmentShards)
#include "test_augment_shards.moc"
