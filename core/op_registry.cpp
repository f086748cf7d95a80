#include "op_registry.h"

#include <stdexcept>

namespace auglab {

namespace {

ParamDesc floatRange(std::string key, std::string label, std::string unit, double lower, double upper,
                     Range def, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.unit = std::move(unit);
    d.kind = ParamKind::FloatRange;
    d.lower = lower;
    d.upper = upper;
    d.defaultValue = def;
    d.help = std::move(help);
    return d;
}

ParamDesc intRange(std::string key, std::string label, std::string unit, double lower, double upper, Range def,
                   std::string help) {
    ParamDesc d = floatRange(std::move(key), std::move(label), std::move(unit), lower, upper, def, std::move(help));
    d.kind = ParamKind::IntRange;
    return d;
}

ParamDesc number(std::string key, std::string label, std::string unit, double lower, double upper, double def,
                 std::string help) {
    ParamDesc d = floatRange(std::move(key), std::move(label), std::move(unit), lower, upper, {}, std::move(help));
    d.kind = ParamKind::Float;
    d.defaultValue = def;
    return d;
}

ParamDesc sizeParam(std::string key, std::string label, double lower, double upper, Size2 def, std::string help) {
    ParamDesc d = floatRange(std::move(key), std::move(label), "px (height, width)", lower, upper, {}, std::move(help));
    d.kind = ParamKind::Size;
    d.defaultValue = def;
    return d;
}

ParamDesc boolean(std::string key, std::string label, bool def, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.kind = ParamKind::Bool;
    d.defaultValue = def;
    d.help = std::move(help);
    return d;
}

ParamDesc choice(std::string key, std::string label, std::vector<std::string> choices, std::string def,
                 std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = std::move(label);
    d.kind = ParamKind::Choice;
    d.choices = std::move(choices);
    d.defaultValue = std::move(def);
    d.help = std::move(help);
    return d;
}

ParamDesc fill(std::string key, bool allowsRandom, std::string help) {
    ParamDesc d;
    d.key = std::move(key);
    d.label = "Fill";
    d.unit = "RGB 0-255";
    d.kind = ParamKind::Fill;
    d.lower = 0;
    d.upper = 255;
    d.defaultValue = Fill{};
    d.allowsRandomFill = allowsRandom;
    d.help = std::move(help);
    return d;
}

ParamDesc logScale(ParamDesc d) {
    d.logScale = true;
    return d;
}

ParamDesc optionalParam(ParamDesc d) {
    d.optional = true;
    return d;
}

std::vector<OpDesc> buildRegistry() {
    std::vector<OpDesc> ops;

    ops.push_back(OpDesc{
        OpId::Affine, "affine", "Affine (rotate, scale, shear, shift)", OpCategory::Geometric,
        "Albumentations 2.0 Affine about the image centre. Positive rotation turns counter-clockwise on "
        "screen; translation is a fraction of the image size, truncated to whole pixels.",
        {
            floatRange("rotate_deg", "Rotation", "deg", -180, 180, {-15, 15},
                       "Angle in degrees; positive is counter-clockwise on screen."),
            floatRange("scale_x", "Scale X", "factor", 0.05, 10, {0.9, 1.1},
                       "Zoom factor along x; above 1 enlarges the content."),
            floatRange("scale_y", "Scale Y", "factor", 0.05, 10, {0.9, 1.1},
                       "Zoom factor along y; ignored when keep_ratio is on (y uses the x draw)."),
            boolean("keep_ratio", "Keep aspect ratio", true, "Use the same zoom for both axes."),
            floatRange("shear_x_deg", "Shear X", "deg", -80, 80, {0, 0}, "Shear angle along x, degrees."),
            floatRange("shear_y_deg", "Shear Y", "deg", -80, 80, {0, 0}, "Shear angle along y, degrees."),
            floatRange("translate_x_frac", "Shift X", "fraction of width", -1, 1, {-0.0625, 0.0625},
                       "Shift along x as a fraction of the width, truncated toward zero to pixels."),
            floatRange("translate_y_frac", "Shift Y", "fraction of height", -1, 1, {-0.0625, 0.0625},
                       "Shift along y as a fraction of the height, truncated toward zero to pixels."),
            choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                   "How source pixels are sampled."),
            choice("border", "Border", kBorderChoices, "constant", "What is shown outside the source image."),
            fill("fill", false, "Colour of the constant border."),
        }});

    ops.push_back(OpDesc{OpId::HorizontalFlip, "horizontal_flip", "Horizontal flip", OpCategory::Geometric,
                         "Mirror left to right, exactly.", {}});
    ops.push_back(OpDesc{OpId::VerticalFlip, "vertical_flip", "Vertical flip", OpCategory::Geometric,
                         "Mirror top to bottom, exactly.", {}});

    ops.push_back(OpDesc{
        OpId::RandomResizedCrop, "random_resized_crop", "Random resized crop", OpCategory::Geometric,
        "torchvision / Albumentations RandomResizedCrop: a crop of U(scale) x the image's area with an "
        "aspect ratio drawn log-uniformly from `ratio` (up to 10 tries, then a centre crop), resized to "
        "`size`. The ops after it work at that size; it must come before every pixel op.",
        {
            sizeParam("size", "Output size", 1, 16384, {224, 224}, "Height and width of the output in pixels."),
            floatRange("scale", "Crop area", "fraction of the image", 0, 1, {0.08, 1.0},
                       "Area of the crop as a fraction of the image's area, drawn uniformly."),
            logScale(floatRange("ratio", "Aspect ratio", "width / height", 0.1, 10, {0.75, 1.3333},
                                "Width / height of the crop, drawn uniformly in log space.")),
            choice("interpolation", "Interpolation", kInterpolationChoices, "linear", "How the crop is resized."),
        }});

    ops.push_back(OpDesc{
        OpId::DeotteAffine, "deotte_affine", "Deotte affine (TF/TPU notebook)", OpCategory::Geometric,
        "The transform of Chris Deotte's Kaggle notebook \"Rotation Augmentation GPU/TPU\": six normal draws, "
        "source = R·SH·Z·SF·destination in float32 index space, nearest neighbour, indices truncated and "
        "clamped to the edge, square images only. Positive rotation turns clockwise there. Faithful to that "
        "code, quirks included (odd sizes never read their last row and column).",
        {
            number("rotation_std_deg", "Rotation std", "deg", 0, 180, 15, "Rotation = std x N(0, 1), degrees."),
            number("shear_std_deg", "Shear std", "deg", 0, 90, 5, "Shear = std x N(0, 1), degrees."),
            number("zoom_std", "Zoom std", "factor", 0, 1, 0.1,
                   "Height and width zoom = 1 + std x N(0, 1), drawn separately; the source index is divided by it."),
            number("shift_std_px", "Shift std", "px", 0, 4096, 16,
                   "Height and width shift = std x N(0, 1) pixels, drawn separately."),
        }});

    ops.push_back(OpDesc{
        OpId::CoarseDropout, "coarse_dropout", "Coarse dropout (cutout)", OpCategory::Pixel,
        "Fill random rectangles. Hole sizes are fractions of the image (hole_*_frac) or pixels "
        "(hole_*_px), not both. Holes lie inside the image and may overlap.",
        {
            intRange("holes", "Holes", "count", 0, 1000, {1, 8}, "Number of holes, inclusive range."),
            floatRange("hole_height_frac", "Hole height", "fraction of height", 0, 1, {0.05, 0.1},
                       "Hole height as a fraction of the image height (truncated to pixels)."),
            floatRange("hole_width_frac", "Hole width", "fraction of width", 0, 1, {0.05, 0.1},
                       "Hole width as a fraction of the image width (truncated to pixels)."),
            optionalParam(intRange("hole_height_px", "Hole height", "px", 1, 100000, {8, 16},
                                   "Hole height in pixels, inclusive range; replaces hole_height_frac. On an image "
                                   "lower than the maximum, drawn up to its height; lower than the minimum: an "
                                   "error for that image (as in Albumentations).")),
            optionalParam(intRange("hole_width_px", "Hole width", "px", 1, 100000, {8, 16},
                                   "Hole width in pixels, inclusive range; replaces hole_width_frac. On an image "
                                   "narrower than the maximum, drawn up to its width; narrower than the minimum: an "
                                   "error for that image (as in Albumentations).")),
            fill("fill", true,
                 "[r, g, b], or \"random\" (noise per pixel) or \"random_uniform\" (one colour per hole)."),
        }});

    ops.push_back(OpDesc{
        OpId::GridDropout, "grid_dropout", "Grid dropout (GridMask)", OpCategory::Pixel,
        "Albumentations 2.0 GridDropout: the image is cut into rows and columns of a unit size (drawn "
        "from unit_size_px, else max(2, side // 10) per axis), the uneven rows and columns shuffled, and "
        "each cell gets one hole of ratio x its size (at least 1 px, at most the cell minus 1 px), at a "
        "random place in the cell (random_offset) or at its top-left corner.",
        {
            number("ratio", "Ratio", "fraction of a unit", 0.01, 1, 0.5,
                   "Hole size as a fraction of its grid cell, both axes (truncated to pixels)."),
            optionalParam(intRange("unit_size_px", "Unit size", "px", 2, 100000, {10, 20},
                                   "Grid unit in pixels, inclusive range, one draw for both axes; without it the unit "
                                   "is max(2, side // 10) per axis. The largest unit must be below the image's shorter "
                                   "side: otherwise an error for that image (as in Albumentations).")),
            boolean("random_offset", "Random offset", true,
                    "Place each hole at a random position inside its cell (off: at the cell's top-left)."),
            fill("fill", true,
                 "[r, g, b], or \"random\" (noise per pixel) or \"random_uniform\" (one colour per hole)."),
        }});

    ops.push_back(OpDesc{
        OpId::BrightnessContrast, "brightness_contrast", "Brightness / contrast", OpCategory::Pixel,
        "out = trunc(clip(v * (1 + contrast) + brightness * 255, 0, 255)) in float32, as a 256-entry LUT.",
        {
            floatRange("brightness", "Brightness", "fraction of 255", -1, 1, {-0.2, 0.2},
                       "Added offset, as a fraction of 255 (or of the image mean, see brightness_by_max)."),
            floatRange("contrast", "Contrast", "factor - 1", -1, 5, {-0.2, 0.2},
                       "Multiplier minus one: 0 keeps contrast, -1 makes the image flat."),
            boolean("brightness_by_max", "Brightness by max", true,
                    "Offset relative to 255 (on) or to the image mean (off)."),
        }});

    ops.push_back(OpDesc{
        OpId::HueSaturationValue, "hue_saturation_value", "Hue / saturation / value", OpCategory::Pixel,
        "Shifts in OpenCV's 8-bit HSV (hue 0..179, two degrees a unit).",
        {
            floatRange("hue_shift_deg", "Hue shift", "deg", -180, 180, {-40, 40},
                       "Hue rotation in degrees (OpenCV units are two degrees)."),
            floatRange("sat_shift", "Saturation shift", "0-255 units", -255, 255, {-30, 30},
                       "Added to saturation (0..255), truncated to an integer."),
            floatRange("val_shift", "Value shift", "0-255 units", -255, 255, {-20, 20},
                       "Added to value (0..255), truncated to an integer."),
        }});

    ops.push_back(OpDesc{OpId::GaussianBlur, "gaussian_blur", "Gaussian blur", OpCategory::Pixel,
                         "Separable Gaussian, kernel size int(sigma*3.5)*2+1, border reflect_101.",
                         {
                             floatRange("sigma_px", "Sigma", "px", 0, 50, {0.5, 3.0},
                                        "Standard deviation of the Gaussian in pixels."),
                         }});

    ops.push_back(OpDesc{
        OpId::GaussNoise, "gauss_noise", "Gaussian noise", OpCategory::Pixel,
        "Adds N(mean*255, std*255) per pixel, truncated toward zero, then clipped.",
        {
            floatRange("std_frac", "Noise std", "fraction of 255", 0, 1, {0.02, 0.1},
                       "Standard deviation as a fraction of 255."),
            floatRange("mean_frac", "Noise mean", "fraction of 255", -1, 1, {0, 0}, "Mean as a fraction of 255."),
            boolean("per_channel", "Per channel", true, "Independent noise per channel (off: the same for RGB)."),
        }});

    ops.push_back(OpDesc{OpId::ToGray, "to_gray", "To gray", OpCategory::Pixel,
                         "OpenCV RGB2GRAY (0.299, 0.587, 0.114 in fixed point) written to all three channels.", {}});
    return ops;
}

}  // namespace

const ParamDesc* OpDesc::param(std::string_view key) const {
    const int i = paramIndex(key);
    return i < 0 ? nullptr : &params[static_cast<std::size_t>(i)];
}

int OpDesc::paramIndex(std::string_view key) const {
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].key == key) return static_cast<int>(i);
    return -1;
}

const std::vector<OpDesc>& opRegistry() {
    static const std::vector<OpDesc> registry = buildRegistry();
    return registry;
}

const OpDesc* findOp(std::string_view name) {
    for (const OpDesc& d : opRegistry())
        if (d.name == name) return &d;
    return nullptr;
}

const OpDesc& opDesc(OpId id) {
    for (const OpDesc& d : opRegistry())
        if (d.id == id) return d;
    throw std::logic_error("op id missing from the registry");
}

}  // namespace auglab
