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

QString pyenvPython() { return kPyenv + "/bin/python"; }

/// Makes sure build/pyenv-tf has TensorFlow 2.21.0; returns why not when it cannot.
QString ensureTensorflow() {
    if (QFileInfo::exists(pyenvPython())) {
        const PythonRun check = runProcess(pyenvPython(), {"-c", "import tensorflow as tf; assert tf.__version__ == '2.21.0'"});
        if (check.code == 0) return {};
    }
    const QString py = python3();
    if (py.isEmpty()) return "python3 is not installed";
    QDir(kPyenv).removeRecursively();  // a half-made environment (an interrupted install) is rebuilt
    const PythonRun venv = runProcess(py, {"-m", "venv", kPyenv});
    if (venv.code != 0) return "python3 -m venv failed: " + venv.err.right(400);
    const PythonRun pip =
        runProcess(pyenvPython(), {"-m", "pip", "install", "--quiet", "--disable-pip-version-check", kPackage}, 1200000);
    if (pip.code != 0) return "pip could not install " + kPackage + ": " + pip.err.right(600);
    return {};
}

enum class Bound {
    Exact,    ///< both compute the same integers
    Linear,   ///< SPEC §2: float32 bilinear weights there, 1/32-pixel fixed point here
    Nearest,  ///< SPEC §2: at most 0.5% of the pixels (rounding ties of the source position)
};

struct Case {
    const char* name;
    const char* op;  ///< one pipeline entry, p = 1, fixed ranges
    Bound bound;
};

// Measured with TensorFlow 2.21.0 on chelsea.png: the linear warps mean 0.05-0.07, max 3; nearest
// 0.09% of the pixels; the rest exact.
const Case kCases[] = {
    {"rotate, constant", R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})", Bound::Linear},
    {"scale, reflect_101", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect_101"})", Bound::Linear},
    {"scale per axis, replicate", R"({"op": "affine", "rotate_deg": [0, 0], "keep_ratio": false, "scale_x": [0.85, 0.85], "scale_y": [1.2, 1.2], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})", Bound::Linear},
    {"shear, reflect", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_x_deg": [8, 8], "shear_y_deg": [-4, -4], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect"})", Bound::Linear},
    {"translate (truncated to pixels), wrap", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711], "border": "wrap"})", Bound::Exact},
    {"rotate, nearest, wrap", R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest", "border": "wrap"})", Bound::Nearest},
    {"everything, constant fill", R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "shear_x_deg": [5, 5], "translate_x_frac": [-0.05, -0.05], "translate_y_frac": [0.08, 0.08], "fill": [10, 200, 30]})", Bound::Linear},
    {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
    {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
    {"brightness/contrast by max", R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})", Bound::Exact},
    {"brightness/contrast by mean", R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})", Bound::Exact},
    {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    {"gauss noise, mean alone", R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})", Bound::Exact},
};

Preset presetOf(const char* op) {
    return parsePreset(std::string(R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [)") + op + "]}");
}

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

    void everyPresetRuns() {
        // Every built-in preset and one with every op, on a square photo (deotte_affine needs one):
        // the export imports, augment() runs, and the output keeps the input's size.
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        auto presets = builtInPresets();
        presets.emplace_back("every-op", everyOpPreset());
        QStringList args{kChecker};
        for (const auto& [name, preset] : presets) {
            const QString base = dir_.filePath(QString::fromStdString(name));
            writeFileAtomically((base + ".py").toStdString(), exportTfDeotte(preset).text);
            args << base + ".py" << input << base + "-tf.png";
        }
        const PythonRun r = runProcess(pyenvPython(), args);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
        for (const auto& [name, preset] : presets) {
            const Image out = loadImage((dir_.filePath(QString::fromStdString(name)) + "-tf.png").toStdString()).image;
            QVERIFY2(out.width == 512 && out.height == 512, name.c_str());
        }
    }

    void kerasExportsRun() {
        // The Keras export of every built-in preset, of one with every op, of the default blur
        // (sigma up to 3) and of a preset Keras can express nothing of (an identity model, not an
        // empty keras.Sequential, which raises when called).
        const QString input = QString::fromStdString(samplePath("astronaut.png"));
        auto presets = builtInPresets();
        presets.emplace_back("every-op", everyOpPreset());
        presets.emplace_back("blur", presetOf(R"({"op": "gaussian_blur", "sigma_px": [0.5, 3.0]})"));
        presets.emplace_back("nothing-for-keras", presetOf(R"({"op": "grid_dropout"})"));
        QStringList args{kChecker, "--keras"};
        for (const auto& [name, preset] : presets) {
            const QString base = dir_.filePath("keras-" + QString::fromStdString(name));
            writeFileAtomically((base + ".py").toStdString(), exportKeras(preset).text);
            args << base + ".py" << input << base + "-keras.png";
        }
        const PythonRun r = runProcess(pyenvPython(), args);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
        for (const auto& [name, preset] : presets) {
            const Image out =
                loadImage((dir_.filePath("keras-" + QString::fromStdString(name)) + "-keras.png").toStdString()).image;
            QVERIFY2(out.width == 512 && out.height == 512, name.c_str());
        }
        // What passes through unchanged is the input, to the bit.
        QVERIFY(samePixels(loadImage(dir_.filePath("keras-nothing-for-keras-keras.png").toStdString()).image,
                           loadImage(input.toStdString()).image));
    }

    void pinnedMatchesApply() {
        // An odd, non-square photo: 451 x 300. apply is the engine's renderSample, as the CLI calls it.
        const std::string input = samplePath("chelsea.png");
        SourceLevels source(loadImage(input).image);
        CpuBackend cpu(2);
        QStringList args{kChecker};
        for (std::size_t i = 0; i < std::size(kCases); ++i) {
            const QString base = dir_.filePath("case" + QString::number(i));
            writeFileAtomically((base + ".py").toStdString(), exportTfDeotte(presetOf(kCases[i].op)).text);
            args << base + ".py" << QString::fromStdString(input) << base + "-tf.png";
        }
        const PythonRun r = runProcess(pyenvPython(), args);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
        QStringList failures;
        for (std::size_t i = 0; i < std::size(kCases); ++i) {
            const Preset p = presetOf(kCases[i].op);
            const Image ours = renderSample(p.pipeline, source, p.seed, 0, cpu);
            const Image theirs = loadImage((dir_.filePath("case" + QString::number(i)) + "-tf.png").toStdString()).image;
            const Diff d = compare(ours, theirs);
            bool ok = false;
            switch (kCases[i].bound) {
                case Bound::Exact: ok = d.maxAbs == 0; break;
                case Bound::Linear: ok = d.withinLinearBounds(); break;
                case Bound::Nearest: ok = d.pixelFractionDiffering() <= 0.005; break;
            }
            const QString line = QString("%1: %2").arg(kCases[i].name, QString::fromUtf8(d.describe()));
            qInfo("%s", qPrintable(line));
            if (!ok) failures << line;
        }
        QVERIFY2(failures.isEmpty(), qPrintable("outside the bounds:\n" + failures.join('\n')));
    }
};

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    return auglab::testing::runSuites<TestExportTensorflow>(argc, argv);
}

#include "test_export_tensorflow.moc"
