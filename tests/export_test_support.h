#pragma once
// Helpers shared by the exporter suites: the built-in presets, a preset that uses every op, and
// running Python.

#include <filesystem>
#include <string>
#include <vector>

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include "pipeline.h"
#include "preset.h"

namespace auglab::testing {

namespace fs = std::filesystem;

inline const fs::path kSourceDir = AUGLAB_SOURCE_DIR;
inline const fs::path kExportData = kSourceDir / "tests" / "data" / "export";

/// Every built-in preset, by file stem ("mild-geometric"), in name order.
inline std::vector<std::pair<std::string, Preset>> builtInPresets() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kSourceDir / "presets"))
        if (e.path().string().size() > 12 && e.path().string().ends_with(".auglab.json")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::pair<std::string, Preset>> out;
    for (const fs::path& f : files) {
        std::string stem = f.filename().string();
        stem.resize(stem.size() - std::string(".auglab.json").size());
        out.emplace_back(stem, loadPreset(f));
    }
    return out;
}

/// One preset with every op, non-default values, a disabled op and odd probabilities: the golden
/// files show every branch of every exporter.
inline Preset everyOpPreset() {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "name": "every-op", "seed": 7,
      "description": "every op with non-default values",
      "pipeline": [
        {"op": "affine", "p": 0.7, "rotate_deg": [-20, 10], "scale_x": [0.8, 1.2], "scale_y": [0.9, 1.1],
         "keep_ratio": false, "shear_x_deg": [-5, 5], "shear_y_deg": [0, 3], "translate_x_frac": [-0.1, 0.05],
         "translate_y_frac": [0, 0], "interpolation": "nearest", "border": "constant", "fill": [10, 20, 30]},
        {"op": "horizontal_flip", "p": 0.3},
        {"op": "vertical_flip", "p": 0.5},
        {"op": "random_resized_crop", "p": 0.9, "size": [200, 300], "scale": [0.3, 0.9], "ratio": [0.5, 2.0],
         "interpolation": "nearest"},
        {"op": "coarse_dropout", "p": 0.5, "holes": [0, 4], "hole_height_px": [4, 8], "hole_width_px": [3, 9],
         "fill": "random_uniform"},
        {"op": "coarse_dropout", "p": 1.0, "holes": [2, 3], "hole_height_frac": [0.1, 1.0],
         "hole_width_frac": [0.05, 0.2], "fill": [255, 255, 255]},
        {"op": "brightness_contrast", "p": 0.6, "brightness": [-0.1, 0.3], "contrast": [-0.5, 0.25],
         "brightness_by_max": false},
        {"op": "hue_saturation_value", "p": 0.5, "hue_shift_deg": [-30, 50], "sat_shift": [-20, 10], "val_shift": [-5, 5]},
        {"op": "gaussian_blur", "p": 0.4, "sigma_px": [0.5, 2.0]},
        {"op": "gauss_noise", "p": 0.3, "std_frac": [0.01, 0.05], "mean_frac": [-0.01, 0.02], "per_channel": false},
        {"op": "to_gray", "p": 0.1},
        {"op": "horizontal_flip", "enabled": false, "p": 0.9},
        {"op": "grid_dropout", "p": 0.4, "ratio": 0.3, "unit_size_px": [12, 40], "fill": "random_uniform"},
        {"op": "grid_dropout", "p": 1.0, "ratio": 0.6, "random_offset": false, "fill": [0, 128, 255]},
        {"op": "deotte_affine", "p": 0.8, "rotation_std_deg": 20, "shear_std_deg": 3, "zoom_std": 0.15, "shift_std_px": 8}
      ]})");
}

struct PythonRun {
    int code = -1;
    QString out, err;
};

inline PythonRun runProcess(const QString& program, const QStringList& args, int timeoutMs = 600000) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(30000)) return {-2, {}, "cannot start " + program};
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-3, {}, "timed out: " + program + " " + args.join(' ')};
    }
    PythonRun r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

inline QString python3() { return QStandardPaths::findExecutable("python3"); }

/// A virtual environment at `dir` in which the Python code `check` succeeds: made (again, when a
/// half-made one is there) with pip installing `packages` when it does not. Empty when ready, else
/// why not (no python3, no venv, pip could not install: the suites then skip with it).
inline QString ensurePythonEnvironment(const QString& dir, const QStringList& packages, const QString& check) {
    const QString python = dir + "/bin/python";
    if (QFileInfo::exists(python) && runProcess(python, {"-c", check}).code == 0) return {};
    const QString py = python3();
    if (py.isEmpty()) return "python3 is not installed";
    QDir(dir).removeRecursively();
    const PythonRun venv = runProcess(py, {"-m", "venv", dir});
    if (venv.code != 0) return "python3 -m venv failed: " + venv.err.right(400);
    const PythonRun pip = runProcess(python, QStringList{"-m", "pip", "install", "--quiet", "--disable-pip-version-check"} + packages,
                                     1200000);
    if (pip.code != 0) return "pip could not install " + packages.join(' ') + ": " + pip.err.right(600);
    return {};
}

/// How far a library's output may be from `auglab-cli apply`'s in one pinned case.
enum class Bound {
    Exact,               ///< both compute the same integers
    Linear,              ///< SPEC §2's linear bounds (another bilinear arithmetic)
    Nearest,             ///< SPEC §2: at most 0.5% of the pixels (rounding ties of the source position)
    Blur,                ///< at most one level (float sums rounded)
    ExactBeforeRowTail,  ///< exact but in OpenCV's scalar row tail (test_export_library)
};

/// One op with fixed ranges (so both sides draw the same values), p = 1.
struct PinnedCase {
    const char* name;
    const char* op;  ///< one pipeline entry
    Bound bound;
};

/// The pinned cases every exporter that has these ops is held to: the affine (every border, both
/// interpolations), flips, brightness/contrast and gray.
inline const std::vector<PinnedCase>& commonPinnedCases() {
    static const std::vector<PinnedCase> cases{
        {"rotate, constant", R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})", Bound::Linear},
        {"scale, reflect_101", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect_101"})", Bound::Linear},
        {"scale per axis, replicate", R"({"op": "affine", "rotate_deg": [0, 0], "keep_ratio": false, "scale_x": [0.85, 0.85], "scale_y": [1.2, 1.2], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})", Bound::Linear},
        {"shear, reflect", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_x_deg": [8, 8], "shear_y_deg": [-4, -4], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect"})", Bound::Linear},
        {"translate, wrap", R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711], "border": "wrap"})", Bound::Exact},
        {"rotate, nearest, wrap", R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest", "border": "wrap"})", Bound::Nearest},
        {"everything, constant fill", R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "shear_x_deg": [5, 5], "translate_x_frac": [-0.05, -0.05], "translate_y_frac": [0.08, 0.08], "fill": [10, 200, 30]})", Bound::Linear},
        {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
        {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
        {"brightness/contrast by max", R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})", Bound::Exact},
        {"brightness/contrast by mean", R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})", Bound::Exact},
        {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    };
    return cases;
}

}  // namespace auglab::testing
