// The exporters: golden files of every target for every built-in preset (and presets with every op
// and with every kind of group), key numbers checked against independently derived values, warnings
// for what a target cannot express, and generated Python that compiles.
//
// Goldens live in tests/data/export/golden. Regenerate them deliberately, after checking the
// diff: AUGLAB_UPDATE_GOLDENS=1 build/tests/test_export

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomic_file.h"
#include "error.h"
#include "export_test_support.h"
#include "exporter.h"

using namespace auglab;
using namespace auglab::testing;

namespace {

/// The version string changes with releases; goldens hold a placeholder.
std::string normalised(std::string text) {
    const std::string v = AUGLAB_VERSION;
    for (std::size_t at = text.find(v); at != std::string::npos; at = text.find(v, at))
        text.replace(at, v.size(), "VERSION");
    return text;
}

std::vector<std::pair<std::string, Preset>> goldenPresets() {
    auto presets = builtInPresets();
    presets.emplace_back("every-op", everyOpPreset());
    presets.emplace_back("mosaic", mosaicPreset());
    presets.emplace_back("groups", groupsPreset());  // every kind of group, nested
    return presets;
}

double number(const std::string& text, const char* pattern) {
    const QRegularExpression re(QString::fromUtf8(pattern));
    const auto m = re.match(QString::fromStdString(text));
    if (!m.hasMatch()) return std::nan("");
    return m.captured(1).toDouble();
}

bool hasWarning(const ExportResult& r, const char* part) {
    for (const std::string& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

Preset onePreset(const std::string& opJson) {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "pipeline": [)" + opJson + "]}");
}

}  // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void golden_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("target");
        for (const auto& [name, preset] : goldenPresets())
            for (const ExportTarget& t : exportTargets())
                QTest::newRow((name + " " + t.name).c_str())
                    << QString::fromStdString(name) << QString::fromStdString(t.name);
    }

    void golden() {
        QFETCH(QString, preset);
        QFETCH(QString, target);
        Preset p;
        for (const auto& [name, pr] : goldenPresets())
            if (name == preset.toStdString()) p = pr;
        const ExportTarget* t = nullptr;
        for (const ExportTarget& x : exportTargets())
            if (x.name == target.toStdString()) t = &x;
        QVERIFY(t);
        const ExportResult r = exportPreset(p, t->name);
        const fs::path file = kExportData / "golden" / (preset.toStdString() + "." + t->name + t->extension);
        const std::string text = normalised(r.text);
        if (qEnvironmentVariableIsSet("AUGLAB_UPDATE_GOLDENS")) writeFileAtomically(file, text);
        QVERIFY2(fs::exists(file),
                 ("missing golden " + file.string() + " (AUGLAB_UPDATE_GOLDENS=1 writes it)").c_str());
        const std::string expected = readFileText(file);
        if (text != expected) {
            // Name the first differing line, so a failure says what changed.
            std::istringstream a(text), b(expected);
            std::string la, lb;
            int line = 0;
            while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
            QFAIL(("differs from " + file.string() + " at line " + std::to_string(line + 1) +
                   ":\n  got:      " + la + "\n  expected: " + lb)
                      .c_str());
        }
        // Every warning is also in the file (a comment or the "warnings" field).
        for (const std::string& w : r.warnings) {
            const std::string start = w.substr(0, std::min<std::size_t>(w.size(), 30));
            const std::string inJson = nlohmann::json(start).dump();
            const bool found = r.text.find(start) != std::string::npos ||
                               r.text.find(inJson.substr(1, inJson.size() - 2)) != std::string::npos;
            QVERIFY2(found, ("warning not in the output: " + w).c_str());
        }
    }

    void unknownTarget() {
        try {
            exportPreset(defaultPreset(), "caffe");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("albumentations, albumentationsx") != std::string::npos);
        }
    }

    // Key numbers derived here from the libraries' documented conventions, not from the exporter.
    void albumentationsNumbers() {
        const Preset p = onePreset(
            R"({"op": "hue_saturation_value", "hue_shift_deg": [-30, 50], "sat_shift": [-20, 10], "val_shift": [-5, 5]},
            {"op": "affine", "rotate_deg": [-20, 10], "shear_x_deg": [-5, 5], "border": "wrap", "interpolation": "nearest", "fill": [1, 2, 3]})");
        const auto j = nlohmann::json::parse(exportAlbumentations(p).text);
        const auto& hsv = j["transform"]["transforms"][0];
        QCOMPARE(hsv["hue_shift_limit"][0].get<double>(), -15.0);  // OpenCV units: degrees / 2
        QCOMPARE(hsv["hue_shift_limit"][1].get<double>(), 25.0);
        QCOMPARE(hsv["sat_shift_limit"][0].get<double>(), -20.0);
        const auto& affine = j["transform"]["transforms"][1];
        QCOMPARE(affine["rotate"][0].get<double>(), -20.0);  // same sign: both counter-clockwise
        QCOMPARE(affine["shear"]["x"][1].get<double>(), 5.0);
        QCOMPARE(affine["border_mode"].get<int>(), 3);    // cv2.BORDER_WRAP
        QCOMPARE(affine["interpolation"].get<int>(), 0);  // cv2.INTER_NEAREST
        QCOMPARE(affine["fill"], nlohmann::json::parse("[1.0, 2.0, 3.0]"));
        QCOMPARE(j["__version__"].get<std::string>(), std::string("2.0.8"));
        const auto ax = nlohmann::json::parse(exportAlbumentationsX(p).text);
        QCOMPARE(ax["__version__"].get<std::string>(), std::string("2.0.16"));
        QVERIFY(ax["transform"]["transforms"][1]["fill_mask"].is_null());
        QVERIFY(ax["transform"].contains("seed"));
    }

    void albumentationsHoleConversions() {
        const Preset p = onePreset(
            R"({"op": "coarse_dropout", "p": 0.6, "holes": [0, 3], "hole_height_frac": [0.5, 1.0]})");
        const ExportResult r = exportAlbumentations(p);
        const auto t = nlohmann::json::parse(r.text)["transform"]["transforms"][0];
        QCOMPARE(t["num_holes_range"], nlohmann::json::parse("[1, 3]"));
        QCOMPARE(t["p"].get<double>(), 0.6 * 3 / 4);  // P(k holes) = p/(n+1) for k = 1..n, as before
        QVERIFY(t["hole_height_range"][1].get<double>() < 1.0);  // 1.0 would mean one pixel
        QVERIFY(hasWarning(r, "holes start at 0"));
        QVERIFY(hasWarning(r, "ends at 1.0"));
    }

    void torchvisionNumbers() {
        const Preset p =
            onePreset(R"({"op": "affine", "rotate_deg": [-20, 10], "translate_x_frac": [-0.1, 0.05],
            "translate_y_frac": [-0.02, 0.02], "scale_x": [0.8, 1.25], "keep_ratio": true})");
        const ExportResult r = exportTorchvision(p);
        // torchvision turns clockwise for positive angles: degrees = (-max, -min).
        QCOMPARE(number(r.text, R"(degrees=\(([-0-9.]+),)"), -10.0);
        QCOMPARE(number(r.text, R"(degrees=\([-0-9.]+, ([-0-9.]+)\))"), 20.0);
        QCOMPARE(number(r.text, R"(translate=\(([-0-9.]+),)"), 0.1);  // symmetric maximum
        QCOMPARE(number(r.text, R"(scale=\(([-0-9.]+),)"), 0.8);
        QVERIFY(hasWarning(r, "symmetric range"));
        QVERIFY(hasWarning(r, "rounds the shift"));
        // Black fills are torchvision's zero padding (fill=None); other fills are blended twice at the edge.
        QVERIFY(r.text.find("fill=None") != std::string::npos);
        QVERIFY(!hasWarning(r, "coverage squared"));
        const ExportResult coloured =
            exportTorchvision(onePreset(R"({"op": "affine", "fill": [10, 20, 30]})"));
        QVERIFY(coloured.text.find("fill=(10, 20, 30)") != std::string::npos);
        QVERIFY(hasWarning(coloured, "coverage squared"));
    }

    void kerasNumbers() {
        const Preset p =
            onePreset(R"({"op": "affine", "rotate_deg": [-36, 18], "scale_x": [0.8, 1.25], "keep_ratio": true,
            "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})");
        const ExportResult r = exportKeras(p);
        // One warp with AugLab's own ranges (degrees counter-clockwise, content scale), not Keras'
        // RandomRotation (turn fractions) and RandomZoom (1/scale - 1), which resample three times.
        QVERIFY(
            r.text.find(
                "Affine(rotate=(-36.0, 18.0), scale_x=(0.8, 1.25), scale_y=(0.8, 1.25), keep_ratio=True") !=
            std::string::npos);
        QVERIFY(r.text.find("fill_mode=\"nearest\"") != std::string::npos);  // replicate
        QVERIFY(r.text.find("RandomRotation") == std::string::npos &&
                r.text.find("RandomZoom") == std::string::npos);
        const ExportResult r101 = exportKeras(onePreset(R"({"op": "affine", "border": "reflect_101"})"));
        QVERIFY(r101.text.find("fill_mode=\"reflect\"") != std::string::npos);
        QVERIFY(hasWarning(r101, "no reflect_101"));
    }

    void daliAndTfNumbers() {
        const Preset p = onePreset(R"({"op": "affine", "rotate_deg": [5, 5]}, {"op": "coarse_dropout"})");
        const ExportResult dali = exportDali(p);
        QVERIFY(dali.text.find("inverse_map=True") != std::string::npos);
        QVERIFY(dali.text.find("fn.reshape(m, shape=[2, 3])") !=
                std::string::npos);  // DALI wants a 2 x 3 matrix
        QVERIFY(dali.text.find("_uniform(5.0, 5.0)") !=
                std::string::npos);  // a fixed value is a DataNode too
        QVERIFY(hasWarning(dali, "coarse_dropout"));
        const ExportResult tf = exportTfDeotte(p);
        QVERIFY(tf.text.find("rotate_deg=(5.0, 5.0)") != std::string::npos);
        QVERIFY(tf.text.find("cx, cy = w / 2.0 - 0.5, h / 2.0 - 0.5") != std::string::npos);
        QVERIFY(hasWarning(tf, "coarse_dropout is not part"));
    }

    void disabledOpsAreNamed() {
        for (const ExportTarget& t : exportTargets()) {
            const ExportResult r = t.write(everyOpPreset());
            QVERIFY2(hasWarning(r, everyOpDisabledFlipWarning().c_str()), t.name.c_str());
        }
    }

    void generatedPythonCompiles() {
        const QString py = python3();
        // python3 is a dependency the set-up commands install (scripts/deps.sh): its absence is a
        // broken machine, not a reason to skip.
        QVERIFY2(!py.isEmpty(), "python3 is not installed (scripts/deps.sh installs it)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList files;
        for (const auto& [name, preset] : goldenPresets())
            for (const ExportTarget& t : exportTargets()) {
                if (t.extension != ".py") continue;
                const std::string file =
                    dir.filePath(QString::fromStdString(name + "_" + t.name + ".py")).toStdString();
                writeFileAtomically(file, t.write(preset).text);
                files << QString::fromStdString(file);
            }
        const PythonRun r = runProcess(py, QStringList{"-m", "py_compile"} + files);
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "test_export.moc"
