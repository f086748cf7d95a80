// The Albumentations export against the real library: Albumentations 2.0.8 from PyPI, installed
// once into a virtual environment in the build tree (build/pyenv; reused by later runs). Each
// exported JSON must load with A.load without a warning or an invalid argument and save back
// unchanged; presets with fixed ranges must give, on a photo, what `auglab-cli apply` gives, within
// SPEC §2's bounds (exact for flips and the LUT ops). Skips, saying why, only when pip cannot
// install the library (no network, no python3 -m venv).

#include <algorithm>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "suite_main.h"

#include "atomic_file.h"
#include "export_test_support.h"
#include "exporter.h"
#include "image_io.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

// AUGLAB_EXPORT_PYENV points the test at another environment (e.g. another OpenCV) for a manual run.
const QString kPyenv = qEnvironmentVariableIsSet("AUGLAB_EXPORT_PYENV") ? qEnvironmentVariable("AUGLAB_EXPORT_PYENV")
                                                                        : QStringLiteral(AUGLAB_PYENV);
const QString kChecker = QString::fromStdString((kExportData / "albumentations_check.py").string());
// OpenCV pinned to the release current with Albumentations 2.0.8 (May 2025): its warpAffine is the
// one AugLab's CPU warp reproduces bit for bit. (OpenCV 5.0's differs from it by mean 0.065, max 3
// on these cases: inside SPEC §2's bounds, which is all this test requires.)
const QString kPackages[] = {"albumentations==2.0.8", "opencv-python-headless==4.11.0.86"};

struct Stats {
    double meanAbs = 0;
    int maxAbs = 0;
    double over2 = 0;       ///< fraction of values differing by more than 2
    double pixelsDiffer = 0;  ///< fraction of pixels with any difference
};

Stats compare(const Image& a, const Image& b, int x0 = 0, int x1 = -1) {
    Stats s;
    long long sum = 0, over2 = 0, pixels = 0, values = 0;
    if (x1 < 0) x1 = a.width;
    for (int y = 0; y < a.height; ++y)
        for (int x = x0; x < x1; ++x) {
            bool differs = false;
            for (int c = 0; c < 3; ++c) {
                const int d = std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c]));
                sum += d;
                over2 += d > 2;
                s.maxAbs = std::max(s.maxAbs, d);
                differs = differs || d;
                ++values;
            }
            pixels += differs;
        }
    s.meanAbs = double(sum) / values;
    s.over2 = double(over2) / values;
    s.pixelsDiffer = double(pixels) / (double(x1 - x0) * a.height);
    return s;
}

// cv::cvtColor(HSV2RGB) converts each row with a SIMD loop and its last (width mod 8) pixels with
// a scalar loop whose float rounding differs by one level; AugLab's hsvToRgb8 reproduces the SIMD
// loop only (core/colour.cpp). Reported as a core discrepancy: exact elsewhere, <= 1 in that tail.
constexpr int kSimdTail = 8;

// The common cases (export_test_support.h), then what only Albumentations has of the other ops.
const std::vector<PinnedCase> kCases = [] {
    std::vector<PinnedCase> cases = commonPinnedCases();
    cases.insert(cases.end(), {
        {"hue/saturation/value", R"({"op": "hue_saturation_value", "hue_shift_deg": [30, 30], "sat_shift": [-20, -20], "val_shift": [15, 15]})", Bound::ExactBeforeRowTail},
        {"hue/saturation/value, fractions", R"({"op": "hue_saturation_value", "hue_shift_deg": [-47, -47], "sat_shift": [33.7, 33.7], "val_shift": [-12.4, -12.4]})", Bound::ExactBeforeRowTail},
        {"gaussian blur 1.3", R"({"op": "gaussian_blur", "sigma_px": [1.3, 1.3]})", Bound::Blur},
        {"gaussian blur 2.7", R"({"op": "gaussian_blur", "sigma_px": [2.7, 2.7]})", Bound::Blur},
        // No try fits a 2:1 crop of the whole area: both fall back to the 451 x 226 centre crop.
        {"random resized crop, centre fallback, upscaled", R"({"op": "random_resized_crop", "size": [260, 520], "scale": [1, 1], "ratio": [2, 2]})", Bound::Linear},
        // The whole image (451 / 300 exactly), downscaled.
        {"random resized crop, whole image, downscaled", R"({"op": "random_resized_crop", "size": [200, 333], "scale": [1, 1], "ratio": [1.5033333333333334, 1.5033333333333334]})", Bound::Linear},
    });
    return cases;
}();

QString pyenvPython() { return kPyenv + "/bin/python"; }

/// Makes sure build/pyenv has Albumentations 2.0.8 and OpenCV 4.11; returns why not when it cannot.
QString ensureLibrary() {
    return ensurePythonEnvironment(kPyenv, QStringList(std::begin(kPackages), std::end(kPackages)),
                                   "import albumentations as A, cv2; "
                                   "assert A.__version__ == '2.0.8' and cv2.__version__ == '4.11.0'");
}

}  // namespace

class TestExportLibrary : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString why = ensureLibrary();
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void loadsStrictly() {
        QStringList files;
        auto presets = builtInPresets();
        presets.emplace_back("every-op", everyOpPreset());
        presets.emplace_back("default", defaultPreset());
        for (const auto& [name, preset] : presets) {
            const QString file = dir_.filePath(QString::fromStdString(name) + ".json");
            writeFileAtomically(file.toStdString(), exportAlbumentations(preset).text);
            files << file;
        }
        const PythonRun r = runProcess(pyenvPython(), QStringList{kChecker, "load"} + files);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    }

    void sameOutputAsAuglab() {
        // An odd, non-square photo: 451 x 300.
        const QString input = QString::fromStdString(std::string(AUGLAB_SOURCE_DIR) + "/resources/samples/chelsea.png");
        QStringList pyArgs{kChecker, "apply", input};
        std::vector<std::pair<QString, QString>> outputs;
        for (std::size_t i = 0; i < kCases.size(); ++i) {
            const std::string presetText = std::string(R"({"format": "auglab-preset", "version": 1, "pipeline": [)") + kCases[i].op + "]}";
            const QString base = dir_.filePath("case" + QString::number(i));
            writeFileAtomically((base + ".auglab.json").toStdString(), presetText);
            writeFileAtomically((base + ".json").toStdString(), exportAlbumentations(parsePreset(presetText)).text);
            const PythonRun apply = runProcess(QStringLiteral(AUGLAB_CLI), {"apply", "--preset", base + ".auglab.json", "--image", input,
                                                                            "--index", "0", "--backend", "cpu", "--out", base + "-auglab.png"});
            QVERIFY2(apply.code == 0, qPrintable(apply.err));
            pyArgs << base + ".json" << base + "-alb.png";
            outputs.emplace_back(base + "-auglab.png", base + "-alb.png");
        }
        const PythonRun r = runProcess(pyenvPython(), pyArgs);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        qInfo("%s", qPrintable(r.out.trimmed()));
        QStringList failures;
        for (std::size_t i = 0; i < kCases.size(); ++i) {
            const Image ours = loadImage(outputs[i].first.toStdString()).image;
            const Image theirs = loadImage(outputs[i].second.toStdString()).image;
            QCOMPARE(ours.width, theirs.width);
            QCOMPARE(ours.height, theirs.height);
            const Stats s = compare(ours, theirs);
            bool ok = true;
            switch (kCases[i].bound) {
                case Bound::Exact: ok = s.maxAbs == 0; break;
                case Bound::Linear: ok = s.meanAbs <= 0.25 && s.over2 <= 0.001 && s.maxAbs <= 8; break;
                case Bound::Nearest: ok = s.pixelsDiffer <= 0.005; break;
                case Bound::Blur: ok = s.maxAbs <= 1; break;
                case Bound::ExactBeforeRowTail: {
                    const int tail = ours.width % kSimdTail;
                    const Stats body = compare(ours, theirs, 0, ours.width - tail);
                    const Stats end = compare(ours, theirs, ours.width - tail, ours.width);
                    ok = body.maxAbs == 0 && end.maxAbs <= 1;
                    qInfo("  %s: first %d columns: max %d; last %d columns (OpenCV's scalar tail): max %d, %.2f%% of "
                          "pixels differ", kCases[i].name, ours.width - tail, body.maxAbs, tail, end.maxAbs,
                          end.pixelsDiffer * 100);
                    break;
                }
            }
            const QString line = QString("%1: mean |diff| %2, max %3, values > 2: %4%, pixels differing: %5%")
                                     .arg(kCases[i].name)
                                     .arg(s.meanAbs, 0, 'f', 4)
                                     .arg(s.maxAbs)
                                     .arg(s.over2 * 100, 0, 'f', 4)
                                     .arg(s.pixelsDiffer * 100, 0, 'f', 4);
            qInfo("%s", qPrintable(line));
            if (!ok) failures << line;
        }
        QVERIFY2(failures.isEmpty(), qPrintable("outside SPEC §2 bounds:\n" + failures.join('\n')));
    }

    void gridDropoutMatchesAlbumentations() {
        // A 440 x 300 crop of chelsea.png: with units that divide it, every cell has the same size,
        // so the shuffle of uneven rows and columns (drawn by two different generators) cannot move
        // a hole, and holes at the cells' corners are the same in both libraries.
        const Image photo =
            loadImage(std::string(AUGLAB_SOURCE_DIR) + "/resources/samples/chelsea.png").image;
        Image crop(440, 300, 3);
        for (int y = 0; y < crop.height; ++y)
            for (int x = 0; x < crop.width; ++x) std::copy_n(photo.at(x, y), 3, crop.at(x, y));
        const QString input = dir_.filePath("crop.png");
        saveImage(input.toStdString(), crop);
        const char* cases[][2] = {
            {"unit 20 px, holes at the corners",
             R"({"op": "grid_dropout", "ratio": 0.37, "unit_size_px": [20, 20], "random_offset": false, "fill": [255, 0, 128]})"},
            {"default unit (44 x 30 px)", R"({"op": "grid_dropout", "ratio": 0.6, "random_offset": false, "fill": [9, 9, 9]})"},
        };
        int n = 0;
        for (const auto& [name, op] : cases) {
            const std::string presetText = std::string(R"({"format": "auglab-preset", "version": 1, "pipeline": [)") + op + "]}";
            const QString base = dir_.filePath(QString("grid-") + QString::number(n++));
            writeFileAtomically((base + ".auglab.json").toStdString(), presetText);
            writeFileAtomically((base + ".json").toStdString(), exportAlbumentations(parsePreset(presetText)).text);
            const PythonRun apply = runProcess(QStringLiteral(AUGLAB_CLI), {"apply", "--preset", base + ".auglab.json", "--image",
                                                                            input, "--index", "0", "--out", base + "-auglab.png"});
            QVERIFY2(apply.code == 0, qPrintable(apply.err));
            const PythonRun r = runProcess(pyenvPython(), {kChecker, "apply", input, base + ".json", base + "-alb.png"});
            QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
            const Image ours = loadImage((base + "-auglab.png").toStdString()).image;
            const Stats s = compare(ours, loadImage((base + "-alb.png").toStdString()).image);
            qInfo("%s: max |diff| %d, pixels differing %.4f%%", name, s.maxAbs, s.pixelsDiffer * 100);
            QVERIFY2(s.maxAbs == 0, name);
            QVERIFY(!samePixels(ours, crop));  // holes were cut
        }
        // The unit range: AugLab's inclusive [12, 40] is exported so that the library draws 12..40.
        const QString file = dir_.filePath("grid-units.json");
        writeFileAtomically(file.toStdString(), exportAlbumentations(parsePreset(R"({"format": "auglab-preset", "version": 1,
            "pipeline": [{"op": "grid_dropout", "unit_size_px": [12, 40]}]})")).text);
        const PythonRun units = runProcess(pyenvPython(), {kChecker, "grid-units", file, "300", "440", "4000"});
        QVERIFY2(units.code == 0, qPrintable(units.out + units.err));
        QCOMPARE(units.out.trimmed(), QString("12 40"));
    }
};

// The CLI's export and import as a user drives them: needs no Python.
class TestExportCli : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    // The CLI as a user drives it (needs no Python): exit codes, warnings on stderr, atomic files.
    void cliExportAndImport() {
        const QString cli = QStringLiteral(AUGLAB_CLI);
        const QString preset = dir_.filePath("every.auglab.json");
        savePreset(preset.toStdString(), everyOpPreset());
        PythonRun r = runProcess(cli, {"export", "--preset", preset, "--to", "albumentations"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.toStdString(), exportAlbumentations(everyOpPreset()).text);
        QVERIFY(r.err.contains("warning: pipeline[11] horizontal_flip is disabled"));
        const QString json = dir_.filePath("every.json");
        r = runProcess(cli, {"export", "--preset", preset, "--to", "keras", "--out", json + ".py"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY(QFileInfo::exists(json + ".py"));
        QCOMPARE(runProcess(cli, {"export", "--preset", preset, "--to", "caffe"}).code, 2);
        QCOMPARE(runProcess(cli, {"export", "--to", "keras"}).code, 2);
        runProcess(cli, {"export", "--preset", preset, "--to", "albumentations", "--out", json});
        const QString back = dir_.filePath("back.auglab.json");
        r = runProcess(cli, {"import", "--from", "albumentations", json, "--out", back});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // everyOpPreset holds values Albumentations cannot (holes from 0): the CLI gives what the library does.
        QVERIFY(loadPreset(back.toStdString()) == importAlbumentations(exportAlbumentations(everyOpPreset()).text).preset);
        const QString old = QString::fromStdString((kExportData / "reference" / "defaults_alb-1.4.24.json").string());
        r = runProcess(cli, {"import", "--from", "albumentations", old, "--out", back});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.contains("warning: transform.transforms[5]: ColorJitter has no AugLab op"));
        writeFileAtomically(dir_.filePath("bad.json").toStdString(), R"({"transform": {"__class_fullname__": "Compose", "transforms": [{"__class_fullname__": "Affine", "p": 2}]}})");
        r = runProcess(cli, {"import", "--from", "albumentations", dir_.filePath("bad.json"), "--out", back});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("transform.transforms[0].p"), qPrintable(r.err));
        QVERIFY(loadPreset(back.toStdString()).pipeline.size() == 9);  // the failed import left the file alone
        QCOMPARE(runProcess(cli, {"import", "--from", "keras", old, "--out", back}).code, 2);
    }

};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestExportCli, TestExportLibrary>(argc, argv);
}
#include "test_export_library.moc"
