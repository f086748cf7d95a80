// NVIDIA DALI pipeline code, for the GPU or, with device_id=None, the CPU. DALI conventions, from
// its docs and checked by running the exports (tests/test_export_runtimes):
// - fn.warp_affine with inverse_map=True takes the destination -> source matrix as a 2x3 tensor.
//   DALI's pixel centres lie at +0.5, so AugLab's centre (W/2 - 0.5, H/2 - 0.5) becomes (W/2, H/2)
//   there; the matrix is otherwise AugLab's, built per sample from fn.random.uniform draws with
//   DALI's arithmetic and inverted in closed form. Without fill_value the border replicates the
//   edge; with it, one value fills all channels.
// - fn.random.uniform needs lo < hi: a fixed value is drawn from values=[v]; fn.random.coin_flip
//   gives integers, cast to float for arithmetic; dmath functions need DataNodes, which every
//   parameter therefore is.
// - Where DALI's arithmetic can compute what AugLab computes, the export does it with arithmetic
//   operators instead of DALI's own op: brightness/contrast truncates, gray is OpenCV's fixed-point
//   sum, noise is truncated and has a mean. fn.flip, fn.gaussian_blur, fn.hsv and
//   fn.random_resized_crop are DALI's own, with the differences each warning states.

#include "export_common.h"

namespace auglab {

namespace {

using namespace exporting;

/// One draw per sample (a DataNode even for a fixed value).
std::string uniform(const Range& r) { return "_uniform(" + pyFloat(r.min) + ", " + pyFloat(r.max) + ")"; }

/// 1.0 when the op runs, else 0.0, per sample.
std::string coin(double p) { return p >= 1.0 ? "_uniform(1.0, 1.0)" : "_coin(" + pyFloat(p) + ")"; }

}  // namespace

ExportResult exportDali(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    std::string s;
    for (const ExportedOp& e : enabledOps(preset, "dali", w)) {
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        s += "    # " + L + "\n";
        const std::string on = coin(op.p);
        switch (op.id()) {
            case OpId::Affine: {
                const std::string border = op.choice("border");
                std::string fill;
                if (border == "constant") {
                    const Fill f = op.fill("fill");
                    fill = ", fill_value=" + pyFloat(f.rgb[0]);
                    if (!isGray(f)) w.push_back(L + ": DALI fills all channels with one value: " + std::to_string(f.rgb[0]) + ".");
                } else if (border != "replicate") {
                    w.push_back(L + ": DALI's warp has no \"" + border + "\" border: it replicates the edge instead.");
                }
                w.push_back(L + ": DALI interpolates in float and rounds to uint8; AugLab follows OpenCV's fixed "
                            "point (within SPEC §2's bounds, measured).");
                s += "    on = " + on + "\n";
                s += "    angle = " + uniform(op.range("rotate_deg")) + " * on * (math.pi / 180.0)\n";
                s += "    sx = 1.0 + (" + uniform(op.range("scale_x")) + " - 1.0) * on\n";
                s += std::string("    sy = ") + (op.flag("keep_ratio") ? "sx" : "1.0 + (" + uniform(op.range("scale_y")) + " - 1.0) * on") + "\n";
                s += "    shx = dmath.tan(-" + uniform(op.range("shear_x_deg")) + " * on * (math.pi / 180.0))\n";
                s += "    shy = dmath.tan(-" + uniform(op.range("shear_y_deg")) + " * on * (math.pi / 180.0))\n";
                s += "    tx = _trunc(" + uniform(op.range("translate_x_frac")) + " * on * width)\n";
                s += "    ty = _trunc(" + uniform(op.range("translate_y_frac")) + " * on * height)\n";
                s += "    images = fn.warp_affine(images, matrix=_inverse_affine(angle, sx, sy, shx, shy, tx, ty, width, height), "
                     "inverse_map=True, interp_type=types." +
                     std::string(op.choice("interpolation") == "nearest" ? "INTERP_NN" : "INTERP_LINEAR") + fill + ")\n";
                break;
            }
            case OpId::HorizontalFlip:
            case OpId::VerticalFlip: {
                const bool h = op.id() == OpId::HorizontalFlip;
                s += std::string("    images = fn.flip(images, ") + (h ? "horizontal" : "vertical") +
                     "=fn.random.coin_flip(probability=" + pyFloat(op.p) + "), " + (h ? "vertical=0" : "horizontal=0") + ")\n";
                break;
            }
            case OpId::BrightnessContrast:
                s += "    on = " + on + "\n";
                s += "    images = _brightness_contrast(images, 1.0 + " + uniform(op.range("contrast")) + " * on, " +
                     uniform(op.range("brightness")) + " * on, by_max=" + (op.flag("brightness_by_max") ? "True" : "False") + ")\n";
                if (!op.flag("brightness_by_max"))
                    w.push_back(L + ": the image mean is DALI's float reduction (AugLab sums in integers): a level "
                                "apart where the product lands on a whole number.");
                break;
            case OpId::HueSaturationValue:
                w.push_back(L + ": DALI's fn.hsv turns hue as a rotation of the YIQ chroma plane (a linear colour "
                            "matrix), not in HSV: other colours for the same angle (+30 degrees on chelsea.png: mean 17, "
                            "max 46 levels apart, measured); additive sat_shift and val_shift cannot be "
                            "expressed by its factors: not exported.");
                s += "    images = fn.hsv(images, hue=" + uniform(op.range("hue_shift_deg")) + " * " + on + ")\n";
                break;
            case OpId::GaussianBlur: {
                const Range sg = op.range("sigma_px");
                s += "    sigma = " + uniform({std::max(sg.min, 1e-3), std::max(sg.max, 1e-3)}) + "\n";
                s += "    window = fn.cast(dmath.floor(sigma * 3.5), dtype=types.INT32) * 2 + 1  # AugLab: int(sigma*3.5)*2+1\n";
                s += "    images = _maybe(images, fn.gaussian_blur(images, sigma=sigma, window_size=window), " + on + ")\n";
                w.push_back(L + ": DALI's blur border is reflect_101 like AugLab's; it sums in float and rounds (a "
                            "level apart at most, measured).");
                break;
            }
            case OpId::GaussNoise:
                s += "    images = _gauss_noise(images, " + uniform(op.range("std_frac")) + " * 255.0, " +
                     uniform(op.range("mean_frac")) + " * 255.0, per_channel=" + (op.flag("per_channel") ? "True" : "False") +
                     ", on=" + on + ")\n";
                w.push_back(L + ": the normal draws are DALI's own (the same distribution, other values).");
                break;
            case OpId::ToGray:
                s += "    images = _maybe(images, _gray(images), " + on + ")\n";
                break;
            case OpId::RandomResizedCrop: {
                const Size2 size = op.size("size");
                if (op.p < 1)
                    w.push_back(L + ": DALI crops every image (a pipeline's output size is fixed): p = " +
                                formatNumber(op.p) + " becomes 1.");
                w.push_back(L + ": DALI draws its crop windows with its own generator and rounding (the same "
                            "area and aspect ranges, 10 attempts) and resizes with its own filter (within SPEC "
                            "§2's bounds for the same window, measured).");
                s += "    images = fn.random_resized_crop(images, size=[" + std::to_string(size.height) + ", " +
                     std::to_string(size.width) + "], random_area=" + pyRange(op.range("scale")) +
                     ", random_aspect_ratio=" + pyRange(op.range("ratio")) + ", num_attempts=10, interp_type=types." +
                     std::string(op.choice("interpolation") == "nearest" ? "INTERP_NN" : "INTERP_LINEAR") +
                     ", antialias=False)\n";
                s += "    height, width = " + pyFloat(size.height) + ", " + pyFloat(size.width) + "\n";
                break;
            }
            case OpId::DeotteAffine:
                w.push_back(L + ": Chris Deotte's notebook transform is not exported to DALI (the tf-deotte export "
                            "has it).");
                s += "    # not exported (see the header)\n";
                break;
            case OpId::GridDropout:
            case OpId::CoarseDropout:
                w.push_back(L + ": fn.erase needs the number of regions fixed per pipeline: not exported (use "
                            "the albumentations export for cutout and grid dropout).");
                s += "    # not exported (see the header)\n";
                break;
        }
    }
    std::string body = R"(import math

from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.math as dmath


def _uniform(lo, hi):
    """One float per sample from U(lo, hi); lo itself when lo == hi (DALI's range must not be empty)."""
    return fn.random.uniform(values=[lo]) if lo == hi else fn.random.uniform(range=(lo, hi))


def _coin(p):
    """1.0 with probability p, else 0.0, per sample."""
    return fn.cast(fn.random.coin_flip(probability=p), dtype=types.FLOAT)


def _on(images, x):
    """A per-sample CPU value where `images` is (arithmetic needs both on one device)."""
    return x.gpu() if images.device == "gpu" else x


def _maybe(images, changed, on):
    """`changed` where on is 1, `images` where it is 0."""
    on = _on(images, on)
    return fn.cast(changed * on + images * (1.0 - on), dtype=types.UINT8)


def _trunc(x):
    """Toward zero, as AugLab truncates (the clamp is the sign of x)."""
    return dmath.floor(dmath.abs(x)) * dmath.clamp(x * 1e9, -1.0, 1.0)


def _inverse_affine(angle, sx, sy, shx, shy, tx, ty, width, height):
    """Destination -> source matrix (2 x 3) of AugLab's M = T(c + t) Sh R S T(-c), c = (W/2, H/2) in
    DALI's coordinates (pixel centres at +0.5)."""
    c, s = dmath.cos(angle), dmath.sin(angle)
    # A = Sh @ R @ S (2 x 2)
    a00, a01 = (c - shx * s) * sx, (s + shx * c) * sy
    a10, a11 = (shy * c - s) * sx, (shy * s + c) * sy
    det = a00 * a11 - a01 * a10
    i00, i01, i10, i11 = a11 / det, -a01 / det, -a10 / det, a00 / det
    cx, cy = width * 0.5, height * 0.5
    # source = A^-1 (p - c - t) + c
    ox, oy = cx + tx, cy + ty
    m = fn.stack(i00, i01, cx - i00 * ox - i01 * oy, i10, i11, cy - i10 * ox - i11 * oy)
    return fn.reshape(m, shape=[2, 3])


def _brightness_contrast(images, alpha, beta, by_max):
    """AugLab brightness_contrast: trunc(clip(v * alpha + beta * (255 or the image mean), 0, 255))."""
    v = fn.cast(images, dtype=types.FLOAT)
    scale = 255.0 if by_max else fn.reductions.mean(v)  # on the images' device
    out = v * _on(images, alpha) + _on(images, beta) * scale
    return fn.cast(dmath.floor(dmath.clamp(out, 0.0, 255.0)), dtype=types.UINT8)


def _gauss_noise(images, std, mean, per_channel, on):
    """AugLab gauss_noise: adds trunc(N(mean, std)) (in levels) per pixel, then clips."""
    v = fn.cast(images, dtype=types.FLOAT)
    noise = fn.random.normal(v if per_channel else v[:, :, 0:1])
    noise = _trunc(noise * _on(images, std) + _on(images, mean)) * _on(images, on)
    return fn.cast(dmath.clamp(v + noise, 0.0, 255.0), dtype=types.UINT8)


def _gray(images):
    """OpenCV's RGB->GRAY in its fixed point, (9798 R + 19235 G + 3735 B + 2^14) >> 15: exact in float."""
    v = fn.cast(images, dtype=types.FLOAT)
    g = dmath.floor((v[:, :, 0] * 9798.0 + v[:, :, 1] * 19235.0 + v[:, :, 2] * 3735.0 + 16384.0) / 32768.0)
    return fn.stack(g, g, g, axis=2)


def augment(images):
    """The preset on a batch of uint8 RGB images (HWC), on the CPU or the GPU."""
    shape = images.shape(dtype=types.FLOAT)
    height, width = shape[0], shape[1]
)";
    body += s + R"(    return images


@pipeline_def(batch_size=64, num_threads=4, device_id=0)
def auglab_pipeline(file_root, device="gpu"):
    """Reads file_root's images and labels and augments them: decoded by nvJPEG on the GPU, or, with
    device="cpu" (and device_id=None), everything on the CPU."""
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu", output_type=types.RGB)
    return augment(images), labels
)";
    r.text = pythonHeader(preset, "dali", w) + body;
    return r;
}

}  // namespace auglab
