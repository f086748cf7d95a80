// The tf-deotte and Keras exports run in the real TensorFlow (tensorflow-cpu 2.21.0 with its Keras 3,
// installed once into a virtual environment in the build tree, build/pyenv-tf, and reused): every
// built-in preset's export runs, and with fixed ranges (so that both sides draw the same values)
// the tf-deotte output equals `auglab-cli apply`'s within SPEC §2's bounds, exactly where both
// compute in integers. The suite skips, with the reason, only when pip cannot install TensorFlow.

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include "suite_main.h"

#include "atomic_file.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "export_test_support.h"
#include "exporter.h"
#include "image_io.h"
#include "preset.h"
#include "test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

const QString kPyenv = QStringLiteral(AUGLAB_TF_PYENV);
const QString kChecker = QString::fromStdString((kExportData / "tensorflow_check.py").string());
const QString kPackage = QStringLiteral("tensorflow-cpu==2.21.0");

QString pyenvPython() {
    return kPyenv + "/bin/python";
}

/// Makes sure build/pyenv-tf has TensorFlow 2.21.0; returns why not when it cannot.
QString ensureTensorflow() {
    return ensurePythonEnvironment(kPyenv, {kPackage},
                                   "import tensorflow as tf; assert tf.__version__ == '2.21.0'");
}

// The common cases (export_test_support.h), and gauss_noise's mean, which tf-deotte has too.
// Measured with TensorFlow 2.21.0 on chelsea.png: the linear warps mean 0.05-0.07, max 3; nearest
// 0.09% of the pixels; the rest exact.
const std::vector<PinnedCase> kCases = [] {
    std::vector<PinnedCase> cases = commonPinnedCases();
    cases.push_back({"gauss noise, mean alone",
                     R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})",
                     Bound::Exact});
    return cases;
}();

// Keras 3.15 (TensorFlow backend) on chelsea.png: each layer resamples in float and rounds once at
// the end (the checker rounds the model's float output). Measured: see the README's table.
const std::vector<PinnedCase> kKerasCases = {
    {"rotate, constant",
     R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"rotate, reflect",
     R"({"op": "affine", "rotate_deg": [-11, -11], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect"})",
     Bound::Linear},
    {"scale, replicate",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})",
     Bound::Linear},
    {"scale per axis, wrap",
     R"({"op": "affine", "rotate_deg": [0, 0], "keep_ratio": false, "scale_x": [0.85, 0.85], "scale_y": [1.2, 1.2], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "wrap"})",
     Bound::Stated, 0.25, 20},
    {"translate, constant",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711]})",
     Bound::Exact},
    {"translate, wrap",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711], "border": "wrap"})",
     Bound::Exact},
    {"rotate, nearest",
     R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest"})",
     Bound::Nearest},
    {"everything, constant",
     R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "shear_x_deg": [5, 5], "shear_y_deg": [-3, -3], "translate_x_frac": [-0.05, -0.05], "translate_y_frac": [0.08, 0.08], "fill": [40, 40, 40]})",
     Bound::Linear},
    {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
    {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
    {"gamma 0.65 (float64 pow)", R"({"op": "random_gamma", "gamma_pct": [65, 65]})", Bound::Stated, 0.05, 1},
    {"tone curve, the fixed S-curve", R"({"op": "random_tone_curve", "scale": 0})", Bound::Exact},
    {"invert", R"({"op": "invert_img"})", Bound::Exact},
    {"solarize at 0.3", R"({"op": "solarize", "threshold_frac": [0.3, 0.3]})", Bound::Exact},
    {"posterize 3 bits", R"({"op": "posterize", "bits": [3, 3]})", Bound::Exact},
    {"rgb shift by (20, -35, 7)",
     R"({"op": "rgb_shift", "r_shift": [20, 20], "g_shift": [-35, -35], "b_shift": [7, 7]})", Bound::Exact},
    {"brightness/contrast by max",
     R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})", Bound::Exact},
    {"brightness/contrast by mean",
     R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})",
     Bound::Exact},
    {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    {"sepia", R"({"op": "to_sepia"})", Bound::Exact},
    {"multiply by 1.37", R"({"op": "multiplicative_noise", "multiplier": [1.37, 1.37]})", Bound::Exact},
    {"gauss noise, mean alone", R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})",
     Bound::Exact},
    {"gaussian blur 1.3", R"({"op": "gaussian_blur", "sigma_px": [1.3, 1.3]})", Bound::Blur},
    {"gaussian blur 2.7", R"({"op": "gaussian_blur", "sigma_px": [2.7, 2.7]})", Bound::Blur},
    {"hue +30",
     R"({"op": "hue_saturation_value", "hue_shift_deg": [30, 30], "sat_shift": [0, 0], "val_shift": [0, 0]})",
     Bound::Stated, 0.5, 3},
    {"hue, saturation and value",
     R"({"op": "hue_saturation_value", "hue_shift_deg": [-47, -47], "sat_shift": [-20, -20], "val_shift": [15, 15]})",
     Bound::Stated, 0.5, 4},
    {"equalize, cv2.equalizeHist per channel", R"({"op": "equalize"})", Bound::Exact},
    {"equalize, Pillow-style per channel", R"({"op": "equalize", "mode": "pil"})", Bound::Exact},
};

}  // namespace

class TestExportTensorflow : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString why = ensureTensorflow();
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void everyExportRuns() {
        // Every built-in preset, one with every op and random ones: the tf-deotte export imports,
        // augment() runs, and the output keeps the input's size (deotte_affine needs a square).
        const QString error = everyPresetRuns(exportTfDeotte, pyenvPython(), {kChecker}, dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void everyKerasExportRuns() {
        // The same presets as Keras models (training=True).
        const QString error =
            everyPresetRuns(exportKeras, pyenvPython(), {kChecker, "--keras"}, dir_.path() + "/keras");
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void kerasGroupsRunAsAuglabRunsThem() {
        // Groups written with the file's OneOf and SomeOf layers and ApplyWithProbability: which of the
        // flips and the inversion show in 8000 images of one batch (each image draws on its own) and in
        // 8000 AugLab samples, with the same distribution (chi-square at the 0.001 level).
        const int n = 8000;
        for (const char* ops : flipGroupPresets()) {
            const Preset preset = presetOf(ops);
            const QString file = dir_.filePath("groups.py");
            const ExportResult e = exportKeras(preset);
            writeFileAtomically(file.toStdString(), e.text);
            const PythonRun r =
                runProcess(pyenvPython(), {kChecker, "--keras-applied", file, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(r.out.right(500) + r.err.right(2000)));
            const QString failure = compareAppliedRuns(preset, nlohmann::json::parse(r.out.toStdString()), n);
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
        }
        // The grouped preset with every kind and real ops runs and keeps the image's size.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        writeFileAtomically(dir_.filePath("groups-all.py").toStdString(), exportKeras(groupsPreset()).text);
        const PythonRun all = runProcess(pyenvPython(), {kChecker, "--keras", dir_.filePath("groups-all.py"),
                                                         input, dir_.filePath("groups-all.png")});
        QVERIFY2(all.code == 0, qPrintable(all.err.right(2000)));
        QCOMPARE(loadImage(dir_.filePath("groups-all.png").toStdString()).image.width, 512);
    }

    void deotteGroupsRunAsAuglabRunsThem() {
        // Groups in the tf-deotte function (a function of the image per group: tf.switch_case on a
        // categorical draw, a shuffled or uniform pick per position, tf.cond for p): the same
        // distributions of flips over 8000 images in tf.data as in AugLab's samples.
        // Flips only: tf-deotte has no inversion (a one_of leaves out what its target cannot write).
        const char* flipsOnly[] = {
            R"({"group": "one_of", "p": 0.9, "children": [{"op": "horizontal_flip", "p": 0.6},
                 {"group": "some_of", "p": 0.5, "children": [{"op": "vertical_flip"}]},
                 {"group": "sequential", "p": 0.3, "children": [{"op": "vertical_flip", "p": 0.5}, {"op": "horizontal_flip", "p": 0.5}]}]})",
            R"({"group": "random_order", "n": 2, "p": 0.8, "children": [
                  {"op": "horizontal_flip", "p": 0.7}, {"op": "vertical_flip", "p": 0.9}, {"op": "horizontal_flip"}]},
                {"group": "some_of", "n": 2, "replace": true, "children": [
                  {"op": "horizontal_flip", "p": 0.5}, {"op": "vertical_flip", "p": 0.8}]})"};
        const int n = 8000;
        for (const char* ops : flipsOnly) {
            const Preset preset = presetOf(ops);
            const QString file = dir_.filePath("groups-deotte.py");
            writeFileAtomically(file.toStdString(), exportTfDeotte(preset).text);
            const PythonRun r =
                runProcess(pyenvPython(), {kChecker, "--deotte-applied", file, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(r.out.right(500) + r.err.right(2000)));
            const QString failure = compareAppliedRuns(preset, nlohmann::json::parse(r.out.toStdString()), n);
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
        }
        // The grouped preset with every kind and real ops runs and keeps the image's size.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        writeFileAtomically(dir_.filePath("groups-all-deotte.py").toStdString(),
                            exportTfDeotte(groupsPreset()).text);
        const PythonRun all = runProcess(pyenvPython(), {kChecker, dir_.filePath("groups-all-deotte.py"),
                                                         input, dir_.filePath("groups-all-deotte.png")});
        QVERIFY2(all.code == 0, qPrintable(all.err.right(2000)));
        QCOMPARE(loadImage(dir_.filePath("groups-all-deotte.png").toStdString()).image.width, 512);
    }

    void kerasIdentity() {
        // A preset Keras can express nothing of is an identity model (not an empty keras.Sequential,
        // which raises when called): what passes through is the input, to the bit.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        const QString base = dir_.filePath("keras-nothing");
        writeFileAtomically((base + ".py").toStdString(),
                            exportKeras(presetOf(R"({"op": "grid_dropout"})")).text);
        const PythonRun r =
            runProcess(pyenvPython(), {kChecker, "--keras", base + ".py", input, base + "-out.png"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
        QVERIFY(samePixels(loadImage((base + "-out.png").toStdString()).image,
                           loadImage(input.toStdString()).image));
    }

    void pinnedMatchesApply() {
        // An odd, non-square photo: 451 x 300.
        const QStringList failures = pinnedCasesOutsideBounds(
            kCases, exportTfDeotte, pyenvPython(), {kChecker}, dir_.path(), samplePath("chelsea.png"));
        QVERIFY2(failures.isEmpty(), qPrintable("outside the bounds:\n" + failures.join('\n')));
    }

    void kerasPerspectiveMatchesApply() {
        // The Keras export's Perspective layer fed with the corners `auglab-cli apply` drew (its replay).
        const QStringList failures = perspectiveOutsideBounds(
            exportKeras, pyenvPython(), {kChecker, "--keras-perspective"}, dir_.path(),
            {R"({"op": "perspective", "scale": [0.08, 0.12], "fill": [60, 60, 60]})",
             R"({"op": "perspective", "scale": [0.1, 0.1], "interpolation": "nearest", "border": "replicate"})",
             R"({"op": "perspective", "scale": [0.05, 0.15], "border": "reflect"})",
             R"({"op": "perspective", "scale": [0.1, 0.2], "border": "wrap"})"});
        QVERIFY2(failures.isEmpty(), qPrintable("outside SPEC §2's bounds:\n" + failures.join('\n')));
    }

    void kerasMixRuns() {
        // The Keras export's mix_batch over a batch of two images: the checker tests each mixed image
        // against the blend or paste its label weight says. Keras pairs an image with itself half
        // the time here (a shuffle of two): the other weights follow Beta(alpha, alpha) as AugLab's
        // lambda does (two-sample KS at the 0.001 level). Keras' boxes are never clipped, so its
        // CutMix weight is lambda itself, where AugLab's (and torchvision's) effective lambda is
        // larger on average: the export's warning says so.
        const int width = 120, height = 90, n = 600;
        const auto [a, b] = mixBatchImages(dir_.path(), width, height);
        for (const char* op : {R"({"op": "mixup", "alpha": 0.4})", R"({"op": "cutmix", "alpha": 1.0})"}) {
            const Preset preset = presetOf(op);
            const QString file = dir_.filePath("mix.py");
            writeFileAtomically(file.toStdString(), exportKeras(preset).text);
            const PythonRun r =
                runProcess(pyenvPython(), {kChecker, "--keras-mix", file, a, b, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(QString(op) + ": " + r.out.right(500) + r.err.right(2000)));
            std::vector<double> theirs;
            for (const double w : nlohmann::json::parse(r.out.toStdString()).get<std::vector<double>>())
                if (w < 1.0) theirs.push_back(w);  // 1: the image was paired with itself
            const std::vector<double> ours = mixWeights(preset, 3, 2000, width, height, false);
            QVERIFY2(theirs.size() > std::size_t(n / 4), qPrintable(QString::number(theirs.size())));
            const double d = ksStatistic(ours, theirs), critical = ksCritical(ours.size(), theirs.size());
            qInfo("%s: %zu weights, KS %.4f (critical %.4f)", op, theirs.size(), d, critical);
            QVERIFY2(d < critical, qPrintable(QString("%1: KS %2 >= %3").arg(op).arg(d).arg(critical)));
        }
    }

    void kerasPinnedMatchesApply() {
        const QStringList failures = pinnedCasesOutsideBounds(
            joined(
                joined(joined(kKerasCases, kernelPinnedCases()), resizePinnedCases(ResizeTarget::Keras)),
                colorJitterCases(
                    {{{}, {}, {Bound::Stated, 0.06, 1}, {Bound::Stated, 0.01, 1}, {Bound::Stated, 0.5, 3}}})),
            exportKeras, pyenvPython(), {kChecker, "--keras"}, dir_.path(), samplePath("chelsea.png"));
        QVERIFY2(failures.isEmpty(), qPrintable("outside the bounds:\n" + failures.join('\n')));
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestExportTensorflow>(argc, argv);
}

#include "test_export_tensorflow.moc"
