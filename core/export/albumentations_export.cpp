// Albumentations 2.0.x / AlbumentationsX JSON for A.load(). Every argument is written, with the
// names and value forms A.save of Albumentations 2.0.8 writes (shared/reference/albumentations), so
// the file means the same whatever a later release changes in its defaults.
//
// Meanings checked against the Albumentations 2.0.8 source:
// - Affine builds the same matrix as AugLab (geometry.h: shift_center @ translate @ shear @ rotate @
//   scale @ shift_topleft, centre (W/2 - 0.5, H/2 - 0.5), shear angles negated, translate_percent
//   truncated with int()), so rotate/shear/scale/translate_percent are written unchanged.
//   Its keep_ratio=True draws the x scale and uses it for y, and refuses x and y ranges that
//   differ: AugLab's keep_ratio (scale_y unused) is written as keep_ratio=True with y = x.
// - HueSaturationValue adds hue_shift to OpenCV's 8-bit hue (0..179, two degrees a unit) with a
//   floored modulo and truncation (np.mod(lut + shift, 180).astype(uint8)): hue_shift_limit is in
//   OpenCV units, so AugLab's degrees are halved. Saturation and value shifts are truncated with
//   int() and added with clipping, grey pixels (S = 0) keep S = 0: the same as AugLab.
// - GaussianBlur with blur_limit (0, 0) takes the kernel size int(sigma * 3.5) * 2 + 1 and filters
//   with cv2.sepFilter2D (border reflect_101), as AugLab does.
// - CoarseDropout treats hole ranges whose upper end is >= 1 as pixels (randint, inclusive) and
//   others as fractions (truncated), and needs at least one hole.
// - GridDropout draws unit_size_range with numpy's integers (upper end excluded) and shuffles
//   its rows and columns of uneven length; the holes are AugLab's grid_dropout.
// - ToGray "weighted_average" is cv2.cvtColor(RGB2GRAY), AugLab's to_gray.

#include <cmath>

#include "albumentations_common.h"
#include "export_common.h"
#include "json_reader.h"
#include "preset.h"

namespace auglab::exporting {

using json = nlohmann::ordered_json;

int cvInterpolation(const std::string& name) { return name == "nearest" ? 0 : 1; }

int cvBorder(const std::string& name) {
    if (name == "replicate") return 1;
    if (name == "reflect") return 2;
    if (name == "wrap") return 3;
    if (name == "reflect_101") return 4;
    return 0;
}

namespace {

json pair(const Range& r) { return json::array({r.min, r.max}); }
json intPair(const Range& r) { return json::array({std::llround(r.min), std::llround(r.max)}); }
json xy(const Range& x, const Range& y) { return json{{"x", pair(x)}, {"y", pair(y)}}; }

/// A constant fill as Albumentations stores it: one float for a grey, else three floats.
json fillValue(const Fill& f) {
    if (isGray(f)) return static_cast<double>(f.rgb[0]);
    return json::array({static_cast<double>(f.rgb[0]), static_cast<double>(f.rgb[1]), static_cast<double>(f.rgb[2])});
}

json start(const char* className, double p) { return json{{"__class_fullname__", className}, {"p", p}}; }

json affine(const ExportedOp& e, AlbumentationsFlavour flavour, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    const bool keepRatio = op.flag("keep_ratio");
    const Range sx = op.range("scale_x");
    Range sy = op.range("scale_y");
    if (keepRatio && sy != sx) {
        warnings.push_back(e.label() + ": scale_y [" + formatNumber(sy.min) + ", " + formatNumber(sy.max) +
                           "] is unused with keep_ratio and is written as scale_x (Albumentations needs equal "
                           "ranges); importing the file gives scale_y = scale_x.");
    }
    if (keepRatio) sy = sx;
    json j = start("Affine", op.p);
    j["balanced_scale"] = false;
    j["border_mode"] = cvBorder(op.choice("border"));
    j["fill"] = fillValue(op.fill("fill"));
    j["fill_mask"] = flavour == AlbumentationsFlavour::AlbumentationsX ? json(nullptr) : json(0.0);
    j["fit_output"] = false;
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["keep_ratio"] = keepRatio;
    j["mask_interpolation"] = 0;
    j["rotate"] = pair(op.range("rotate_deg"));
    j["rotate_method"] = "largest_box";
    j["scale"] = xy(sx, sy);
    j["shear"] = xy(op.range("shear_x_deg"), op.range("shear_y_deg"));
    j["translate_percent"] = xy(op.range("translate_x_frac"), op.range("translate_y_frac"));
    j["translate_px"] = nullptr;
    return j;
}

/// A fractional hole range. Albumentations reads an upper end of exactly 1.0 as pixels, so 1.0 is
/// written as the largest double below it (the drawn sizes are the same: trunc(H * u) < H).
json fractionPair(const ExportedOp& e, const char* key, Range r, std::vector<std::string>& warnings) {
    if (r.max >= 1.0) {
        warnings.push_back(e.label() + ": " + key + " ends at 1.0, which Albumentations would read as 1 pixel; "
                           "written as 0.9999999999999999 (same hole sizes; the importer reads it back as 1.0).");
        r.max = std::nextafter(1.0, 0.0);
        r.min = std::min(r.min, r.max);
    }
    return pair(r);
}

json coarseDropout(const ExportedOp& e, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    Range holes = op.range("holes");
    double p = op.p;
    if (holes.min < 1) {
        // Albumentations draws at least one hole. randint(0, n) with probability p is the same
        // distribution as randint(1, n) with probability p * n / (n + 1).
        const double n = holes.max;
        p = n > 0 ? op.p * n / (n + 1) : 0.0;
        holes = {1, std::max(1.0, n)};
        warnings.push_back(e.label() + ": holes start at 0 and Albumentations draws at least 1: written as holes [1, " +
                           formatNumber(holes.max) + "] with p = " + formatNumber(p) +
                           " (the same distribution; importing gives these values).");
    }
    json j = start("CoarseDropout", p);
    const Fill fill = op.fill("fill");
    if (fill.mode == Fill::Mode::Random) j["fill"] = "random";
    else if (fill.mode == Fill::Mode::RandomUniform) j["fill"] = "random_uniform";
    else j["fill"] = fillValue(fill);
    j["fill_mask"] = nullptr;
    if (op.has("hole_height_px")) {
        j["hole_height_range"] = intPair(op.range("hole_height_px"));
        j["hole_width_range"] = intPair(op.range("hole_width_px"));
        const Range hr = op.range("hole_height_px"), wr = op.range("hole_width_px");
        warnings.push_back(e.label() + ": holes in pixels: on an image smaller than the maximum (" +
                           formatNumber(wr.max) + "x" + formatNumber(hr.max) + ") sizes are drawn up to its side, and "
                           "an image smaller than the minimum (" + formatNumber(wr.min) + "x" + formatNumber(hr.min) +
                           ") makes Albumentations raise ValueError, as AugLab refuses it.");
    } else {
        j["hole_height_range"] = fractionPair(e, "hole_height_frac", op.range("hole_height_frac"), warnings);
        j["hole_width_range"] = fractionPair(e, "hole_width_frac", op.range("hole_width_frac"), warnings);
    }
    j["num_holes_range"] = intPair(holes);
    return j;
}

json randomResizedCrop(const ExportedOp& e, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    const Size2 size = op.size("size");
    if (op.p < 1)
        warnings.push_back(e.label() + ": p = " + formatNumber(op.p) + ": the images it skips keep their own size, so a "
                           "batch mixes sizes (as in AugLab's preview); training code usually wants p = 1.");
    warnings.push_back(e.label() + ": Albumentations crops, then resizes with cv2.resize; AugLab resamples the crop "
                       "once with the warp's 1/32-pixel weights (a level or two apart at edges).");
    json j = start("RandomResizedCrop", op.p);
    j["area_for_downscale"] = nullptr;
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["mask_interpolation"] = 0;
    j["ratio"] = pair(op.range("ratio"));
    j["scale"] = pair(op.range("scale"));
    j["size"] = json::array({size.height, size.width});
    return j;
}

json gridDropout(const ExportedOp& e, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    json j = start("GridDropout", op.p);
    const Fill fill = op.fill("fill");
    if (fill.mode == Fill::Mode::Random) j["fill"] = "random";
    else if (fill.mode == Fill::Mode::RandomUniform) j["fill"] = "random_uniform";
    else j["fill"] = fillValue(fill);
    j["fill_mask"] = nullptr;
    j["holes_number_xy"] = nullptr;
    j["random_offset"] = op.flag("random_offset");
    j["ratio"] = op.number("ratio");
    j["shift_xy"] = json::array({0, 0});
    if (op.has("unit_size_px")) {
        // numpy's integers(low, high) leaves `high` out: [a, b + 1) draws AugLab's inclusive [a, b].
        const Range u = op.range("unit_size_px");
        j["unit_size_range"] = json::array({std::llround(u.min), std::llround(u.max) + 1});
        warnings.push_back(e.label() + ": unit_size_px [" + formatNumber(u.min) + ", " + formatNumber(u.max) +
                           "] is written as unit_size_range [" + formatNumber(u.min) + ", " +
                           formatNumber(u.max + 1) + "] (Albumentations leaves the upper end out); it raises "
                           "ValueError on images whose shorter side is below " + formatNumber(u.max + 1) +
                           ", as AugLab refuses them.");
    } else {
        j["unit_size_range"] = nullptr;
    }
    return j;
}

json transformFor(const ExportedOp& e, AlbumentationsFlavour flavour, std::vector<std::string>& warnings) {
    const OpConfig& op = *e.op;
    switch (op.id()) {
        case OpId::Affine: return affine(e, flavour, warnings);
        case OpId::HorizontalFlip: return start("HorizontalFlip", op.p);
        case OpId::VerticalFlip: return start("VerticalFlip", op.p);
        case OpId::RandomResizedCrop: return randomResizedCrop(e, warnings);
        case OpId::CoarseDropout: return coarseDropout(e, warnings);
        case OpId::GridDropout: return gridDropout(e, warnings);
        case OpId::BrightnessContrast: {
            json j = start("RandomBrightnessContrast", op.p);
            j["brightness_by_max"] = op.flag("brightness_by_max");
            j["brightness_limit"] = pair(op.range("brightness"));
            j["contrast_limit"] = pair(op.range("contrast"));
            j["ensure_safe_range"] = false;
            return j;
        }
        case OpId::HueSaturationValue: {
            const Range hue = op.range("hue_shift_deg");
            json j = start("HueSaturationValue", op.p);
            j["hue_shift_limit"] = pair({hue.min / 2, hue.max / 2});  // OpenCV units of two degrees
            j["sat_shift_limit"] = pair(op.range("sat_shift"));
            j["val_shift_limit"] = pair(op.range("val_shift"));
            return j;
        }
        case OpId::GaussianBlur: {
            const Range sigma = op.range("sigma_px");
            if (sigma.min == 0)
                warnings.push_back(e.label() + ": sigma_px starts at 0; Albumentations divides by sigma, so a draw of "
                                   "exactly 0 gives an invalid kernel (AugLab leaves the image as it is).");
            json j = start("GaussianBlur", op.p);
            j["blur_limit"] = json::array({0, 0});  // kernel size from sigma: int(sigma * 3.5) * 2 + 1
            j["sigma_limit"] = pair(sigma);
            return j;
        }
        case OpId::GaussNoise: {
            warnings.push_back(e.label() + ": Albumentations 2.0 adds the noise as a float and truncates the sum, "
                               "AugLab truncates the noise first; negative noise comes out one level darker there "
                               "(about 0.25 levels on average).");
            json j = start("GaussNoise", op.p);
            j["mean_range"] = pair(op.range("mean_frac"));
            j["noise_scale_factor"] = 1.0;
            j["per_channel"] = op.flag("per_channel");
            j["std_range"] = pair(op.range("std_frac"));
            return j;
        }
        case OpId::ToGray: {
            json j = start("ToGray", op.p);
            j["method"] = "weighted_average";
            j["num_output_channels"] = 3;
            return j;
        }
        case OpId::DeotteAffine: break;  // no transform: kept in the "auglab" section (see below)
    }
    return json();
}

}  // namespace

nlohmann::ordered_json albumentationsDocument(const Preset& preset, AlbumentationsFlavour flavour,
                                              std::vector<std::string>& warnings) {
    const bool ax = flavour == AlbumentationsFlavour::AlbumentationsX;
    json compose = start("Compose", 1.0);
    compose["transforms"] = json::array();
    json disabled = json::array();
    for (std::size_t i = 0; i < preset.pipeline.size(); ++i) {
        const ExportedOp e{i, &preset.pipeline[i]};
        if (e.op->enabled && e.op->id() == OpId::DeotteAffine) {
            warnings.push_back(e.label() + ": Albumentations has no transform for Chris Deotte's notebook (normal "
                               "draws, truncated indices): left out of the Compose and kept in the \"auglab\" "
                               "section, so importing the file restores it; the tf-deotte export has it.");
            disabled.push_back(json{{"position", i}, {"op", opConfigToJson(*e.op)}});
        } else if (e.op->enabled) {
            compose["transforms"].push_back(transformFor(e, flavour, warnings));
        } else {
            warnings.push_back(e.label() + " is disabled (never runs): left out of the Compose and kept in the "
                               "\"auglab\" section, so importing the file restores it.");
            disabled.push_back(json{{"position", i}, {"op", opConfigToJson(*e.op)}});
        }
    }
    compose["bbox_params"] = nullptr;
    compose["keypoint_params"] = nullptr;
    compose["additional_targets"] = json::object();
    compose["is_check_shapes"] = true;
    if (ax) compose["seed"] = nullptr;

    json doc;
    doc["__version__"] = ax ? "2.0.16" : "2.0.8";
    doc["transform"] = compose;
    doc[kMetadataKey] = json{{"format", "auglab-albumentations"},
                             {"version", 1},
                             {"name", preset.name},
                             {"description", preset.description},
                             {"seed", preset.seed},
                             {"disabled_ops", disabled},
                             {"warnings", warnings}};
    return doc;
}

}  // namespace auglab::exporting

namespace auglab {

ExportResult exportAlbumentations(const Preset& preset) {
    ExportResult r;
    r.text = exporting::albumentationsDocument(preset, exporting::AlbumentationsFlavour::Albumentations, r.warnings)
                 .dump(2) + "\n";
    return r;
}

ExportResult exportAlbumentationsX(const Preset& preset) {
    ExportResult r;
    r.text = exporting::albumentationsDocument(preset, exporting::AlbumentationsFlavour::AlbumentationsX, r.warnings)
                 .dump(2) + "\n";
    return r;
}

}  // namespace auglab
