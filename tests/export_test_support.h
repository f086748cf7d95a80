#pragma once
// Helpers shared by the exporter suites: the built-in presets, a preset that uses every op, and
// running Python.

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include "atomic_file.h"
#include "contact_sheet.h"
#include "cpu_backend.h"
#include "exporter.h"
#include "image_io.h"
#include "op_registry.h"
#include "pipeline.h"
#include "preset.h"
#include "replay.h"
#include "sampler.h"
#include "test_support.h"

namespace auglab::testing {

namespace fs = std::filesystem;

inline const fs::path kSourceDir = AUGLAB_SOURCE_DIR;
inline const fs::path kExportData = kSourceDir / "tests" / "data" / "export";

/// How far two images of the same size are apart, over columns [x0, x1) of their RGB channels.
struct Stats {
    double meanAbs = 0;
    int maxAbs = 0;
    double over2 = 0;         ///< fraction of values differing by more than 2
    double pixelsDiffer = 0;  ///< fraction of pixels with any difference
};

Stats columnStats(const Image& a, const Image& b, int x0 = 0, int x1 = -1) {
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

/// Every built-in preset, by file stem ("mild-geometric"), in name order.
inline std::vector<std::pair<std::string, Preset>> builtInPresets() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(kSourceDir / "presets"))
        if (e.path().string().size() > 12 && e.path().string().ends_with(".auglab.json"))
            files.push_back(e.path());
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
        {"op": "safe_rotate", "p": 0.3, "limit": [-40, 25], "border": "reflect_101"},
        {"op": "grid_distortion", "p": 0.3, "num_steps": [6, 6], "distort_limit": [-0.2, 0.4], "normalized": false,
         "border": "replicate", "keypoint_remapping": "direct"},
        {"op": "optical_distortion", "p": 0.4, "distort_limit": [-0.3, 0.1], "mode": "fisheye",
         "interpolation": "nearest", "fill": [5, 6, 7]},
        {"op": "elastic_transform", "p": 0.2, "alpha": 30, "sigma": 5, "same_dxdy": true, "border": "reflect"},
        {"op": "random_grid_shuffle", "p": 0.3, "grid": [2, 5]},
        {"op": "downscale", "p": 0.2, "scale_range": [0.3, 0.7], "up_interpolation": "linear"},
        {"op": "random_resized_crop", "p": 0.9, "size": [200, 300], "scale": [0.3, 0.9], "ratio": [0.5, 2.0],
         "interpolation": "nearest"},
        {"op": "coarse_dropout", "p": 0.5, "holes": [0, 4], "hole_height_px": [4, 8], "hole_width_px": [3, 9],
         "fill": "random_uniform"},
        {"op": "coarse_dropout", "p": 1.0, "holes": [2, 3], "hole_height_frac": [0.1, 1.0],
         "hole_width_frac": [0.05, 0.2], "fill": [255, 255, 255]},
        {"op": "xy_masking", "p": 0.3, "num_masks_x": [1, 2], "num_masks_y": [0, 1], "mask_x_length": [2, 20],
         "mask_y_length": [3, 12], "fill": "random_uniform"},
        {"op": "pixel_dropout", "p": 0.3, "dropout_prob": 0.05, "per_channel": true, "drop_value": [255, 255, 255]},
        {"op": "brightness_contrast", "p": 0.6, "brightness": [-0.1, 0.3], "contrast": [-0.5, 0.25],
         "brightness_by_max": false},
        {"op": "hue_saturation_value", "p": 0.5, "hue_shift_deg": [-30, 50], "sat_shift": [-20, 10], "val_shift": [-5, 5]},
        {"op": "color_jitter", "p": 0.4, "brightness": [0.7, 1.4], "contrast": [0.5, 1.1], "saturation": [0, 2],
         "hue": [-0.1, 0.05]},
        {"op": "equalize", "p": 0.3},
        {"op": "clahe", "p": 0.3, "clip_limit": [1.5, 6], "tile_grid": [4, 6]},
        {"op": "fancy_pca", "p": 0.4, "alpha": 0.3},
        {"op": "gaussian_blur", "p": 0.4, "sigma_px": [0.5, 2.0]},
        {"op": "box_blur", "p": 0.3, "kernel_size": [3, 9]},
        {"op": "median_blur", "p": 0.3, "kernel_size": [5, 7]},
        {"op": "motion_blur", "p": 0.3, "kernel_size": [3, 11], "angle": [20, 160], "direction": [-0.5, 0.5],
         "allow_shifted": false},
        {"op": "defocus", "p": 0.3, "radius": [2, 6], "alias_blur": [0.1, 0.6]},
        {"op": "ringing_overshoot", "p": 0.4, "kernel_size": [5, 11], "cutoff": [0.5, 1.8]},
        {"op": "advanced_blur", "p": 0.35, "kernel_size": [3, 9], "sigma_x": [0.3, 1.5], "sigma_y": [0.2, 0.9], "rotate": [-60, 45], "beta": [0.4, 5], "noise": [0.85, 1.2]},
        {"op": "sharpen", "p": 0.2, "alpha": [0.1, 0.6], "lightness": [0.3, 1.5]},
        {"op": "emboss", "p": 0.2, "alpha": [0.2, 0.4], "strength": [0.1, 1.0]},
        {"op": "gauss_noise", "p": 0.3, "std_frac": [0.01, 0.05], "mean_frac": [-0.01, 0.02], "per_channel": false},
        {"op": "multiplicative_noise", "p": 0.4, "multiplier": [0.7, 1.3], "per_channel": true},
        {"op": "iso_noise", "p": 0.2, "color_shift": [0.02, 0.08], "intensity": [0.2, 0.9]},
        {"op": "salt_and_pepper", "p": 0.45, "amount": [0.02, 0.08], "salt_vs_pepper": [0.3, 0.7]},
        {"op": "random_fog", "p": 0.2, "fog_coef": [0.3, 0.9], "alpha_coef": 0.1},
        {"op": "random_rain", "p": 0.2, "slant": [-5, 12], "drop_width": 2, "rain_type": "drizzle"},
        {"op": "random_shadow", "p": 0.3, "num_shadows": [1, 3], "shadow_dimension": 4},
        {"op": "random_sun_flare", "p": 0.2, "src_radius": 120, "method": "physics_based"},
        {"op": "image_compression", "p": 0.3, "compression_type": "webp", "quality_range": [40, 90]},
        {"op": "to_gray", "p": 0.1},
        {"op": "channel_shuffle", "p": 0.4},
        {"op": "to_sepia", "p": 0.2},
        {"op": "resize", "p": 0.8, "size": [180, 240], "interpolation": "nearest"},
        {"op": "longest_max_size", "p": 1.0, "max_size": [200, 220]},
        {"op": "smallest_max_size", "p": 0.5, "max_size": [150, 150], "interpolation": "nearest"},
        {"op": "random_rotate90", "p": 0.7},
        {"op": "transpose", "p": 0.4},
        {"op": "d4", "p": 0.6},
        {"op": "pad_if_needed", "p": 1.0, "min_size": [260, 300], "position": "random", "border": "reflect"},
        {"op": "random_crop", "p": 1.0, "size": [200, 240], "pad_if_needed": true, "pad_position": "top_right",
         "fill": [9, 99, 199]},
        {"op": "center_crop", "p": 0.9, "size": [150, 180]},
        {"op": "crop", "p": 1.0, "top_left": [5, 10], "bottom_right": [150, 200], "pad_if_needed": true,
         "pad_position": "bottom_left", "border": "replicate"},
        {"op": "random_sized_crop", "p": 0.8, "min_max_height": [120, 200], "w2h_ratio": 1.25, "size": [190, 230],
         "interpolation": "nearest"},
        {"op": "random_scale", "p": 0.6, "scale_limit": [-0.2, 0.15]},
        {"op": "channel_dropout", "p": 0.3, "channel_drop_range": [1, 2], "fill": 77.5},
        {"op": "random_tone_curve", "p": 0.4, "scale": 0.2, "per_channel": true},
        {"op": "planckian_jitter", "p": 0.55, "mode": "cied", "temperature": [4500, 11000], "sampling": "gaussian"},
        {"op": "horizontal_flip", "enabled": false, "p": 0.9},
        {"op": "grid_dropout", "p": 0.4, "ratio": 0.3, "unit_size_px": [12, 40], "fill": "random_uniform"},
        {"op": "grid_dropout", "p": 1.0, "ratio": 0.6, "random_offset": false, "fill": [0, 128, 255]},
        {"op": "deotte_affine", "p": 0.8, "rotation_std_deg": 20, "shear_std_deg": 3, "zoom_std": 0.15, "shift_std_px": 8},
        {"op": "perspective", "p": 0.6, "scale": [0.03, 0.12], "fit_output": true, "interpolation": "nearest",
         "border": "reflect", "fill": [1, 2, 3]}
      ]})");
}

/// "pipeline[i] horizontal_flip is disabled": the warning every export gives for every-op's disabled
/// flip.
inline std::string everyOpDisabledFlipWarning() {
    const Pipeline& p = everyOpPreset().pipeline;
    for (std::size_t i = 0; i < p.size(); ++i)
        if (!p[i].enabled) return "pipeline[" + std::to_string(i) + "] " + p[i].name() + " is disabled";
    return "(every-op has no disabled op)";
}

/// The 4-image grid (it must be first, so it cannot join every-op) with non-default values, and ops
/// after it.
inline Preset mosaicPreset() {
    return parsePreset(R"({"format": "auglab-preset", "version": 1, "name": "mosaic", "seed": 11,
      "description": "the 4-image grid with non-default values, then ops that follow it",
      "pipeline": [
        {"op": "mosaic", "p": 0.8, "target_size": [320, 400], "cell_shape": [300, 360], "center_range": [0.2, 0.9],
         "fit_mode": "contain", "interpolation": "nearest", "fill": [114, 114, 114]},
        {"op": "affine", "p": 0.5, "rotate_deg": [-5, 5], "scale_x": [0.9, 1.1], "scale_y": [0.9, 1.1]},
        {"op": "horizontal_flip", "p": 0.5},
        {"op": "hue_saturation_value", "p": 0.5, "hue_shift_deg": [-10, 10], "sat_shift": [-20, 20], "val_shift": [-10, 10]}
      ]})");
}

/// Random representable presets: every op, random order, values within AugLab's bounds that
/// Albumentations can hold (at least one hole, fractions below 1, sigma above 0, equal scale ranges
/// with keep_ratio), some disabled. Thirds and sevenths need all 17 digits.
inline Preset randomPreset(QRandomGenerator& rng, int n) {
    Preset p;
    p.name = "random " + std::to_string(n);
    p.description = "line one\nline \"two\"";
    p.seed = rng.generate64();
    const auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * rng.generateDouble(); };
    const auto range = [&](double lo, double hi) {
        double a = uniform(lo, hi), b = uniform(lo, hi);
        if (a > b) std::swap(a, b);
        return rng.bounded(4) == 0 ? Range{a, a} : Range{a, b};
    };
    for (int i = 0; i < 12; ++i) {
        const OpDesc& d = opRegistry()[rng.bounded(static_cast<int>(opRegistry().size()))];
        OpConfig op(d);
        op.enabled = rng.bounded(5) != 0;
        op.p = rng.bounded(3) == 0 ? 1.0 : uniform(0, 1) / 3;
        for (const ParamDesc& pd : d.params) {
            if (pd.optional) continue;
            switch (pd.kind) {
                case ParamKind::FloatRange:
                    op.set(pd.key, range(pd.lower, pd.upper));
                    break;
                case ParamKind::IntRange: {
                    // Kernel sizes (odd) up to 15: the Keras median and motion layers take time in
                    // k squared, and a random preset is about structure, not extremes.
                    const Range r = range(std::max(1.0, pd.lower), std::min(pd.upper, pd.odd ? 15.0 : 50.0));
                    Range ints{std::floor(r.min), std::floor(r.max)};
                    if (pd.odd) ints = {2 * std::floor(ints.min / 2) + 1, 2 * std::floor(ints.max / 2) + 1};
                    op.set(pd.key, ints);
                    break;
                }
                case ParamKind::Bool:
                    op.set(pd.key, rng.bounded(2) == 0);
                    break;
                case ParamKind::Choice:
                    op.set(pd.key, pd.choices[rng.bounded(static_cast<int>(pd.choices.size()))]);
                    break;
                case ParamKind::Fill: {
                    Fill f;
                    f.mode =
                        pd.allowsRandomFill ? static_cast<Fill::Mode>(rng.bounded(3)) : Fill::Mode::Constant;
                    if (f.mode == Fill::Mode::Constant)
                        for (int& c : f.rgb) c = rng.bounded(256);
                    op.set(pd.key, f);
                    break;
                }
                case ParamKind::Float:
                    if (pd.integer)
                        op.set(pd.key, std::round(uniform(pd.lower, std::min(pd.upper, pd.lower + 20))));
                    else
                        op.set(pd.key, uniform(pd.lower, pd.upper));
                    break;
                case ParamKind::Triple:
                    op.set(pd.key, Triple{{uniform(std::max(pd.lower, -2.0), std::min(pd.upper, 2.0)),
                                           uniform(std::max(pd.lower, 1e-3), 2.0), uniform(0.5, 1.5)}});
                    break;
                case ParamKind::Size:
                    op.set(pd.key, Size2{std::min(int(pd.upper), int(pd.lower) + int(rng.bounded(600))),
                                         std::min(int(pd.upper), int(pd.lower) + int(rng.bounded(600)))});
                    break;
            }
        }
        if (op.id() == OpId::Affine && op.flag("keep_ratio")) op.set("scale_y", op.range("scale_x"));
        if (op.id() == OpId::CoarseDropout) {
            if (rng.bounded(2) == 0) {
                op.set("hole_height_px", Range{3, 9});
                op.set("hole_width_px", Range{1, 40});
            } else {
                op.set("hole_height_frac", range(0, 0.99));
                op.set("hole_width_frac", range(0, 0.99));
            }
        }
        if (op.id() == OpId::Mosaic) {  // two cells cover the output
            const Size2 t = op.size("target_size"), c = op.size("cell_shape");
            op.set("cell_shape",
                   Size2{std::max(c.height, (t.height + 1) / 2), std::max(c.width, (t.width + 1) / 2)});
        }
        if (op.id() == OpId::RandomSunFlare) {  // the library needs each lower end below its upper one
            op.set("roi_x", Range{uniform(0, 0.5), uniform(0.5001, 1)});
            op.set("roi_y", Range{uniform(0, 0.5), uniform(0.5001, 1)});
        }
        if (op.id() == OpId::RandomShadow) {  // a region every image holds (an empty one raises)
            op.set("roi_x", Range{uniform(0, 0.3), 1});
            op.set("roi_y", Range{uniform(0, 0.3), 1});
        }
        if (op.id() == OpId::RandomRain)
            op.set("rain_type", std::string("default"));  // 1-row frames hold them
        if (op.id() == OpId::GaussianBlur) op.set("sigma_px", range(0.01, 50));
        if (op.id() == OpId::PlanckianJitter)  // the library needs 6000 K inside (cied: from 4000 K)
            op.set("temperature", Range{std::floor(uniform(op.choice("mode") == "cied" ? 4000 : 3000, 6000)),
                                        std::floor(uniform(6000, 15000))});
        if (op.id() == OpId::AdvancedBlur)  // the library needs 1 strictly inside beta's range
            op.set("beta", Range{uniform(0, 0.99), uniform(1.01, 20)});
        if (op.id() == OpId::RandomCrop || op.id() == OpId::CenterCrop || op.id() == OpId::PadIfNeeded) {
            // A window larger than the image is an error without padding (as in the library), and
            // torch pads by reflection only by less than the image's side: pad, constant or replicate.
            if (op.id() != OpId::PadIfNeeded) op.set("pad_if_needed", true);
            op.set("border", std::string(rng.bounded(2) == 0 ? "constant" : "replicate"));
        }
        if (op.id() == OpId::Crop) {
            // Padded (constant or replicate, as above) so that any image holds the window; its size is
            // set below, with the blur radius known.
            op.set("pad_if_needed", true);
            op.set("border", std::string(rng.bounded(2) == 0 ? "constant" : "replicate"));
            op.set("top_left", Size2{int(rng.bounded(200)), int(rng.bounded(200))});
        }
        if (op.id() == OpId::RandomSizedCrop) {  // crops at least 2 px wide
            op.set("w2h_ratio", uniform(0.5, 2));
            const Range h = op.range("min_max_height");
            op.set("min_max_height", Range{std::max(4.0, h.min), std::max(4.0, h.max)});
        }
        if (op.id() == OpId::RandomScale) op.set("scale_limit", range(-0.5, 0.5));  // sizes of a run's order
        if (op.id() == OpId::XyMasking) {
            // Stripes past the image's side are an error (as in the library): at most 8 px, below the
            // smallest side a crop or resize leaves (above the radius, at least 8: see below).
            op.set("mask_x_length", Range{0, double(rng.bounded(9))});
            op.set("mask_y_length", Range{1, 1 + double(rng.bounded(8))});
        }
        if (op.id() == OpId::ElasticTransform) {  // a smoothing kernel of the image's size at most
            op.set("sigma", uniform(0, 8));
            op.set("alpha", uniform(0, 60));
        }
        if (op.id() == OpId::GridDistortion) {  // the library takes one number of cells
            const double n = std::floor(op.range("num_steps").min);
            op.set("num_steps", Range{n, n});
        }
        if (op.id() == OpId::GridDropout && rng.bounded(2) == 0) {
            const Range u = range(2, 300);
            op.set("unit_size_px", Range{std::floor(u.min), std::floor(u.max)});
        }
        p.pipeline.push_back(op);
    }
    // torchvision's blur raises on an image side not above its kernel's radius (the export says so):
    // a crop keeps its output above the largest radius.
    int radius = 0;
    for (const OpConfig& op : p.pipeline)
        if (op.id() == OpId::GaussianBlur) radius = std::max(radius, int(op.range("sigma_px").max * 3.5));
    // A crop or resize keeps its output above the largest radius (and the kernel ops' 7).
    radius = std::max(radius, 8);
    for (OpConfig& op : p.pipeline) {
        if (op.id() == OpId::Crop) {
            const Size2 tl = op.size("top_left");
            op.set("bottom_right", Size2{tl.height + radius + 1 + int(rng.bounded(300)),
                                         tl.width + radius + 1 + int(rng.bounded(300))});
        }
        if (op.id() == OpId::RandomResizedCrop || op.id() == OpId::Resize ||
            op.id() == OpId::RandomSizedCrop) {
            const Size2 s = op.size("size");
            op.set("size", Size2{std::max(s.height, radius + 1), std::max(s.width, radius + 1)});
        }
        if (op.id() == OpId::LongestMaxSize || op.id() == OpId::SmallestMaxSize) {
            // A shorter side of 1 px after a longest-side resize of a wide image would be below any
            // radius: sizes of 2 to 3 times the radius, from 64 px.
            const double lo = std::max(64.0, 3.0 * (radius + 1)), hi = lo + double(rng.bounded(200));
            op.set("max_size", rng.bounded(2) == 0 ? Range{lo, lo} : Range{lo, hi});
        }
    }
    // The training tail ends the pipeline (ToTensorV2 needs torch, which the library's test
    // environment does not have: it is checked in the torch environment).
    erase_if(p.pipeline, [](const OpConfig& c) { return c.id() == OpId::ToTensor; });
    std::stable_partition(p.pipeline.begin(), p.pipeline.end(),
                          [](const OpConfig& c) { return c.desc().category != OpCategory::Training; });
    // AugLab's order rule: the 4-image grid comes first (one at most). Crops and resizes stay where
    // they were drawn, several of them too.
    const auto isGrid = [](const OpConfig& c) { return c.desc().mustBeFirst; };
    if (const auto grid = std::find_if(p.pipeline.begin(), p.pipeline.end(), isGrid);
        grid != p.pipeline.end()) {
        const OpConfig keep = *grid;
        erase_if(p.pipeline, isGrid);
        p.pipeline.insert(p.pipeline.begin(), keep);
    }
    return p;
}

/// What every exporter's output is run on in its library: the built-in presets, one with every op,
/// and `randomCount` random ones (a fixed generator: the same presets on every run).
/// tests/data/presets/valid/groups.auglab.json: every group kind, nested, with a disabled op.
inline Preset groupsPreset() {
    return loadPreset(std::string(AUGLAB_SOURCE_DIR) + "/tests/data/presets/valid/groups.auglab.json");
}

/// Groups of flips and an inversion, whose runs show in the output (the exports' group tests): first
/// a one_of whose outcomes are far apart (weights; a chosen some_of keeps its gate, a chosen
/// sequential runs for sure), then every kind nested.
inline std::vector<const char*> flipGroupPresets() {
    return {R"({"group": "one_of", "p": 0.9, "children": [{"op": "horizontal_flip", "p": 0.6},
                 {"group": "some_of", "p": 0.5, "children": [{"op": "vertical_flip"}]},
                 {"group": "sequential", "p": 0.3, "children": [{"op": "invert_img", "p": 0.5}]}]})",
            R"({"group": "one_of", "p": 0.9, "children": [
                  {"op": "horizontal_flip", "p": 0.6},
                  {"group": "some_of", "p": 0.5, "children": [{"op": "vertical_flip", "p": 0.7}, {"op": "invert_img"}]},
                  {"group": "sequential", "p": 0.3, "children": [{"op": "invert_img", "p": 0.5}, {"op": "vertical_flip", "p": 0.5}]}]},
                {"group": "random_order", "n": 2, "p": 0.8, "children": [
                  {"op": "horizontal_flip", "p": 0.7}, {"op": "vertical_flip", "p": 0.9}, {"op": "invert_img"}]},
                {"group": "some_of", "n": 2, "replace": true, "children": [
                  {"op": "horizontal_flip", "p": 0.5}, {"op": "invert_img", "p": 0.8}]})",
            // Children the runtimes cannot write (random_fog is Albumentations only): in a one_of each
            // keeps its weight as a choice that does nothing, so the flip runs in 3 / 14 of the
            // samples, as in AugLab, not in 3 / 9 of them (issue 33).
            R"({"group": "one_of", "p": 1, "children": [{"op": "horizontal_flip", "p": 0.3}, {"op": "random_fog", "p": 0.3},
                 {"group": "sequential", "p": 0.2, "children": [{"op": "random_fog"}]}, {"op": "invert_img", "p": 0.4},
                 {"op": "vertical_flip", "p": 0.2}]})"};
}

/// Which of the flips and the inversion show in an export's outputs (`runs`: "h", "v", "i" joined, per
/// run) against as many AugLab samples: the same distribution, by a chi-square test of homogeneity at
/// the 0.001 level. Empty when it holds; else the table. The table is printed either way.
inline QString compareAppliedRuns(const Preset& preset, const nlohmann::json& runs, int n) {
    std::map<std::string, std::array<double, 2>> counts;
    for (const auto& run : runs) counts[run.get<std::string>()][1] += 1;
    for (int i = 0; i < n; ++i) {
        bool h = false, v = false, inv = false;
        for (const ConcreteOp& c : samplePipeline(preset.pipeline, 9, std::uint64_t(i), 8, 6).ops) {
            if (!c.applied) continue;
            h ^= c.id == OpId::HorizontalFlip;
            v ^= c.id == OpId::VerticalFlip;
            inv ^= c.id == OpId::InvertImg;
        }
        counts[std::string(h ? "h" : "") + (v ? "v" : "") + (inv ? "i" : "")][0] += 1;
    }
    double chi2 = 0;
    QStringList table;
    for (const auto& [run, c] : counts) {
        table << QString("%1: %2 vs %3")
                     .arg(QString::fromStdString(run.empty() ? "-" : run))
                     .arg(c[0])
                     .arg(c[1]);
        chi2 += (c[0] - c[1]) * (c[0] - c[1]) / (c[0] + c[1]);
    }
    // The 0.999 quantile of chi-square with k - 1 degrees of freedom (Wilson-Hilferty).
    const double df = double(counts.size()) - 1, z = 3.090232;
    const double limit = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
    qInfo("X^2 %.2f (limit %.2f): %s", chi2, limit, qPrintable(table.join(", ")));
    if (counts.size() < 4) return "fewer than 4 outcomes: " + table.join(", ");
    return chi2 < limit ? QString()
                        : "X^2 " + QString::number(chi2) + " over " + QString::number(limit) + ":\n" +
                              table.join('\n');
}

inline std::vector<std::pair<std::string, Preset>> presetsToRun(int randomCount = 8) {
    auto presets = builtInPresets();
    presets.emplace_back("every-op", everyOpPreset());
    presets.emplace_back("mosaic", mosaicPreset());
    QRandomGenerator rng(20261201);
    for (int i = 0; i < randomCount; ++i)
        presets.emplace_back("random-" + std::to_string(i), randomPreset(rng, i));
    return presets;
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

inline QString python3() {
    return QStandardPaths::findExecutable("python3");
}

/// A virtual environment at `dir` in which the Python code `check` succeeds: made (again, when a
/// half-made one is there) with pip installing `packages` when it does not. Empty when ready, else
/// why not (no python3, no venv, pip could not install: the suites then skip with it).
inline QString ensurePythonEnvironment(const QString& dir, const QStringList& packages,
                                       const QString& check) {
    const QString python = dir + "/bin/python";
    if (QFileInfo::exists(python) && runProcess(python, {"-c", check}).code == 0) return {};
    const QString py = python3();
    if (py.isEmpty()) return "python3 is not installed";
    QDir(dir).removeRecursively();
    const PythonRun venv = runProcess(py, {"-m", "venv", dir});
    if (venv.code != 0) return "python3 -m venv failed: " + venv.err.right(400);
    const PythonRun pip = runProcess(
        python, QStringList{"-m", "pip", "install", "--quiet", "--disable-pip-version-check"} + packages,
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
    Stated,              ///< a difference the exporter's warning and the README state: the case's limits
};

/// One op with fixed ranges (so both sides draw the same values), p = 1.
struct PinnedCase {
    const char* name;
    const char* op;  ///< one pipeline entry
    Bound bound;
    double meanLimit = 0;  ///< Bound::Stated: the mean difference allowed
    int maxLimit = 0;      ///< Bound::Stated: the largest difference allowed
};

/// The bound a target states for one case: Exact, or Stated with its mean and max.
struct StatedBound {
    Bound bound = Bound::Exact;
    double meanLimit = 0;
    int maxLimit = 0;
};

/// color_jitter with one adjustment at a time (the others at their identity, so that the drawn order
/// cannot matter): brightness 1.3, contrast 0.6, saturation 1.7 and 0.35, hue +0.1, with the bounds
/// a target states for them, in that order.
inline std::vector<PinnedCase> colorJitterCases(const std::array<StatedBound, 5>& bounds) {
    static const char* const names[] = {"color jitter, brightness 1.3", "color jitter, contrast 0.6",
                                        "color jitter, saturation 1.7", "color jitter, saturation 0.35",
                                        "color jitter, hue +0.1"};
    static const char* const ops[] = {
        R"({"op": "color_jitter", "brightness": [1.3, 1.3], "contrast": [1, 1], "saturation": [1, 1], "hue": [0, 0]})",
        R"({"op": "color_jitter", "brightness": [1, 1], "contrast": [0.6, 0.6], "saturation": [1, 1], "hue": [0, 0]})",
        R"({"op": "color_jitter", "brightness": [1, 1], "contrast": [1, 1], "saturation": [1.7, 1.7], "hue": [0, 0]})",
        R"({"op": "color_jitter", "brightness": [1, 1], "contrast": [1, 1], "saturation": [0.35, 0.35], "hue": [0, 0]})",
        R"({"op": "color_jitter", "brightness": [1, 1], "contrast": [1, 1], "saturation": [1, 1], "hue": [0.1, 0.1]})"};
    std::vector<PinnedCase> cases;
    for (std::size_t i = 0; i < bounds.size(); ++i)
        cases.push_back({names[i], ops[i], bounds[i].bound, bounds[i].meanLimit, bounds[i].maxLimit});
    return cases;
}

/// A preset of one pipeline entry (seed 5).
inline Preset presetOf(const char* op) {
    return parsePreset(std::string(R"({"format": "auglab-preset", "version": 1, "seed": 5, "pipeline": [)") +
                       op + "]}");
}

/// Whether `d` is within `c`'s bound (every bound but ExactBeforeRowTail, which is Albumentations').
inline bool withinBound(const PinnedCase& c, const Diff& d) {
    switch (c.bound) {
        case Bound::Exact:
            return d.maxAbs == 0;
        case Bound::Linear:
            return d.withinLinearBounds();
        case Bound::Nearest:
            return d.pixelFractionDiffering() <= 0.005;
        case Bound::Blur:
            return d.maxAbs <= 1;
        case Bound::Stated:
            return d.meanAbs <= c.meanLimit && d.maxAbs <= c.maxLimit;
        case Bound::ExactBeforeRowTail:
            return false;
    }
    return false;
}

/// Exports each case with `exporter` into `dir`, runs `python checker [options] EXPORT INPUT OUTPUT ...`
/// once for all of them, and compares each output with what `auglab-cli apply` renders (the engine's
/// renderSample, index 0). Every case's line is logged; returns the lines outside their bounds, or
/// the checker's error as the only line.
inline QStringList pinnedCasesOutsideBounds(const std::vector<PinnedCase>& cases,
                                            ExportResult (*exporter)(const Preset&), const QString& python,
                                            const QStringList& checkerAndOptions, const QString& dir,
                                            const std::string& input) {
    SourceLevels source(loadImage(input).image);
    CpuBackend cpu(2);
    QStringList args = checkerAndOptions;
    const auto outputOf = [&](std::size_t i) { return dir + "/case" + QString::number(i) + "-out.png"; };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const QString module = dir + "/case" + QString::number(i) + ".py";
        writeFileAtomically(module.toStdString(), exporter(presetOf(cases[i].op)).text);
        args << module << QString::fromStdString(input) << outputOf(i);
    }
    const PythonRun r = runProcess(python, args);
    if (r.code != 0) return {"the checker failed: " + r.out + r.err.right(3000)};
    QStringList failures;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Preset p = presetOf(cases[i].op);
        const Image ours = renderSample(p.pipeline, source, p.seed, 0, cpu);
        const Diff d = compare(ours, loadImage(outputOf(i).toStdString()).image);
        const QString line = QString("%1: %2").arg(cases[i].name, QString::fromUtf8(d.describe()));
        qInfo("%s", qPrintable(line));
        if (!withinBound(cases[i], d)) failures << line;
    }
    return failures;
}

/// The pinned cases every exporter that has these ops is held to: the affine (every border, both
/// interpolations), flips, brightness/contrast and gray.
inline const std::vector<PinnedCase>& commonPinnedCases() {
    static const std::vector<PinnedCase> cases{
        {"rotate, constant",
         R"({"op": "affine", "rotate_deg": [17.3, 17.3], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0]})",
         Bound::Linear},
        {"scale, reflect_101",
         R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1.13, 1.13], "scale_y": [1.13, 1.13], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect_101"})",
         Bound::Linear},
        {"scale per axis, replicate",
         R"({"op": "affine", "rotate_deg": [0, 0], "keep_ratio": false, "scale_x": [0.85, 0.85], "scale_y": [1.2, 1.2], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "replicate"})",
         Bound::Linear},
        {"shear, reflect",
         R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "shear_x_deg": [8, 8], "shear_y_deg": [-4, -4], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "border": "reflect"})",
         Bound::Linear},
        {"translate, wrap",
         R"({"op": "affine", "rotate_deg": [0, 0], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0.1037, 0.1037], "translate_y_frac": [-0.0711, -0.0711], "border": "wrap"})",
         Bound::Exact},
        {"rotate, nearest, wrap",
         R"({"op": "affine", "rotate_deg": [-23, -23], "scale_x": [1, 1], "scale_y": [1, 1], "translate_x_frac": [0, 0], "translate_y_frac": [0, 0], "interpolation": "nearest", "border": "wrap"})",
         Bound::Nearest},
        {"everything, constant fill",
         R"({"op": "affine", "rotate_deg": [31, 31], "scale_x": [0.9, 0.9], "scale_y": [0.9, 0.9], "shear_x_deg": [5, 5], "translate_x_frac": [-0.05, -0.05], "translate_y_frac": [0.08, 0.08], "fill": [10, 200, 30]})",
         Bound::Linear},
        {"horizontal flip", R"({"op": "horizontal_flip"})", Bound::Exact},
        {"vertical flip", R"({"op": "vertical_flip"})", Bound::Exact},
        {"brightness/contrast by max",
         R"({"op": "brightness_contrast", "brightness": [0.1, 0.1], "contrast": [-0.2, -0.2]})",
         Bound::Exact},
        {"brightness/contrast by mean",
         R"({"op": "brightness_contrast", "brightness": [-0.15, -0.15], "contrast": [0.3, 0.3], "brightness_by_max": false})",
         Bound::Exact},
        {"to gray", R"({"op": "to_gray"})", Bound::Exact},
    };
    return cases;
}

/// The kernel ops (box, median and motion blur, sharpen, emboss) with fixed sizes, angles, biases
/// and strengths, for every target that exports them (`dali`: those DALI's export has).
inline std::vector<PinnedCase> kernelPinnedCases(bool dali = false) {
    std::vector<PinnedCase> cases{
        {"box blur 3", R"({"op": "box_blur", "kernel_size": [3, 3]})", Bound::Exact},
        {"box blur 9", R"({"op": "box_blur", "kernel_size": [9, 9]})", Bound::Exact},
        {"sharpen 0.4, lightness 0.8", R"({"op": "sharpen", "alpha": [0.4, 0.4], "lightness": [0.8, 0.8]})",
         Bound::Blur},
        {"emboss 0.5, strength 0.6", R"({"op": "emboss", "alpha": [0.5, 0.5], "strength": [0.6, 0.6]})",
         Bound::Blur},
    };
    if (dali) return cases;
    cases.insert(
        cases.end(),
        {
            {"median blur 3", R"({"op": "median_blur", "kernel_size": [3, 3]})", Bound::Exact},
            {"median blur 7", R"({"op": "median_blur", "kernel_size": [7, 7]})", Bound::Exact},
            {"motion blur 5 at 30 deg, forward 0.3",
             R"({"op": "motion_blur", "kernel_size": [5, 5], "angle": [30, 30], "direction": [0.3, 0.3], "allow_shifted": false})",
             Bound::Blur},
            {"motion blur 7 at 200 deg, backward 0.6",
             R"({"op": "motion_blur", "kernel_size": [7, 7], "angle": [200, 200], "direction": [-0.6, -0.6], "allow_shifted": false})",
             Bound::Blur},
        });
    return cases;
}

/// The ops whose kernel is built from drawn values, for the targets that export them (Albumentations,
/// torchvision): defocus with fixed radii and edges (a 3 x 3 softening, radius 3, and 1 with OpenCV's
/// own sigma, and a 5 x 5 one, radius 10); ringing_overshoot at a size OpenCV sums directly (7) and
/// one it sums through its DFT (15); advanced_blur with fixed sigmas and angles, beta within 1e-6 of
/// 1 (the library draws it below or above 1 with even odds: no fixed value) and no tap noise.
inline const std::vector<PinnedCase>& drawnKernelPinnedCases() {
    static const std::vector<PinnedCase> cases{
        {"defocus radius 3, edge 0.3", R"({"op": "defocus", "radius": [3, 3], "alias_blur": [0.3, 0.3]})",
         Bound::Blur},
        {"defocus radius 1, edge 0 (OpenCV's sigma)",
         R"({"op": "defocus", "radius": [1, 1], "alias_blur": [0, 0]})", Bound::Blur},
        {"defocus radius 10, edge 0.5", R"({"op": "defocus", "radius": [10, 10], "alias_blur": [0.5, 0.5]})",
         Bound::Blur},
        {"ringing overshoot 7, cutoff 1.1",
         R"({"op": "ringing_overshoot", "kernel_size": [7, 7], "cutoff": [1.1, 1.1]})", Bound::Blur},
        {"ringing overshoot 15, cutoff 0.6 (OpenCV's DFT)",
         R"({"op": "ringing_overshoot", "kernel_size": [15, 15], "cutoff": [0.6, 0.6]})", Bound::Blur},
        {"advanced blur 5, sigmas 1.3 x 0.4 at 30 deg",
         R"({"op": "advanced_blur", "kernel_size": [5, 5], "sigma_x": [1.3, 1.3], "sigma_y": [0.4, 0.4], "rotate": [30, 30], "beta": [0.999999, 1.000001], "noise": [1, 1]})",
         Bound::Blur},
        {"advanced blur 9, sigmas 0.7 x 2.5 at -65 deg",
         R"({"op": "advanced_blur", "kernel_size": [9, 9], "sigma_x": [0.7, 0.7], "sigma_y": [2.5, 2.5], "rotate": [-65, -65], "beta": [0.999999, 1.000001], "noise": [1, 1]})",
         Bound::Blur},
    };
    return cases;
}

/// PixelDropout and SaltAndPepper where both draw the same pixels (none, every one): the values and
/// their casts, for the targets that export them (Albumentations, torchvision).
inline const std::vector<PinnedCase>& pixelReplacingPinnedCases() {
    static const std::vector<PinnedCase> cases{
        {"pixel dropout, every pixel to (10, 200, 30)",
         R"({"op": "pixel_dropout", "dropout_prob": 1, "drop_value": [10, 200, 30]})", Bound::Exact},
        {"pixel dropout per channel, every value to grey 128",
         R"({"op": "pixel_dropout", "dropout_prob": 1, "per_channel": true, "drop_value": [128, 128, 128]})",
         Bound::Exact},
        {"pixel dropout, probability 0", R"({"op": "pixel_dropout", "dropout_prob": 0})", Bound::Exact},
        {"salt and pepper, every pixel salt",
         R"({"op": "salt_and_pepper", "amount": [1, 1], "salt_vs_pepper": [1, 1]})", Bound::Exact},
        {"salt and pepper, every pixel pepper",
         R"({"op": "salt_and_pepper", "amount": [1, 1], "salt_vs_pepper": [0, 0]})", Bound::Exact},
        {"salt and pepper, amount 0", R"({"op": "salt_and_pepper", "amount": [0, 0]})", Bound::Exact},
    };
    return cases;
}

/// PlanckianJitter at the white point, the only fixed temperature the library takes (its range must
/// hold 6000 K): gains (1.086, 0.975) for the black body, (1.039, 0.931) for cied; for the targets
/// that export it (Albumentations, torchvision). Other temperatures: replayFedMatchesLibrary.
inline const std::vector<PinnedCase>& planckianPinnedCases() {
    static const std::vector<PinnedCase> cases{
        {"planckian jitter at 6000 K, black body",
         R"({"op": "planckian_jitter", "temperature": [6000, 6000]})", Bound::Exact},
        {"planckian jitter at 6000 K, cied, gaussian",
         R"({"op": "planckian_jitter", "mode": "cied", "temperature": [6000, 6000], "sampling": "gaussian"})",
         Bound::Exact},
    };
    return cases;
}

/// What can export them.
enum class ResizeTarget { Albumentations, Torchvision, Keras, Dali };

/// The resizes (resize, longest_max_size, smallest_max_size), alone and after or between pixel ops
/// (each plan stage has its own size), and the crops and paddings (exact), on chelsea.png (451 x 300),
/// for every target that has them.
inline std::vector<PinnedCase> resizePinnedCases(ResizeTarget target) {
    std::vector<PinnedCase> cases{
        {"resize to 120 x 200 (height, width)", R"({"op": "resize", "size": [120, 200]})", Bound::Linear},
        {"resize up to 517 x 640", R"({"op": "resize", "size": [517, 640]})", Bound::Linear},
        {"box blur 5, then resize to 150 x 225",
         R"({"op": "box_blur", "kernel_size": [5, 5]}, {"op": "resize", "size": [150, 225]})", Bound::Linear},
        {"sharpen, resize to 200 x 160, box blur 3",
         R"({"op": "sharpen", "alpha": [0.4, 0.4], "lightness": [0.8, 0.8]}, {"op": "resize", "size": [200, 160]}, {"op": "box_blur", "kernel_size": [3, 3]})",
         Bound::Linear},
    };
    // DALI's nearest takes the pixel under the output pixel's centre (its export says so).
    if (target != ResizeTarget::Keras && target != ResizeTarget::Dali)
        cases.push_back({"resize up to 411 x 700, nearest",
                         R"({"op": "resize", "size": [411, 700], "interpolation": "nearest"})",
                         Bound::Nearest});
    // Crops and paddings (whole pixels: exact).
    cases.push_back({"center crop 201 x 333", R"({"op": "center_crop", "size": [201, 333]})", Bound::Exact});
    cases.push_back({"crop rows 20..249, columns 30..399",
                     R"({"op": "crop", "top_left": [20, 30], "bottom_right": [250, 400]})", Bound::Exact});
    if (target == ResizeTarget::Keras) return cases;
    if (target != ResizeTarget::Dali)
        cases.insert(
            cases.end(),
            {
                {"pad to 400 x 520, constant (10, 20, 30)",
                 R"({"op": "pad_if_needed", "min_size": [400, 520], "border": "constant", "fill": [10, 20, 30]})",
                 Bound::Exact},
                {"pad to 360 x 500, reflect_101, image at the top left",
                 R"({"op": "pad_if_needed", "min_size": [360, 500], "position": "top_left"})", Bound::Exact},
                {"pad to 333 x 470, reflect",
                 R"({"op": "pad_if_needed", "min_size": [333, 470], "border": "reflect"})", Bound::Exact},
                {"pad to 350 x 460, wrap, bottom right",
                 R"({"op": "pad_if_needed", "min_size": [350, 460], "border": "wrap", "position": "bottom_right"})",
                 Bound::Exact},
                {"crop to row 350, column 500 padded (reflect_101, the library's centred padding)",
                 R"({"op": "crop", "top_left": [10, 20], "bottom_right": [350, 500], "pad_if_needed": true, "border": "reflect_101"})",
                 Bound::Exact},
                {"box blur 3, then center crop 420 x 400 padded (replicate)",
                 R"({"op": "box_blur", "kernel_size": [3, 3]}, {"op": "center_crop", "size": [420, 400], "pad_if_needed": true, "border": "replicate"})",
                 Bound::Exact},
            });
    cases.insert(
        cases.end(),
        {
            {"longest max size 300", R"({"op": "longest_max_size", "max_size": [300, 300]})", Bound::Linear},
            {"smallest max size 256, then box blur 3",
             R"({"op": "smallest_max_size", "max_size": [256, 256]}, {"op": "box_blur", "kernel_size": [3, 3]})",
             Bound::Linear},
            {"box blur 3, then longest max size 640 (up)",
             R"({"op": "box_blur", "kernel_size": [3, 3]}, {"op": "longest_max_size", "max_size": [640, 640]})",
             Bound::Linear},
            {"random scale by 1.25", R"({"op": "random_scale", "scale_limit": [0.25, 0.25]})", Bound::Linear},
            {"box blur 3, then random scale by 0.6",
             R"({"op": "box_blur", "kernel_size": [3, 3]}, {"op": "random_scale", "scale_limit": [-0.4, -0.4]})",
             Bound::Linear},
        });
    // torchvision's nearest index uses a float32 ratio (its export says so): a row or column apart.
    if (target == ResizeTarget::Albumentations)
        cases.push_back({"random scale by 1.3, nearest",
                         R"({"op": "random_scale", "scale_limit": [0.3, 0.3], "interpolation": "nearest"})",
                         Bound::Nearest});
    if (target != ResizeTarget::Dali)  // its window is drawn: here the whole image (451 x 300)
        cases.push_back(
            {"random sized crop of the whole image, to 200 x 260",
             R"({"op": "random_sized_crop", "min_max_height": [300, 300], "w2h_ratio": 1.504, "size": [200, 260]})",
             Bound::Linear});
    if (target == ResizeTarget::Albumentations)
        cases.push_back(
            {"box blur 3, then the whole image cropped and downscaled",
             R"({"op": "box_blur", "kernel_size": [3, 3]}, {"op": "random_resized_crop", "size": [200, 333], "scale": [1, 1], "ratio": [1.5033333333333334, 1.5033333333333334]})",
             Bound::Linear});
    return cases;
}

/// `a` followed by `b`.
inline std::vector<PinnedCase> joined(std::vector<PinnedCase> a, const std::vector<PinnedCase>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/// The two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical distribution
/// functions of `a` and `b` (ties advance both together, so discrete values compare fairly).
inline double ksStatistic(std::vector<double> a, std::vector<double> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::size_t i = 0, j = 0;
    double d = 0;
    while (i < a.size() && j < b.size()) {
        const double v = std::min(a[i], b[j]);
        while (i < a.size() && a[i] == v) ++i;
        while (j < b.size() && b[j] == v) ++j;
        d = std::max(d, std::abs(double(i) / a.size() - double(j) / b.size()));
    }
    return d;
}

/// The KS statistic two samples of sizes n and m from one distribution exceed with probability
/// 0.001 (c(0.001) = 1.949, the asymptotic Kolmogorov quantile; conservative for discrete values).
inline double ksCritical(std::size_t n, std::size_t m) {
    return 1.949 * std::sqrt(double(n + m) / (double(n) * m));
}

/// AugLab's draws of every op of `preset` for `n` samples of a width x height image: per op, key ->
/// the values drawnValues() reports (ops that did not apply add nothing).
/// The values AugLab draws for each op's preset keys, and for the other keys `theirs` (the library's
/// draws, one object per op) names (a value drawn that no key sets, as random_rotate90's factor).
inline std::vector<std::map<std::string, std::vector<double>>> auglabDraws(
    const Preset& preset, int width, int height, int n, const nlohmann::json* theirs = nullptr) {
    std::vector<std::map<std::string, std::vector<double>>> out(preset.pipeline.size());
    std::vector<std::set<std::string>> keys(preset.pipeline.size());
    for (std::size_t k = 0; k < preset.pipeline.size(); ++k) {
        for (const ParamDesc& pd : preset.pipeline[k].desc().params) keys[k].insert(pd.key);
        if (theirs && k < theirs->size())
            for (const auto& [key, value] : (*theirs)[k].items()) keys[k].insert(key);
    }
    for (int i = 0; i < n; ++i) {
        const Replay r =
            samplePipeline(preset.pipeline, preset.seed, static_cast<std::uint64_t>(i), width, height);
        for (std::size_t k = 0; k < preset.pipeline.size(); ++k)
            for (const std::string& key : keys[k])
                for (double v : drawnValues(r.ops[k], key, width, height)) out[k][key].push_back(v);
    }
    return out;
}

/// Compares AugLab's draws of `preset` (n samples of a width x height image) with a library's,
/// `theirs` being a JSON list with, per op, key -> values. Keys the library does not report are
/// not compared. Logs a line per key; appends those whose KS statistic exceeds the 0.001 level to
/// `failures`; returns how many keys were compared.
inline int compareDraws(const Preset& preset, const nlohmann::json& theirs, int width, int height, int n,
                        QStringList& failures) {
    const auto ours = auglabDraws(preset, width, height, n, &theirs);
    if (theirs.size() != ours.size()) {
        failures
            << QString("the library reported %1 transforms for %2 ops").arg(theirs.size()).arg(ours.size());
        return 0;
    }
    int compared = 0;
    for (std::size_t k = 0; k < ours.size(); ++k) {
        for (const auto& [key, values] : ours[k]) {
            if (!theirs[k].contains(key)) continue;
            const auto library = theirs[k][key].get<std::vector<double>>();
            const double d = ksStatistic(values, library), limit = ksCritical(values.size(), library.size());
            const QString line = QString("pipeline[%1] %2 %3: KS %4 (limit %5), %6 vs %7 values")
                                     .arg(k)
                                     .arg(preset.pipeline[k].name().c_str(), key.c_str())
                                     .arg(d, 0, 'f', 4)
                                     .arg(limit, 0, 'f', 4)
                                     .arg(values.size())
                                     .arg(library.size());
            qInfo("%s", qPrintable(line));
            ++compared;
            if (d > limit) failures << line;
        }
    }
    return compared;
}

/// For each perspective preset of `ops` (one pipeline entry each) and samples 0 and 1: exports it
/// with `exporter`, saves the replay `auglab-cli apply` draws, runs `python checkerAndMode EXPORT
/// INPUT REPLAY OUTPUT` (the export's warp fed with the replay's corners) on chelsea.png and compares
/// with apply's pixels: SPEC §2's linear bounds, or for nearest 0.5% of the pixels. Returns the lines
/// outside them (or the checker's error).
inline QStringList perspectiveOutsideBounds(ExportResult (*exporter)(const Preset&), const QString& python,
                                            const QStringList& checkerAndMode, const QString& dir,
                                            const std::vector<const char*>& ops) {
    const std::string input = samplePath("chelsea.png");
    SourceLevels source(loadImage(input).image);
    CpuBackend cpu(2);
    // Every sample's export, AugLab's output and replay first; then one run of the checker for all.
    struct Sample {
        const char* op;
        std::uint64_t index;
        QString base;
        Image ours;
    };
    std::vector<Sample> samples;
    QStringList args = checkerAndMode;
    for (const char* op : ops) {
        for (std::uint64_t index = 0; index < 2; ++index) {
            const Preset preset = presetOf(op);
            const QString base = dir + "/perspective-" + QString::number(samples.size());
            writeFileAtomically((base + ".py").toStdString(), exporter(preset).text);
            samples.push_back(
                {op, index, base, renderSample(preset.pipeline, source, preset.seed, index, cpu)});
            saveReplay((base + ".replay.json").toStdString(),
                       samplePipeline(preset.pipeline, preset.seed, index, source.width(), source.height()));
            args << base + ".py" << QString::fromStdString(input) << base + ".replay.json"
                 << base + "-out.png";
        }
    }
    const PythonRun r = runProcess(python, args);
    if (r.code != 0) return {"the checker failed: " + r.out + r.err.right(3000)};
    QStringList failures;
    for (const Sample& s : samples) {
        const Diff d = compare(s.ours, loadImage((s.base + "-out.png").toStdString()).image);
        const QString line =
            QString("%1, sample %2: %3").arg(s.op).arg(s.index).arg(QString::fromUtf8(d.describe()));
        qInfo("%s", qPrintable(line));
        const bool nearest = std::string(s.op).find("nearest") != std::string::npos;
        if (!(nearest ? d.pixelFractionDiffering() <= 0.005 : d.withinLinearBounds())) failures << line;
    }
    return failures;
}

/// Exports every preset of presetsToRun() with `exporter` into `dir`, runs `python checker [options]
/// EXPORT INPUT OUTPUT ...` once for all of them on a 512 x 512 photo, and checks that each output
/// is an RGB image of the input's size (of any size where an op that sets the frame may run). Returns
/// what went wrong, or nothing.
inline QString everyPresetRuns(ExportResult (*exporter)(const Preset&), const QString& python,
                               const QStringList& checkerAndOptions, const QString& dir) {
    const QString input = QString::fromStdString(samplePath("astronaut.png"));
    const auto presets = presetsToRun();
    QDir().mkpath(dir);
    QStringList args = checkerAndOptions;
    const auto base = [&](const std::string& name) { return dir + "/run-" + QString::fromStdString(name); };
    for (const auto& [name, preset] : presets) {
        writeFileAtomically((base(name) + ".py").toStdString(), exporter(preset).text);
        args << base(name) + ".py" << input << base(name) + "-out.png";
    }
    const PythonRun r = runProcess(python, args);
    if (r.code != 0) {
        QString message = r.out + r.err.right(3000);
        // The preset whose file failed, to reproduce it.
        for (const auto& [name, preset] : presets)
            if (r.err.contains(base(name) + ".py"))
                message += "\n" + QString::fromStdString(name + ":\n" + serializePreset(preset));
        return message;
    }
    qInfo("%s", qPrintable(r.out.trimmed()));
    for (const auto& [name, preset] : presets) {
        const Image out = loadImage((base(name) + "-out.png").toStdString()).image;
        const bool crops = std::any_of(preset.pipeline.begin(), preset.pipeline.end(),
                                       [](const OpConfig& op) { return op.enabled && setsFrame(op); });
        if (out.channels != 3 || out.width < 1 || (!crops && (out.width != 512 || out.height != 512)))
            return QString("%1: %2 x %3 x %4")
                .arg(name.c_str())
                .arg(out.width)
                .arg(out.height)
                .arg(out.channels);
    }
    return {};
}

/// Two photos of the same size written to `dir` (a batch for the mixing exports), their paths.
inline std::pair<QString, QString> mixBatchImages(const QString& dir, int width, int height) {
    const QString a = dir + "/mix-a.png", b = dir + "/mix-b.png";
    saveImage(a.toStdString(), photoCrop("chelsea.png", width, height, 3));
    saveImage(b.toStdString(), photoCrop("coffee.png", width, height, 3));
    return {a, b};
}

/// AugLab's draws of the mixing op that is `preset`'s only op, for n samples of a width x height
/// image with one partner: its lambda, or its effective lambda (the label weight after clipping).
inline std::vector<double> mixWeights(const Preset& preset, std::uint64_t seed, int n, int width, int height,
                                      bool effective) {
    std::vector<double> w;
    for (int i = 0; i < n; ++i) {
        const auto& m = std::get<MixParams>(
            samplePipeline(preset.pipeline, seed, std::uint64_t(i), width, height, PartnerPool{2, 0})
                .ops[0]
                .params);
        w.push_back(effective ? m.effectiveLambda : m.lambda);
    }
    return w;
}

}  // namespace auglab::testing
