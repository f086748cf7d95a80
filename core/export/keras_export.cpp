// Keras 3 preprocessing layers. Conventions checked by running Keras 3.15 (numpy backend) on marker
// images, and against its source:
// - RandomRotation(factor): degrees / 360, a positive factor turns counter-clockwise on screen, as
//   AugLab's rotate_deg does; the centre is ((W-1)/2, (H-1)/2), AugLab's too.
// - RandomZoom(height_factor): the output samples the source at (1 + f) times the distance from
//   the centre, so the content scales by 1 / (1 + f): a positive f zooms out. AugLab's scale s is
//   f = 1/s - 1; width_factor=None uses the height draw for both axes (AugLab's keep_ratio).
// - RandomTranslation: a fraction of the size, positive moves right/down (not truncated to pixels).
// - fill_mode "reflect" is (d c b a | a b c d): OpenCV's BORDER_REFLECT; "nearest" is replicate,
//   "wrap" is wrap; reflect_101 has no equivalent.
// - Layers apply one after another, each with its own resampling; zoom, then rotation, then
//   translation gives AugLab's order T * R * S.
// Keras has no probability wrapper: the generated file defines one (ApplyWithProbability), plus an
// exact brightness/contrast layer.

#include <algorithm>
#include <cmath>

#include "export_common.h"

namespace auglab {

namespace {

using namespace exporting;

const char* kHelpers = R"(

class ApplyWithProbability(keras.layers.Layer):
    """Applies `fn` to each image of a batch with probability p (AugLab's per-op p)."""

    def __init__(self, fn, p, **kwargs):
        super().__init__(**kwargs)
        self.fn, self.p = fn, p
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        out = keras.ops.cast(self.fn(images), "float32")
        u = keras.random.uniform((keras.ops.shape(images)[0], 1, 1, 1), seed=self.seed_generator)
        return keras.ops.where(u < self.p, out, keras.ops.cast(images, "float32"))


class BrightnessContrast(keras.layers.Layer):
    """AugLab brightness_contrast: out = trunc(clip(v * (1 + c) + b * 255, 0, 255)), per image."""

    def __init__(self, brightness, contrast, by_max=True, **kwargs):
        super().__init__(**kwargs)
        self.brightness, self.contrast, self.by_max = brightness, contrast, by_max
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        n = keras.ops.shape(images)[0]
        c = keras.random.uniform((n, 1, 1, 1), *self.contrast, seed=self.seed_generator)
        b = keras.random.uniform((n, 1, 1, 1), *self.brightness, seed=self.seed_generator)
        x = keras.ops.cast(images, "float32")
        scale = 255.0 if self.by_max else keras.ops.mean(x[..., :3], axis=(1, 2, 3), keepdims=True)
        return keras.ops.floor(keras.ops.clip(x * (1.0 + c) + b * scale, 0.0, 255.0))


class GaussNoise(keras.layers.Layer):
    """AugLab gauss_noise: adds trunc(N(mean * 255, std * 255)) per pixel, then clips."""

    def __init__(self, std, mean, per_channel=True, **kwargs):
        super().__init__(**kwargs)
        self.std, self.mean, self.per_channel = std, mean, per_channel
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        x = keras.ops.cast(images, "float32")
        n, h, w = keras.ops.shape(x)[0], keras.ops.shape(x)[1], keras.ops.shape(x)[2]
        std = keras.random.uniform((n, 1, 1, 1), *self.std, seed=self.seed_generator) * 255.0
        mean = keras.random.uniform((n, 1, 1, 1), *self.mean, seed=self.seed_generator) * 255.0
        z = keras.random.normal((n, h, w, 3 if self.per_channel else 1), seed=self.seed_generator)
        rgb = keras.ops.clip(x[..., :3] + keras.ops.trunc(z * std + mean), 0.0, 255.0)
        return keras.ops.concatenate([rgb, x[..., 3:]], axis=-1)
)";

std::string wrapP(const std::string& layer, double p) {
    if (p >= 1.0) return layer;
    return "ApplyWithProbability(" + layer + ", p=" + pyFloat(p) + ")";
}

}  // namespace

ExportResult exportKeras(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    std::string lines;
    for (const ExportedOp& e : enabledOps(preset, "keras", w)) {
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (op.id()) {
            case OpId::Affine: {
                const std::string border = op.choice("border");
                std::string mode = "constant";
                if (border == "replicate") mode = "nearest";
                else if (border == "reflect") mode = "reflect";
                else if (border == "wrap") mode = "wrap";
                else if (border == "reflect_101") {
                    mode = "reflect";
                    w.push_back(L + ": Keras has no reflect_101 (c b | a b c); fill_mode \"reflect\" (b a | a b c) "
                                "repeats the edge pixel once.");
                }
                const Fill fill = op.fill("fill");
                if (mode == "constant" && !isGray(fill))
                    w.push_back(L + ": Keras fills with one value for all channels: fill " + pyRgb(fill) + " becomes " +
                                std::to_string(fill.rgb[0]) + ".");
                const std::string common = ", fill_mode=\"" + mode + "\", interpolation=\"" +
                                           (op.choice("interpolation") == "nearest" ? "nearest" : "bilinear") +
                                           "\", fill_value=" + pyFloat(fill.rgb[0]);
                w.push_back(L + ": Keras resamples once per layer (zoom, rotation, translation): up to three "
                            "interpolations instead of AugLab's one.");
                // Zoom: content scale s = 1 / (1 + f), so f = 1/s - 1 (sorted: the largest s gives the smallest f).
                const Range sx = op.range("scale_x"), sy = op.flag("keep_ratio") ? sx : op.range("scale_y");
                const auto zoom = [&](const Range& s, const char* key) {
                    Range f{1.0 / s.max - 1.0, 1.0 / s.min - 1.0};
                    if (f.max > 1.0 || f.min < -1.0) {
                        w.push_back(L + ": Keras zoom factors lie in [-1, 1] (scale >= 0.5): " + key + " is limited.");
                        f = {std::clamp(f.min, -1.0, 1.0), std::clamp(f.max, -1.0, 1.0)};
                    }
                    if (s.min != s.max)
                        w.push_back(L + ": Keras draws the zoom factor 1/scale - 1 uniformly, so " + key +
                                    " is not uniform in [" + formatNumber(s.min) + ", " + formatNumber(s.max) +
                                    "] (same bounds, more weight on small scales).");
                    return f;
                };
                std::vector<std::string> layers;
                if (sx != Range{1, 1} || sy != Range{1, 1}) {
                    const Range fy = zoom(sy, op.flag("keep_ratio") ? "scale" : "scale_y");
                    const std::string wf = op.flag("keep_ratio") ? "None" : pyRange(zoom(sx, "scale_x"));
                    layers.push_back("layers.RandomZoom(height_factor=" + pyRange(fy) + ", width_factor=" + wf + common + ")");
                }
                const Range rot = op.range("rotate_deg");
                if (rot != Range{0, 0})
                    layers.push_back("layers.RandomRotation(factor=" + pyRange({rot.min / 360, rot.max / 360}) + common + ")");
                if (op.range("shear_x_deg") != Range{0, 0} || op.range("shear_y_deg") != Range{0, 0})
                    w.push_back(L + ": shear is not exported (Keras' RandomShear uses another parametrisation and "
                                "order): no shear.");
                const Range tx = op.range("translate_x_frac"), ty = op.range("translate_y_frac");
                if (tx != Range{0, 0} || ty != Range{0, 0}) {
                    layers.push_back("layers.RandomTranslation(height_factor=" + pyRange(ty) + ", width_factor=" +
                                     pyRange(tx) + common + ")");
                    w.push_back(L + ": Keras shifts by fractional pixels; AugLab truncates the shift to whole pixels.");
                }
                lines += "    # " + L + ": zoom factor = 1/scale - 1, rotation factor = degrees/360 (both counter-clockwise)\n";
                if (op.p < 1.0) {
                    std::string seq = "keras.Sequential([";
                    for (std::size_t i = 0; i < layers.size(); ++i) seq += (i ? ", " : "") + layers[i];
                    lines += "    " + wrapP(seq + "])", op.p) + ",\n";
                } else {
                    for (const std::string& l : layers) lines += "    " + l + ",\n";
                }
                break;
            }
            case OpId::HorizontalFlip:
            case OpId::VerticalFlip: {
                const bool h = op.id() == OpId::HorizontalFlip;
                if (op.p == 0.5) lines += std::string("    layers.RandomFlip(\"") + (h ? "horizontal" : "vertical") + "\"),\n";
                else lines += std::string("    ApplyWithProbability(lambda x: keras.ops.flip(x, axis=") + (h ? "-2" : "-3") +
                              "), p=" + pyFloat(op.p) + "),\n";
                break;
            }
            case OpId::RandomResizedCrop:
                w.push_back(L + ": Keras 3 has no random resized crop layer: not exported (the albumentations and "
                            "torchvision exports have it).");
                lines += "    # " + L + ": not exported (see the warnings above)\n";
                break;
            case OpId::DeotteAffine:
                w.push_back(L + ": Chris Deotte's notebook transform (normal draws, truncated indices) has no Keras "
                            "equivalent: not exported (the tf-deotte export has it).");
                lines += "    # " + L + ": not exported (see the warnings above)\n";
                break;
            case OpId::GridDropout:
                w.push_back(L + ": Keras 3 has no grid dropout layer: not exported (the albumentations export has it).");
                lines += "    # " + L + ": not exported (see the warnings above)\n";
                break;
            case OpId::CoarseDropout:
                w.push_back(L + ": approximated by RandomErasing: one rectangle per image chosen by area (AugLab: " +
                            formatNumber(op.range("holes").min) + "-" + formatNumber(op.range("holes").max) +
                            " holes of independent height and width).");
                if (op.fill("fill").mode != Fill::Mode::Constant)
                    w.push_back(L + ": random fills become Keras' default (random values).");
                {
                    std::string scale = "(0.0025, 0.01)";
                    if (!op.has("hole_height_px")) {
                        const Range h = op.range("hole_height_frac"), wd = op.range("hole_width_frac");
                        scale = pyRange({h.min * wd.min, std::max(h.min * wd.min, h.max * wd.max)});
                    } else {
                        w.push_back(L + ": hole sizes in pixels: the area fraction (0.0025, 0.01) is a placeholder.");
                    }
                    const Fill f = op.fill("fill");
                    const std::string fill = f.mode == Fill::Mode::Constant ? pyFloat(f.rgb[0]) : "None";
                    lines += "    layers.RandomErasing(factor=(" + pyFloat(op.p) + ", " + pyFloat(op.p) + "), scale=" + scale + ", fill_value=" +
                             fill + ", value_range=(0, 255)),  # " + L + " (approximation)\n";
                }
                break;
            case OpId::BrightnessContrast:
                lines += "    " + wrapP("BrightnessContrast(brightness=" + pyRange(op.range("brightness")) + ", contrast=" +
                                        pyRange(op.range("contrast")) + ", by_max=" +
                                        (op.flag("brightness_by_max") ? "True" : "False") + ")", op.p) + ",\n";
                break;
            case OpId::HueSaturationValue: {
                const Range hue = op.range("hue_shift_deg");
                const double m = std::max(std::abs(hue.min), std::abs(hue.max)) / 360.0;
                w.push_back(L + ": Keras' RandomHue draws a symmetric hue turn of up to ±" + formatNumber(m * 360) +
                            " degrees in float HSV; sat_shift and val_shift (additive, OpenCV units) are not exported.");
                lines += "    " + wrapP("layers.RandomHue(factor=" + pyFloat(m * 2) + ", value_range=(0, 255))", op.p) + ",\n";
                break;
            }
            case OpId::GaussianBlur: {
                const Range s = op.range("sigma_px");
                const int k = static_cast<int>(s.max * 3.5) * 2 + 1;
                w.push_back(L + ": Keras' RandomGaussianBlur uses one kernel size (" + std::to_string(k) + ") and draws "
                            "sigma once per batch, separately for x and y.");
                lines += "    layers.RandomGaussianBlur(factor=(" + pyFloat(op.p) + ", " + pyFloat(op.p) + "), kernel_size=" + std::to_string(k) +
                         ", sigma=" + pyRange(s) + ", value_range=(0, 255)),\n";
                break;
            }
            case OpId::GaussNoise:
                lines += "    " + wrapP("GaussNoise(std=" + pyRange(op.range("std_frac")) + ", mean=" +
                                        pyRange(op.range("mean_frac")) + ", per_channel=" +
                                        (op.flag("per_channel") ? "True" : "False") + ")", op.p) + ",\n";
                break;
            case OpId::ToGray:
                lines += "    layers.RandomGrayscale(factor=" + pyFloat(op.p) + "),\n";
                w.push_back(L + ": Keras' grayscale weights are applied in float; OpenCV's fixed point can differ by one level.");
                break;
        }
    }
    // keras.Sequential([]) cannot be built (it raises when called): a preset of which nothing can be
    // exported becomes an identity, and says so.
    bool anyLayer = false;
    for (std::size_t at = 0; at < lines.size() && !anyLayer;) {
        const std::size_t end = std::min(lines.find('\n', at), lines.size());
        const std::size_t text = lines.find_first_not_of(' ', at);
        anyLayer = text < end && lines[text] != '#';
        at = end + 1;
    }
    if (!anyLayer) {
        w.push_back("nothing in this preset can be expressed in Keras: the model passes images through unchanged "
                    "(layers.Identity).");
        lines += "    layers.Identity(),  # nothing of this preset is exported (see the warnings above)\n";
    }
    std::string body = "import keras\nfrom keras import layers\n";
    body += kHelpers;
    body += "\n\n# Batches of RGB images, channels last, values 0-255.\naugment = keras.Sequential([\n" + lines + "])\n";
    r.text = pythonHeader(preset, "keras", w) + body;
    return r;
}

}  // namespace auglab
