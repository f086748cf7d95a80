// The DALI and torchvision exports run in their real libraries (nvidia-dali-cuda130 on the CPU,
// torch + torchvision), each installed once into its own virtual environment in the build tree
// (build/pyenv-dali, build/pyenv-torch) and reused: every built-in preset's export runs, and with
// fixed ranges (so that both sides draw the same values) each op's output is compared with
// `auglab-cli apply`'s. The bounds are the README's parity table; each suite skips, with the
// reason, only when pip cannot install its library.

#include <QTemporaryDir>
#include <QtTest>

#include "suite_main.h"

#include "export_test_support.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

const QString kDaliEnv = QStringLiteral(AUGLAB_BUILD_DIR "/pyenv-dali");
const QString kTorchEnv = QStringLiteral(AUGLAB_BUILD_DIR "/pyenv-torch");

QString checker(const char* name) {
    return QString::fromStdString((kExportData / name).string());
}

// DALI 2.4 on the CPU, chelsea.png (451 x 300). Measured: the linear warps mean 0.04-0.08, max 2-3
// (float interpolation rounded); nearest 0.1% of the pixels; blur a level at most; fn.hsv's YIQ
// hue turn far from HSV's (mean 17, max 46, stated); the rest exact.
const std::vector<PinnedCase> kDaliCases = {
    {"rotate, constant",
     R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"scale, replicate",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})",
     Bound::Linear},
    {"scale per axis, replicate",
     R"({"op": "affine", "rotate_deg": [0, 0], "keep_ratio": false, "scale_x": [0.85, 0.85], "scale_y": [1.2, 1.2], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})",
     Bound::Linear},
    {"shear, constant",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_x_deg": [8, 8], "shear_y_deg": [-4, -4], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "fill": [90, 90, 90]})",
     Bound::Linear},
    {"translate, replicate",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711], "border": "replicate"})",
     Bound::Exact},
    {"rotate, nearest, replicate",
     R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest", "border": "replicate"})",
     Bound::Nearest},
    {"everything, constant",
     R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "shear_x_deg": [5, 5], "translate_x_frac": [-0.05, -0.05], "translate_y_frac": [0.08, 0.08], "fill": [200, 200, 200]})",
     Bound::Linear},
    {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
    {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
    {"brightness/contrast by max",
     R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})", Bound::Exact},
    {"gamma 0.65 (float32 pow)", R"({"op": "random_gamma", "gamma_pct": [65, 65]})", Bound::Stated, 0.05, 1},
    {"tone curve, the fixed S-curve (float32 per pixel)", R"({"op": "random_tone_curve", "scale": 0})",
     Bound::Stated, 0.05, 1},
    {"invert", R"({"op": "invert_img"})", Bound::Exact},
    {"solarize at 0.3", R"({"op": "solarize", "threshold_frac": [0.3, 0.3]})", Bound::Exact},
    {"posterize 3 bits", R"({"op": "posterize", "bits": [3, 3]})", Bound::Exact},
    {"rgb shift by (20, -35, 7)",
     R"({"op": "rgb_shift", "r_shift": [20, 20], "g_shift": [-35, -35], "b_shift": [7, 7]})", Bound::Exact},
    {"brightness/contrast by mean",
     R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})",
     Bound::Exact},
    {"sepia", R"({"op": "to_sepia"})", Bound::Exact},
    {"multiply by 1.37", R"({"op": "multiplicative_noise", "multiplier": [1.37, 1.37]})", Bound::Exact},
    {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    {"gauss noise, mean alone", R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})",
     Bound::Exact},
    {"gauss noise, mean alone, one for all channels",
     R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [-0.03, -0.03], "per_channel": false})",
     Bound::Exact},
    {"gaussian blur 1.3", R"({"op": "gaussian_blur", "sigma_px": [1.3, 1.3]})", Bound::Blur},
    {"gaussian blur 2.7", R"({"op": "gaussian_blur", "sigma_px": [2.7, 2.7]})", Bound::Blur},
    {"hue +30",
     R"({"op": "hue_saturation_value", "hue_shift_deg": [30, 30], "sat_shift": [0, 0], "val_shift": [0, 0]})",
     Bound::Stated, 18.0, 50},
    {"equalize, cv2.equalizeHist per channel", R"({"op": "equalize"})", Bound::Exact},
    {"random resized crop, whole image, downscaled",
     R"({"op": "random_resized_crop", "size": [200, 333], "scale": [1, 1], "ratio": [1.5033333333333334, 1.5033333333333334]})",
     Bound::Linear},
};

// fn.hue turns the YIQ chroma plane; the saturation blend is float32, rounded half up.
const std::vector<PinnedCase> kDaliColorJitter = colorJitterCases(
    {{{}, {}, {Bound::Stated, 0.05, 1}, {Bound::Stated, 0.05, 1}, {Bound::Stated, 20.0, 50}}});

// torch 2.15 + torchvision 0.29 on chelsea.png. Measured: see the README's table.
const std::vector<PinnedCase> kTorchvisionCases = {
    {"rotate, constant",
     R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"scale, constant",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"shear x, constant",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_x_deg": [8, 8], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"shear y, constant",
     R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_y_deg": [-6, -6], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
     Bound::Linear},
    {"rotate and scale, constant fill",
     R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "fill": [10, 200, 30]})",
     Bound::Stated, 0.25, 60},
    {"rotate, nearest",
     R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest"})",
     Bound::Nearest},
    {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
    {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
    {"brightness/contrast by max",
     R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})", Bound::Exact},
    {"gamma 0.65", R"({"op": "random_gamma", "gamma_pct": [65, 65]})", Bound::Exact},
    {"gamma 1.7", R"({"op": "random_gamma", "gamma_pct": [170, 170]})", Bound::Exact},
    {"tone curve, the fixed S-curve", R"({"op": "random_tone_curve", "scale": 0})", Bound::Exact},
    {"invert", R"({"op": "invert_img"})", Bound::Exact},
    // torchvision.io's libjpeg-turbo and Pillow's libwebp, fed B, G, R as OpenCV is.
    {"jpeg at quality 50", R"({"op": "image_compression", "quality_range": [50, 50]})", Bound::Exact},
    {"webp at quality 60",
     R"({"op": "image_compression", "compression_type": "webp", "quality_range": [60, 60]})", Bound::Exact},
    {"solarize at 0.3", R"({"op": "solarize", "threshold_frac": [0.3, 0.3]})", Bound::Exact},
    {"posterize 3 bits", R"({"op": "posterize", "bits": [3, 3]})", Bound::Exact},
    {"rgb shift by (20, -35, 7)",
     R"({"op": "rgb_shift", "r_shift": [20, 20], "g_shift": [-35, -35], "b_shift": [7, 7]})", Bound::Exact},
    {"brightness/contrast by mean",
     R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})",
     Bound::Exact},
    {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    {"sepia", R"({"op": "to_sepia"})", Bound::Exact},
    {"multiply by 1.37", R"({"op": "multiplicative_noise", "multiplier": [1.37, 1.37]})", Bound::Exact},
    {"gauss noise, mean alone", R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})",
     Bound::Exact},
    {"gauss noise, mean alone, one for all channels",
     R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [-0.03, -0.03], "per_channel": false})",
     Bound::Exact},
    {"gaussian blur 1.3", R"({"op": "gaussian_blur", "sigma_px": [1.3, 1.3]})", Bound::Blur},
    {"gaussian blur 2.7", R"({"op": "gaussian_blur", "sigma_px": [2.7, 2.7]})", Bound::Blur},
    {"hue +30",
     R"({"op": "hue_saturation_value", "hue_shift_deg": [30, 30], "sat_shift": [0, 0], "val_shift": [0, 0]})",
     Bound::Stated, 1.0, 8},
    {"equalize, cv2.equalizeHist per channel", R"({"op": "equalize"})", Bound::Exact},
    {"equalize, Pillow-style per channel", R"({"op": "equalize", "mode": "pil"})", Bound::Exact},
    {"random resized crop, whole image, downscaled",
     R"({"op": "random_resized_crop", "size": [200, 333], "scale": [1, 1], "ratio": [1.5033333333333334, 1.5033333333333334]})",
     Bound::Linear},
    {"random resized crop, centre fallback, upscaled",
     R"({"op": "random_resized_crop", "size": [260, 520], "scale": [1, 1], "ratio": [2, 2]})", Bound::Linear},
};

// v2.ColorJitter: float gray weights (floored for the saturation), float HSV.
const std::vector<PinnedCase> kTorchvisionColorJitter = colorJitterCases({{{},
                                                                           {Bound::Stated, 0.25, 1},
                                                                           {Bound::Stated, 0.45, 1},
                                                                           {Bound::Stated, 1.0, 2},
                                                                           {Bound::Stated, 0.5, 3}}});

}  // namespace

class TestExportDali : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString python_ = kDaliEnv + "/bin/python";

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString why =
            ensurePythonEnvironment(kDaliEnv, {"nvidia-dali-cuda130==2.4.0", "numpy"},
                                    "import nvidia.dali as d; assert d.__version__ == '2.4.0'");
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void everyExportRuns() {
        const QString error = everyPresetRuns(exportDali, python_, {checker("dali_check.py")}, dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void perspectiveMatchesApply() {
        // The export's _perspective_warp fed with the corners `auglab-cli apply` drew (its replay).
        const QStringList failures = perspectiveOutsideBounds(
            exportDali, python_, {checker("dali_check.py"), "--perspective"}, dir_.path(),
            {R"({"op": "perspective", "scale": [0.08, 0.12], "fill": [60, 60, 60]})",
             R"({"op": "perspective", "scale": [0.1, 0.1], "interpolation": "nearest", "border": "reflect_101"})",
             R"({"op": "perspective", "scale": [0.05, 0.15], "border": "replicate"})",
             R"({"op": "perspective", "scale": [0.1, 0.2], "border": "reflect"})",
             R"({"op": "perspective", "scale": [0.1, 0.2], "border": "wrap"})"});
        QVERIFY2(failures.isEmpty(), qPrintable("outside SPEC §2's bounds:\n" + failures.join('\n')));
    }

    void pinnedMatchesApply() {
        const QStringList failures = pinnedCasesOutsideBounds(
            joined(joined(joined(kDaliCases, kernelPinnedCases(true)), resizePinnedCases(ResizeTarget::Dali)),
                   kDaliColorJitter),
            exportDali, python_, {checker("dali_check.py")}, dir_.path(), samplePath("chelsea.png"));
        QVERIFY2(failures.isEmpty(), qPrintable("outside the bounds:\n" + failures.join('\n')));
    }

    void groupsRunAsAuglabRunsThem() {
        // Groups as DALI conditionals (an `if` on the group's gate around _one_of, a choice by the
        // weights, or _some_of, a uniform permutation or uniform picks): which of the flips and the
        // inversion show in 8000 outputs (batches of 1000, each sample drawing on its own) and in 8000
        // AugLab samples, with the same distribution (chi-square at the 0.001 level).
        const int n = 8000;
        for (const char* ops : flipGroupPresets()) {
            const Preset preset = presetOf(ops);
            const QString file = dir_.filePath("groups.py");
            writeFileAtomically(file.toStdString(), exportDali(preset).text);
            const PythonRun r =
                runProcess(python_, {checker("dali_check.py"), "--applied", file, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(r.out.right(500) + r.err.right(2000)));
            const QString failure = compareAppliedRuns(preset, nlohmann::json::parse(r.out.toStdString()), n);
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
        }
        // The grouped preset with every kind and real ops (crops that resize inside a one_of, an op
        // DALI cannot write inside a sequential) runs and gives an RGB image.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        writeFileAtomically(dir_.filePath("groups-all.py").toStdString(), exportDali(groupsPreset()).text);
        const PythonRun all = runProcess(python_, {checker("dali_check.py"), dir_.filePath("groups-all.py"),
                                                   input, dir_.filePath("groups-all.png")});
        QVERIFY2(all.code == 0, qPrintable(all.err.right(2000)));
        QCOMPARE(loadImage(dir_.filePath("groups-all.png").toStdString()).image.channels, 3);
    }
};

class TestExportTorchvision : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString python_ = kTorchEnv + "/bin/python";

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QString why = ensurePythonEnvironment(
            kTorchEnv, {"torch==2.15.0", "torchvision==0.29.2"},
            "import torch, torchvision; assert torchvision.__version__.startswith('0.29.2')");
        if (!why.isEmpty()) QSKIP(qPrintable(why));
    }

    void everyExportRuns() {
        const QString error =
            everyPresetRuns(exportTorchvision, python_, {checker("torchvision_check.py")}, dir_.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void pinnedMatchesApply() {
        const QStringList failures =
            pinnedCasesOutsideBounds(joined(joined(joined(joined(kTorchvisionCases, kernelPinnedCases()),
                                                          resizePinnedCases(ResizeTarget::Torchvision)),
                                                   kTorchvisionColorJitter),
                                            joined(joined(drawnKernelPinnedCases(), pixelReplacingPinnedCases()), planckianPinnedCases())),
                                     exportTorchvision, python_, {checker("torchvision_check.py")},
                                     dir_.path(), samplePath("chelsea.png"));
        QVERIFY2(failures.isEmpty(), qPrintable("outside the bounds:\n" + failures.join('\n')));
    }

    void perspectiveMatchesApply() {
        // The export's Perspective helper fed with the corners `auglab-cli apply` drew (its replay).
        const QStringList failures = perspectiveOutsideBounds(
            exportTorchvision, python_, {checker("torchvision_check.py"), "--perspective"}, dir_.path(),
            {R"({"op": "perspective", "scale": [0.08, 0.12]})",
             R"({"op": "perspective", "scale": [0.1, 0.1], "interpolation": "nearest", "border": "reflect_101"})",
             R"({"op": "perspective", "scale": [0.05, 0.1], "keep_size": false, "border": "replicate"})",
             R"({"op": "perspective", "scale": [0.1, 0.2], "fit_output": true, "fill": [30, 160, 90], "border": "reflect"})",
             R"({"op": "perspective", "scale": [0.1, 0.2], "fit_output": true, "keep_size": false, "border": "wrap"})"});
        QVERIFY2(failures.isEmpty(), qPrintable("outside SPEC §2's bounds:\n" + failures.join('\n')));
    }

    void drawsMatchTheLibrary() {
        // Random ranges: what torchvision's own make_params draws (RandomAffine, RandomResizedCrop,
        // ColorJitter's hue, GaussianBlur) and what AugLab's sampler draws come from the same
        // distributions (two-sample KS at the 0.001 level, 4000 of each, a 451 x 300 image). The
        // translation is symmetric here, where torchvision can express it; its rounding (AugLab
        // truncates) moves each shift by less than a pixel.
        const int width = 451, height = 300, n = 4000;
        const char* presets[] = {
            R"({"op": "affine", "rotate_deg": [-20, 35], "scale_x": [0.7, 1.3], "keep_ratio": true, "shear_x_deg": [-5, 10],
                "shear_y_deg": [-3, 3], "translate_x_frac": [-0.1, 0.1], "translate_y_frac": [-0.05, 0.05]},
               {"op": "hue_saturation_value", "hue_shift_deg": [-40, 25], "sat_shift": [0, 0], "val_shift": [0, 0]},
               {"op": "gaussian_blur", "sigma_px": [0.3, 4]})",
            R"({"op": "random_resized_crop", "size": [128, 128], "scale": [0.2, 0.9], "ratio": [0.5, 2]})",
        };
        QStringList failures;
        int compared = 0;
        for (const char* ops : presets) {
            const Preset preset = presetOf(ops);
            const QString file = dir_.filePath("draws.py");
            writeFileAtomically(file.toStdString(), exportTorchvision(preset).text);
            const PythonRun r =
                runProcess(python_, {checker("torchvision_check.py"), "--draws", file,
                                     QString::number(height), QString::number(width), QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
            compared +=
                compareDraws(preset, nlohmann::json::parse(r.out.toStdString()), width, height, n, failures);
        }
        QCOMPARE(compared, 11);
        QVERIFY2(failures.isEmpty(), qPrintable("other distributions:\n" + failures.join('\n')));
    }

    void groupsRunAsAuglabRunsThem() {
        // Groups written with v2.RandomChoice, v2.RandomApply and the file's SomeOf: which of the flips
        // and the inversion show in the output (an odd number of times), over 8000 runs in torchvision
        // and 8000 AugLab samples, has the same distribution (chi-square test of homogeneity at the
        // 0.001 level). First a one_of whose outcomes are far apart (weights; a chosen some_of keeps
        // its gate, a chosen sequential runs for sure), then every kind nested.
        const int n = 8000;
        for (const char* ops : flipGroupPresets()) {
            const Preset preset = presetOf(ops);
            const QString file = dir_.filePath("groups.py");
            writeFileAtomically(file.toStdString(), exportTorchvision(preset).text);
            const PythonRun r =
                runProcess(python_, {checker("torchvision_check.py"), "--applied", file, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(r.out.right(500) + r.err.right(2000)));
            const QString failure = compareAppliedRuns(preset, nlohmann::json::parse(r.out.toStdString()), n);
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
        }

        // The grouped preset with every kind and real ops runs and gives an RGB image.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        writeFileAtomically(dir_.filePath("groups-all.py").toStdString(),
                            exportTorchvision(groupsPreset()).text);
        const PythonRun all =
            runProcess(python_, {checker("torchvision_check.py"), dir_.filePath("groups-all.py"), input,
                                 dir_.filePath("groups-all.png")});
        QVERIFY2(all.code == 0, qPrintable(all.err.right(2000)));
        QCOMPARE(loadImage(dir_.filePath("groups-all.png").toStdString()).image.channels, 3);
    }

    void mixMatchesTheLibrary() {
        // The export's collate_fn, run by torchvision over a batch of two images: the checker tests
        // each mixed image against the written-out blend or paste with the weight its label says;
        // here the label weights (torchvision's lambda, and CutMix's lam_adjusted after clipping)
        // must follow the distribution of AugLab's (lambda, effective_lambda): two-sample KS at the
        // 0.001 level, 4000 of each, 120 x 90 images.
        const int width = 120, height = 90, n = 4000;
        const auto [a, b] = mixBatchImages(dir_.path(), width, height);
        for (const char* op : {R"({"op": "mixup", "alpha": 0.4})", R"({"op": "cutmix", "alpha": 1.0})",
                               R"({"op": "cutmix", "alpha": 0.3})"}) {
            const Preset preset = presetOf(op);
            const QString file = dir_.filePath("mix.py");
            writeFileAtomically(file.toStdString(), exportTorchvision(preset).text);
            const PythonRun r = runProcess(
                python_, {checker("torchvision_check.py"), "--mix", file, a, b, QString::number(n)});
            QVERIFY2(r.code == 0, qPrintable(QString(op) + ": " + r.out.right(500) + r.err.right(2000)));
            const std::vector<double> theirs =
                nlohmann::json::parse(r.out.toStdString()).get<std::vector<double>>();
            // torchvision's labels are float32: ours too, so that cutmix's discrete weights (box areas)
            // compare equal where they are the same.
            std::vector<double> ours = mixWeights(preset, 17, n, width, height, true);
            for (double& v : ours) v = static_cast<float>(v);
            const double d = ksStatistic(ours, theirs), critical = ksCritical(ours.size(), theirs.size());
            qInfo("%s: label weights KS %.4f (critical %.4f)", op, d, critical);
            QVERIFY2(d < critical, qPrintable(QString("%1: KS %2 >= %3").arg(op).arg(d).arg(critical)));
        }
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestExportDali, TestExportTorchvision>(argc, argv);
}

#include "test_export_runtimes.moc"
