#include "albumentations_transform_reader.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>

#include "albumentations_args.h"

namespace auglab::exporting {

namespace {

void readAffine(TransformArgs& a, OpConfig& op) {
    op.set("rotate_deg", a.clamp(a.get("rotate"), fixedOrPair(a.get("rotate")), -180, 180));
    const JsonReader scale = a.get("scale");
    auto [sx, sy] = xyRanges(scale, 1.0);
    const bool keepRatio = a.get("keep_ratio").boolean();
    op.set("keep_ratio", keepRatio);
    if (keepRatio && sx != sy)
        a.warn(scale, "keep_ratio with different x and y ranges (Albumentations refuses this): y uses the x range.");
    if (keepRatio) sy = sx;
    op.set("scale_x", a.clamp(scale, sx, 0.05, 10));
    op.set("scale_y", a.clamp(scale, sy, 0.05, 10));
    const JsonReader shear = a.get("shear");
    const auto [shx, shy] = xyRanges(shear, 0.0);
    op.set("shear_x_deg", a.clamp(shear, shx, -80, 80));
    op.set("shear_y_deg", a.clamp(shear, shy, -80, 80));

    const std::optional<JsonReader> percent = a.find({"translate_percent"});
    const std::optional<JsonReader> px = a.find({"translate_px"});
    Range tx{0, 0}, ty{0, 0};
    if (percent && !percent->json().is_null()) {
        std::tie(tx, ty) = xyRanges(*percent, 0.0);
        op.set("translate_x_frac", a.clamp(*percent, tx, -1, 1));
        op.set("translate_y_frac", a.clamp(*percent, ty, -1, 1));
    } else {
        op.set("translate_x_frac", Range{0, 0});
        op.set("translate_y_frac", Range{0, 0});
    }
    if (px && !px->json().is_null()) {
        const auto [pxx, pxy] = xyRanges(*px, 0.0);
        if (pxx != Range{0, 0} || pxy != Range{0, 0})
            a.warn(*px, "shifts in pixels cannot be expressed (AugLab shifts by a fraction of the image size): "
                        "ignored, no shift.");
    }
    if (!percent && !px) a.noteDefault("translate_percent", "no shift");

    const JsonReader interp = a.get("interpolation");
    op.set("interpolation", std::string(interpolationName(interp, a)));
    const JsonReader border = a.get("border_mode", {"mode"});
    op.set("border", std::string(borderName(border, a)));
    op.set("fill", readFill(a.get("fill", {"cval"}), a, false));
    if (a.get("fit_output").boolean())
        a.warn(a.get("fit_output"), "fit_output changes the output size; AugLab keeps it: ignored.");
    if (a.get("balanced_scale").boolean())
        a.warn(a.get("balanced_scale"), "balanced_scale (half of the draws below 1, half above) cannot be "
                                        "expressed: scale is drawn uniformly from its range.");
    a.maskOnly("fill_mask", {"cval_mask"});
    a.maskOnly("mask_interpolation");
    a.maskOnly("rotate_method");
}

void readCoarseDropout(TransformArgs& a, OpConfig& op) {
    // 1.4.x files may still use max_holes, min_height, ..., fill_value (removed in 2.0).
    const std::optional<JsonReader> maxHoles = a.find({"max_holes"});
    Range holes;
    std::optional<JsonReader> h, w;
    if (maxHoles) {
        const double n = maxHoles->numberIn(0, 1000);
        const std::optional<JsonReader> minHoles = a.find({"min_holes"});
        holes = {minHoles && !minHoles->json().is_null() ? minHoles->numberIn(0, n) : n, n};
    } else {
        holes = pair(a.get("num_holes_range"));
    }
    const Range wholeHoles{std::trunc(holes.min), std::trunc(holes.max)};
    op.set("holes", a.clamp(maxHoles ? *maxHoles : a.get("num_holes_range"), wholeHoles, 0, 1000));

    Range hr, wr;
    std::optional<JsonReader> where;
    if (const std::optional<JsonReader> maxH = a.find({"max_height"})) {
        const std::optional<JsonReader> minH = a.find({"min_height"});
        const std::optional<JsonReader> maxW = a.find({"max_width"});
        const std::optional<JsonReader> minW = a.find({"min_width"});
        const double mh = maxH->number(), mw = maxW ? maxW->number() : mh;
        hr = {minH && !minH->json().is_null() ? minH->number() : mh, mh};
        wr = {minW && !minW->json().is_null() ? minW->number() : mw, mw};
        where = maxH;
    } else {
        where = a.get("hole_height_range");
        hr = pair(*where);
        wr = pair(a.get("hole_width_range"));
    }
    // Albumentations: an upper height end >= 1 means pixels for both ranges (int()), else fractions.
    if (hr.max >= 1) {
        if (wr.max < 1) a.warn(*where, "height in pixels but width as a fraction: Albumentations then makes holes "
                                      "0 pixels wide; read as width 1 pixel.");
        const auto px = [&](Range r) {
            Range out{std::max(1.0, std::trunc(r.min)), std::max(1.0, std::trunc(r.max))};
            if (out != r) a.warn(*where, "hole size [" + formatNumber(r.min) + ", " + formatNumber(r.max) +
                                        "] in pixels read as [" + formatNumber(out.min) + ", " + formatNumber(out.max) + "].");
            return out;
        };
        op.set("hole_height_px", px(hr));
        op.set("hole_width_px", px(wr));
    } else {
        // AugLab's export writes an upper end of 1.0 as the largest double below 1.
        const auto frac = [](Range r) {
            if (r.max >= 1.0 - 1e-15) r.max = 1.0;
            return r;
        };
        op.set("hole_height_frac", a.clamp(*where, frac(hr), 0, 1));
        op.set("hole_width_frac", a.clamp(*where, frac(wr), 0, 1));
    }
    op.set("fill", readFill(a.get("fill", {"fill_value"}), a, true));
    a.maskOnly("fill_mask", {"mask_fill_value"});
}

void readGridDropout(TransformArgs& a, OpConfig& op) {
    const JsonReader ratio = a.get("ratio");
    const double r = ratio.number();
    if (!(r > 0 && r <= 1)) a.fail(ratio, "ratio must be in (0, 1]");
    if (r < 0.01) a.warn(ratio, "ratio " + formatNumber(r) + " read as 0.01, AugLab's smallest.");
    op.set("ratio", std::max(r, 0.01));
    const JsonReader unit = a.get("unit_size_range");
    if (!unit.json().is_null()) {
        // numpy's integers(low, high) leaves `high` out (1.4.24, 2.0.x and AlbumentationsX alike).
        const Range u = pair(unit);
        Range inclusive{std::trunc(u.min), std::trunc(u.max) - 1};
        if (inclusive.max < inclusive.min) {
            a.warn(unit, "an empty range (Albumentations raises ValueError on it): read as [" +
                             formatNumber(inclusive.min) + ", " + formatNumber(inclusive.min) + "].");
            inclusive.max = inclusive.min;
        }
        op.set("unit_size_px", a.clamp(unit, inclusive, 2, 100000));
    }
    if (const std::optional<JsonReader> n = a.find({"holes_number_xy"}); n && !n->json().is_null())
        a.warn(*n, "a fixed number of grid cells cannot be expressed: the unit comes from unit_size_range or is "
                   "max(2, side // 10).");
    const bool randomOffset = a.get("random_offset").boolean();
    op.set("random_offset", randomOffset);
    const JsonReader shift = a.get("shift_xy");
    if (!randomOffset && shift.arraySize() == 2 && (shift.element(0).number() != 0 || shift.element(1).number() != 0))
        a.warn(shift, "a shift of the holes inside their cells cannot be expressed: holes at the cells' corners.");
    op.set("fill", readFill(a.get("fill"), a, true));
    a.maskOnly("fill_mask");
}

void readRandomResizedCrop(TransformArgs& a, OpConfig& op) {
    // 2.0 and AlbumentationsX: size [height, width]; 1.4.x files may still carry height and width.
    const std::optional<JsonReader> size = a.find({"size"});
    int h = 0, w = 0;
    if (size && !size->json().is_null()) {
        if (size->json().is_number()) {
            h = w = static_cast<int>(size->integer(1, 16384));
        } else {
            if (size->arraySize() != 2) a.fail(*size, "expected [height, width]");
            h = static_cast<int>(size->element(0).integer(1, 16384));
            w = static_cast<int>(size->element(1).integer(1, 16384));
        }
    } else {
        const std::optional<JsonReader> height = a.find({"height"}), width = a.find({"width"});
        if (!height || !width) a.fail(a.get("p"), "RandomResizedCrop without size (or height and width)");
        h = static_cast<int>(height->integer(1, 16384));
        w = static_cast<int>(width->integer(1, 16384));
    }
    op.set("size", Size2{h, w});
    op.set("scale", a.clamp(a.get("scale"), pair(a.get("scale")), 0, 1));
    const JsonReader ratio = a.get("ratio");
    const Range r = pair(ratio);
    if (r.min <= 0) a.fail(ratio, "ratio must be positive");
    op.set("ratio", a.clamp(ratio, r, 0.1, 10));
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    if (const std::optional<JsonReader> area = a.find({"area_for_downscale"}); area && !area->json().is_null())
        a.warn(*area, "INTER_AREA for downscaled crops cannot be expressed: resized with the interpolation given.");
    a.maskOnly("mask_interpolation");
}

void readGaussianBlur(TransformArgs& a, OpConfig& op) {
    const JsonReader blur = a.get("blur_limit");
    const JsonReader sigmaReader = a.get("sigma_limit");
    const Range kernel = lowZeroRange(blur);
    const Range sigma = lowZeroRange(sigmaReader);
    const auto opencvSigma = [](double k) { return 0.3 * ((k - 1) * 0.5 - 1) + 0.8; };  // cv::getGaussianKernel
    if (sigma == Range{0, 0} && kernel.max >= 3) {
        // 1.4.x default: OpenCV derives sigma from the random kernel size.
        const Range derived{opencvSigma(std::max(3.0, kernel.min)), opencvSigma(kernel.max)};
        a.warn(sigmaReader, "sigma 0 (derived by OpenCV from kernel sizes " + formatNumber(kernel.min) + "-" +
                                formatNumber(kernel.max) + "): read as sigma [" + formatNumber(derived.min) + ", " +
                                formatNumber(derived.max) + "] with AugLab's kernel size int(sigma*3.5)*2+1.");
        op.set("sigma_px", derived);
        return;
    }
    op.set("sigma_px", a.clamp(sigmaReader, sigma, 0, 50));
    if (kernel != Range{0, 0})
        a.warn(blur, "kernel sizes from blur_limit cannot be expressed: AugLab's kernel size is int(sigma*3.5)*2+1.");
    else if (a.version().before2())
        a.warn(blur, "Albumentations 1.x blurred with cv2.GaussianBlur, whose kernel size for a given sigma differs "
                     "from AugLab's (and 2.0's) int(sigma*3.5)*2+1.");
}

void readGaussNoise(TransformArgs& a, OpConfig& op) {
    if (const std::optional<JsonReader> var = a.find({"var_limit"})) {
        // 1.4.x: a variance in pixel units squared, drawn uniformly; AugLab draws the deviation uniformly.
        const Range v = var->json().is_number() ? Range{0, std::abs(var->number())} : pair(*var);
        const Range std{std::sqrt(std::max(0.0, v.min)) / 255, std::sqrt(std::max(0.0, v.max)) / 255};
        a.warn(*var, "variance range [" + formatNumber(v.min) + ", " + formatNumber(v.max) + "] read as std_frac [" +
                         formatNumber(std.min) + ", " + formatNumber(std.max) +
                         "]: the same bounds, but uniform in the deviation rather than in the variance.");
        op.set("std_frac", a.clamp(*var, std, 0, 1));
        const std::optional<JsonReader> mean = a.find({"mean"});
        const double m = mean ? mean->number() / 255 : 0.0;
        op.set("mean_frac", Range{m, m});
    } else {
        op.set("std_frac", a.clamp(a.get("std_range"), pair(a.get("std_range")), 0, 1));
        op.set("mean_frac", a.clamp(a.get("mean_range"), pair(a.get("mean_range")), -1, 1));
    }
    op.set("per_channel", a.get("per_channel").boolean());
    const JsonReader factor = a.get("noise_scale_factor");
    if (factor.number() != 1.0)
        a.warn(factor, "noise drawn at a reduced resolution and resized cannot be expressed: full-resolution noise.");
}

}  // namespace

std::optional<OpConfig> readTransform(const JsonReader& t, const std::string& cls, const LibraryVersion& version,
                                      std::vector<std::string>& warnings) {
    static const std::pair<const char*, const char*> kOps[] = {
        {"Affine", "affine"},
        {"HorizontalFlip", "horizontal_flip"},
        {"VerticalFlip", "vertical_flip"},
        {"RandomResizedCrop", "random_resized_crop"},
        {"CoarseDropout", "coarse_dropout"},
        {"GridDropout", "grid_dropout"},
        {"RandomBrightnessContrast", "brightness_contrast"},
        {"HueSaturationValue", "hue_saturation_value"},
        {"GaussianBlur", "gaussian_blur"},
        {"GaussNoise", "gauss_noise"},
        {"ToGray", "to_gray"},
    };
    const char* opName = nullptr;
    for (const auto& [c, o] : kOps)
        if (cls == c) opName = o;
    if (!opName) {
        warnings.push_back(t.path() + ": " + cls + " has no AugLab op: skipped.");
        return std::nullopt;
    }
    TransformArgs a(t, cls, version, warnings);
    OpConfig op = OpConfig::withDefaults(opName);
    const JsonReader p = a.get("p");
    op.p = p.number();
    if (op.p < 0 || op.p > 1) a.fail(p, "p must be in [0, 1]");
    switch (op.id()) {
        case OpId::Affine: readAffine(a, op); break;
        case OpId::HorizontalFlip:
        case OpId::VerticalFlip: break;
        case OpId::RandomResizedCrop: readRandomResizedCrop(a, op); break;
        case OpId::DeotteAffine: break;  // not an Albumentations class: never read from a transform
        case OpId::CoarseDropout: readCoarseDropout(a, op); break;
        case OpId::GridDropout: readGridDropout(a, op); break;
        case OpId::BrightnessContrast:
            op.set("brightness", a.clamp(a.get("brightness_limit"), symmetricRange(a.get("brightness_limit")), -1, 1));
            op.set("contrast", a.clamp(a.get("contrast_limit"), symmetricRange(a.get("contrast_limit")), -1, 5));
            op.set("brightness_by_max", a.get("brightness_by_max").boolean());
            if (a.get("ensure_safe_range").boolean())
                a.warn(a.get("ensure_safe_range"), "ensure_safe_range (limiting the drawn values so that no pixel "
                                                   "clips) cannot be expressed: ignored.");
            break;
        case OpId::HueSaturationValue: {
            const Range hue = symmetricRange(a.get("hue_shift_limit"));  // OpenCV units of two degrees
            op.set("hue_shift_deg", a.clamp(a.get("hue_shift_limit"), Range{hue.min * 2, hue.max * 2}, -180, 180));
            op.set("sat_shift", a.clamp(a.get("sat_shift_limit"), symmetricRange(a.get("sat_shift_limit")), -255, 255));
            op.set("val_shift", a.clamp(a.get("val_shift_limit"), symmetricRange(a.get("val_shift_limit")), -255, 255));
            break;
        }
        case OpId::GaussianBlur: readGaussianBlur(a, op); break;
        case OpId::GaussNoise: readGaussNoise(a, op); break;
        case OpId::ToGray: {
            if (const std::optional<JsonReader> n = a.find({"num_output_channels"}); n && n->number() != 3)
                a.warn(*n, "AugLab writes gray to all three channels (num_output_channels 3).");
            if (const std::optional<JsonReader> m = a.find({"method"}); m && m->string() != "weighted_average")
                a.warn(*m, "AugLab's gray is \"weighted_average\" (OpenCV RGB2GRAY).");
            break;
        }
    }
    a.finish();
    return op;
}

}  // namespace auglab::exporting
