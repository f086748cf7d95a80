// NVIDIA DALI pipeline code (GPU decoding and augmentation). DALI conventions, from its docs:
// - fn.warp_affine with inverse_map=True (the default) takes the destination -> source matrix
//   [m00, m01, tx, m10, m11, ty]. DALI's pixel centres lie at +0.5, so AugLab's centre
//   (W/2 - 0.5, H/2 - 0.5) becomes (W/2, H/2) there; the matrix is otherwise AugLab's, built per
//   sample from fn.random.uniform draws with DALI's arithmetic and inverted in closed form.
// - Without fill_value the border replicates the edge; with it, one value fills all channels.
// - fn.flip(horizontal=coin), fn.brightness_contrast (out = shift*255 + brightness*(contrast*in),
//   contrast_center 0), fn.hsv (hue in degrees, saturation and value as factors),
//   fn.gaussian_blur (sigma and window size per sample), fn.noise.gaussian.
// Results are rounded to uint8 (AugLab truncates); the file states each difference.

#include "export_common.h"

namespace auglab {

namespace {

using namespace exporting;

std::string uniform(const Range& r) {
    if (r.min == r.max) return pyFloat(r.min);
    return "fn.random.uniform(range=" + pyRange(r) + ")";
}

std::string coin(double p) { return "fn.random.coin_flip(probability=" + pyFloat(p) + ", dtype=types.FLOAT)"; }

}  // namespace

ExportResult exportDali(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    std::string s;
    int n = 0;
    for (const ExportedOp& e : enabledOps(preset, "dali", w)) {
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const std::string k = std::to_string(n++);
        s += "    # " + L + "\n";
        const std::string on = op.p >= 1.0 ? "1.0" : coin(op.p);
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
                w.push_back(L + ": DALI rounds the warped values to uint8 and computes in float; AugLab follows "
                            "OpenCV's fixed point (a level apart at most, mostly).");
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
                if (!op.flag("brightness_by_max"))
                    w.push_back(L + ": brightness relative to the image mean cannot be expressed: relative to 255.");
                w.push_back(L + ": DALI rounds the result; AugLab truncates (half a level on average).");
                s += "    on = " + on + "\n";
                s += "    images = fn.brightness_contrast(images, contrast_center=0.0, brightness=1.0, contrast=1.0 + " +
                     uniform(op.range("contrast")) + " * on, brightness_shift=" + uniform(op.range("brightness")) + " * on)\n";
                break;
            case OpId::HueSaturationValue:
                w.push_back(L + ": DALI's fn.hsv rotates hue in float (AugLab: OpenCV's 2-degree units); additive "
                            "sat_shift and val_shift cannot be expressed by its factors: not exported.");
                s += "    images = fn.hsv(images, hue=" + uniform(op.range("hue_shift_deg")) + " * " + on + ")\n";
                break;
            case OpId::GaussianBlur: {
                const Range sg = op.range("sigma_px");
                s += "    sigma = " + uniform({std::max(sg.min, 1e-3), std::max(sg.max, 1e-3)}) + "\n";
                s += "    window = fn.cast(dmath.floor(sigma * 3.5), dtype=types.INT32) * 2 + 1  # AugLab: int(sigma*3.5)*2+1\n";
                if (op.p < 1.0) {
                    s += "    blurred = fn.gaussian_blur(images, sigma=sigma, window_size=window)\n";
                    s += "    on = " + coin(op.p) + "\n";
                    s += "    images = fn.cast(blurred * on.gpu() + images * (1.0 - on.gpu()), dtype=types.UINT8)\n";
                } else {
                    s += "    images = fn.gaussian_blur(images, sigma=sigma, window_size=window)\n";
                }
                w.push_back(L + ": DALI's blur border is reflect_101 like AugLab's; results are rounded in float (a "
                            "level apart at most).");
                break;
            }
            case OpId::GaussNoise:
                if (!op.flag("per_channel")) w.push_back(L + ": DALI draws noise per channel: per_channel false is lost.");
                if (op.range("mean_frac") != Range{0, 0}) w.push_back(L + ": DALI's noise has zero mean: mean_frac is lost.");
                w.push_back(L + ": DALI rounds the noisy values; AugLab truncates the noise toward zero.");
                s += "    images = fn.noise.gaussian(images, stddev=" + uniform(op.range("std_frac")) + " * 255.0 * " + on + ")\n";
                break;
            case OpId::ToGray:
                s += "    gray = fn.color_space_conversion(fn.color_space_conversion(images, image_type=types.RGB, "
                     "output_type=types.GRAY), image_type=types.GRAY, output_type=types.RGB)\n";
                s += "    on = " + coin(op.p) + "\n";
                s += "    images = fn.cast(gray * on.gpu() + images * (1.0 - on.gpu()), dtype=types.UINT8)\n";
                w.push_back(L + ": DALI's RGB->GRAY weights are its own (BT.601 in float); a level apart at most.");
                break;
            case OpId::RandomResizedCrop: {
                const Size2 size = op.size("size");
                if (op.p < 1)
                    w.push_back(L + ": DALI crops every image (a pipeline's output size is fixed): p = " +
                                formatNumber(op.p) + " becomes 1.");
                w.push_back(L + ": DALI draws its crop windows with its own generator and rounding (the same "
                            "area and aspect ranges, 10 attempts).");
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


def _trunc(x):
    """Toward zero, as AugLab truncates shifts to whole pixels (the clamp is the sign of x)."""
    return dmath.floor(dmath.abs(x)) * dmath.clamp(x * 1e9, -1.0, 1.0)


def _inverse_affine(angle, sx, sy, shx, shy, tx, ty, width, height):
    """Destination -> source matrix of AugLab's M = T(c + t) Sh R S T(-c), c = (W/2, H/2) in DALI's
    coordinates (pixel centres at +0.5)."""
    c, s = dmath.cos(angle), dmath.sin(angle)
    # A = Sh @ R @ S (2 x 2)
    a00, a01 = (c - shx * s) * sx, (s + shx * c) * sy
    a10, a11 = (shy * c - s) * sx, (shy * s + c) * sy
    det = a00 * a11 - a01 * a10
    i00, i01, i10, i11 = a11 / det, -a01 / det, -a10 / det, a00 / det
    cx, cy = width * 0.5, height * 0.5
    # source = A^-1 (p - c - t) + c
    ox, oy = cx + tx, cy + ty
    return fn.stack(i00, i01, cx - i00 * ox - i01 * oy, i10, i11, cy - i10 * ox - i11 * oy)


@pipeline_def(batch_size=64, num_threads=4, device_id=0)
def auglab_pipeline(file_root):
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    shape = images.shape(dtype=types.FLOAT)
    height, width = shape[0], shape[1]
)";
    body += s + "    return images, labels\n";
    r.text = pythonHeader(preset, "dali", w) + body;
    return r;
}

}  // namespace auglab
