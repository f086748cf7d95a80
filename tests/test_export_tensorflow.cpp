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
    return ensurePythonEnvironment(kPyenv, {kPackage}, "import tensorflow as tf; assert tf.__version__ == '2.21.0'");
}

// The common cases (export_test_support.h), and gauss_noise's mean, which tf-deotte has too.
// Measured with TensorFlow 2.21.0 on chelsea.png: the linear warps mean 0.05-0.07, max 3; nearest
// 0.09% of the pixels; the rest exact.
const std::vector<PinnedCase> kCases = [] {
    std::vector<PinnedCase> cases = commonPinnedCases();
    cases.push_back({"gauss noise, mean alone", R"({"op": "gauss_noise", "std_frac": [0, 0], "mean_frac": [0.02, 0.02]})",
                     Bound::Exact});
    return cases;
}();

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
        for (std::size_t i = 0; i < kCases.size(); ++i) {
            const QString base = dir_.filePath("case" + QString::number(i));
            writeFileAtomically((base + ".py").toStdString(), exportTfDeotte(presetOf(kCases[i].op)).text);
            args << base + ".py" << QString::fromStdString(input) << base + "-tf.png";
        }
        const PythonRun r = runProcess(pyenvPython(), args);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err.right(2000)));
        QStringList failures;
        for (std::size_t i = 0; i < kCases.size(); ++i) {
            const Preset p = presetOf(kCases[i].op);
            const Image ours = renderSample(p.pipeline, source, p.seed, 0, cpu);
            const Image theirs = loadImage((dir_.filePath("case" + QString::number(i)) + "-tf.png").toStdString()).image;
            const Diff d = compare(ours, theirs);
            bool ok = false;
            switch (kCases[i].bound) {
                case Bound::Exact: ok = d.maxAbs == 0; break;
                case Bound::Linear: ok = d.withinLinearBounds(); break;
                case Bound::Nearest: ok = d.pixelFractionDiffering() <= 0.005; break;
                case Bound::Blur:
                case Bound::ExactBeforeRowTail: QFAIL("no such case here"); break;
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
