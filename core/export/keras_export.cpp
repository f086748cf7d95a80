// Keras 3 preprocessing layers. Conventions checked by running Keras 3.15 (numpy backend) on marker
// images, and against its source:
// - The affine is one helper layer around keras.ops.image.affine_transform, which takes, per image,
//   the output -> source matrix in pixel-index coordinates (pixel centres at integers, so AugLab's
//   centre is ((W-1)/2, (H-1)/2)). Keras' RandomZoom/RandomRotation/RandomTranslation would
//   resample three times and cut the corners a single warp fills.
// - fill_mode "reflect" is (d c b a | a b c d): OpenCV's BORDER_REFLECT; "nearest" is replicate,
//   "wrap" is wrap (TensorFlow reads the fill value at the seam); reflect_101 has no equivalent.
// Keras has no probability wrapper: the generated file defines one (ApplyWithProbability), plus
// exact brightness/contrast, noise and gray layers and a blur with OpenCV's kernel and border
// (Keras' own takes sigma <= 1 only and pads with zeros).

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


class Affine(keras.layers.Layer):
    """AugLab affine, one warp per image: M = T(c + t) Sh R S T(-c) about the centre
    c = ((W - 1) / 2, (H - 1) / 2), angles counter-clockwise in degrees, shear_x/shear_y in degrees
    (x += tan(-shear_x) y, y += tan(-shear_y) x), shifts in fractions of the size truncated to whole
    pixels. keras.ops.image.affine_transform reads output pixel p from the source at M^-1 p."""

    def __init__(self, rotate, scale_x, scale_y, keep_ratio, shear_x, shear_y, translate_x, translate_y,
                 interpolation, fill_mode, fill_value, **kwargs):
        super().__init__(**kwargs)
        self.ranges = (rotate, scale_x, scale_y, shear_x, shear_y, translate_x, translate_y)
        self.keep_ratio, self.interpolation = keep_ratio, interpolation
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n = ops.shape(x)[0]
        h, w = ops.cast(ops.shape(x)[1], "float32"), ops.cast(ops.shape(x)[2], "float32")
        rotate, scale_x, scale_y, shear_x, shear_y, translate_x, translate_y = (
            keras.random.uniform((n,), lo, hi, seed=self.seed_generator) for lo, hi in self.ranges)
        radians = 3.141592653589793 / 180.0
        c, s = ops.cos(rotate * radians), ops.sin(rotate * radians)
        sx = scale_x
        sy = scale_x if self.keep_ratio else scale_y
        shx, shy = ops.tan(-shear_x * radians), ops.tan(-shear_y * radians)
        a00, a01 = (c - shx * s) * sx, (s + shx * c) * sy  # A = Sh R S
        a10, a11 = (shy * c - s) * sx, (shy * s + c) * sy
        det = a00 * a11 - a01 * a10
        i00, i01, i10, i11 = a11 / det, -a01 / det, -a10 / det, a00 / det
        cx, cy = (w - 1.0) * 0.5, (h - 1.0) * 0.5
        ox, oy = cx + ops.trunc(translate_x * w), cy + ops.trunc(translate_y * h)
        zero = ops.zeros_like(i00)
        m = ops.stack([i00, i01, cx - i00 * ox - i01 * oy, i10, i11, cy - i10 * ox - i11 * oy, zero, zero], axis=1)
        out = ops.image.affine_transform(x, m, interpolation=self.interpolation, fill_mode=self.fill_mode,
                                         fill_value=self.fill_value)
        return ops.round(out)


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


class HueSaturationValue(keras.layers.Layer):
    """AugLab hue_saturation_value in float HSV, per image: hue turned by U(hue) degrees, saturation
    and value shifted by U(sat) and U(val) in OpenCV's 0-255 units, rounded."""

    def __init__(self, hue, sat, val, **kwargs):
        super().__init__(**kwargs)
        self.ranges = (hue, sat, val)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n = ops.shape(x)[0]
        hue, sat, val = (keras.random.uniform((n, 1, 1), lo, hi, seed=self.seed_generator) for lo, hi in self.ranges)
        hsv = ops.image.rgb_to_hsv(x[..., :3] / 255.0)
        h = ops.mod(hsv[..., 0] + hue / 360.0, 1.0)
        s = ops.clip(hsv[..., 1] + sat / 255.0, 0.0, 1.0)
        v = ops.clip(hsv[..., 2] + val / 255.0, 0.0, 1.0)
        rgb = ops.round(ops.image.hsv_to_rgb(ops.stack([h, s, v], axis=-1)) * 255.0)
        return ops.concatenate([rgb, x[..., 3:]], axis=-1)


class GaussianBlur(keras.layers.Layer):
    """AugLab gaussian_blur: per image sigma ~ U(sigma), OpenCV's kernel (int(sigma * 3.5) * 2 + 1
    taps of exp(-x^2 / 2 sigma^2), normalised), reflect_101 border, separable, rounded."""

    def __init__(self, sigma, **kwargs):
        super().__init__(**kwargs)
        self.sigma, self.radius = sigma, int(sigma[1] * 3.5)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops, r = keras.ops, self.radius
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        sigma = keras.random.uniform((n, 1), *self.sigma, seed=self.seed_generator)
        offsets = ops.cast(ops.arange(-r, r + 1), "float32")[None, :]
        taps = ops.exp(-0.5 * ops.square(offsets / sigma)) * ops.cast(ops.abs(offsets) <= ops.floor(sigma * 3.5), "float32")
        taps = taps / ops.sum(taps, axis=1, keepdims=True)
        padded = ops.pad(x, [[0, 0], [r, r], [r, r], [0, 0]], mode="reflect")
        rows = sum(taps[:, k, None, None, None] * padded[:, k:k + h, :, :] for k in range(2 * r + 1))
        return ops.round(sum(taps[:, k, None, None, None] * rows[:, :, k:k + w, :] for k in range(2 * r + 1)))


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


class Gray(keras.layers.Layer):
    """AugLab to_gray, OpenCV's RGB->GRAY fixed point: (9798 R + 19235 G + 3735 B + 2^14) >> 15."""

    def call(self, images, training=True):
        x = keras.ops.round(keras.ops.cast(images, "float32"))
        g = keras.ops.floor((x[..., 0:1] * 9798.0 + x[..., 1:2] * 19235.0 + x[..., 2:3] * 3735.0 + 16384.0) / 32768.0)
        return keras.ops.concatenate([g, g, g, x[..., 3:]], axis=-1)
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
                // One warp with AugLab's matrix (keras.ops.image.affine_transform): Keras' RandomZoom,
                // RandomRotation and RandomTranslation resample once each, cut the corners one warp fills,
                // draw zoom as 1/scale - 1 and have no shear.
                const Range sy = op.flag("keep_ratio") ? op.range("scale_x") : op.range("scale_y");
                const std::string t = "Affine(rotate=" + pyRange(op.range("rotate_deg")) + ", scale_x=" +
                                      pyRange(op.range("scale_x")) + ", scale_y=" + pyRange(sy) + ", keep_ratio=" +
                                      (op.flag("keep_ratio") ? "True" : "False") + ", shear_x=" +
                                      pyRange(op.range("shear_x_deg")) + ", shear_y=" + pyRange(op.range("shear_y_deg")) +
                                      ", translate_x=" + pyRange(op.range("translate_x_frac")) + ", translate_y=" +
                                      pyRange(op.range("translate_y_frac")) + ", interpolation=\"" +
                                      (op.choice("interpolation") == "nearest" ? "nearest" : "bilinear") +
                                      "\", fill_mode=\"" + mode + "\", fill_value=" + pyFloat(fill.rgb[0]) + ")";
                if (mode == "wrap" && op.choice("interpolation") != "nearest")
                    w.push_back(L + ": TensorFlow's wrap interpolates the seam between the last and the first pixel "
                                "with the fill value: that row and column differ (up to 17 levels on chelsea.png, "
                                "measured).");
                w.push_back(L + ": Keras interpolates in float (AugLab in OpenCV's fixed point): within SPEC §2, "
                            "measured.");
                lines += "    " + wrapP(t, op.p) + ",\n";
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
            case OpId::HueSaturationValue:
                // Keras' RandomHue draws a symmetric turn and has no additive shifts: a helper in float HSV.
                lines += "    " + wrapP("HueSaturationValue(hue=" + pyRange(op.range("hue_shift_deg")) + ", sat=" +
                                        pyRange(op.range("sat_shift")) + ", val=" + pyRange(op.range("val_shift")) + ")",
                                        op.p) + ",\n";
                w.push_back(L + ": Keras converts to HSV in float; AugLab, like OpenCV, in 8 bits with hue in 2-degree "
                            "units (mean 0.4, max 3-4 levels apart on chelsea.png, measured).");
                break;
            case OpId::GaussianBlur: {
                // Keras' RandomGaussianBlur takes sigma in [0, 1] only, pads with zeros (darkened borders)
                // and draws sigma per batch: a helper layer computes AugLab's blur instead.
                lines += "    " + wrapP("GaussianBlur(sigma=" + pyRange(op.range("sigma_px")) + ")", op.p) + ",\n";
                w.push_back(L + ": the blur sums in float (OpenCV in fixed point): a level apart at most, measured.");
                break;
            }
            case OpId::GaussNoise:
                lines += "    " + wrapP("GaussNoise(std=" + pyRange(op.range("std_frac")) + ", mean=" +
                                        pyRange(op.range("mean_frac")) + ", per_channel=" +
                                        (op.flag("per_channel") ? "True" : "False") + ")", op.p) + ",\n";
                break;
            case OpId::ToGray:
                // Keras' RandomGrayscale weighs in float: a helper computes OpenCV's fixed point exactly.
                lines += "    " + wrapP("Gray()", op.p) + ",\n";
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
