// torchvision.transforms.v2 code. Conventions checked against torchvision's source and tests:
// - RandomAffine's forward matrix is T(c) T(t) R(a) S(s) ShY ShX T(-c) with R(a) = [[cos a, -sin a],
//   [sin a, cos a]] in image coordinates (y down): a positive angle turns clockwise on screen, so
//   AugLab's counter-clockwise degrees are negated (and the range bounds swapped). The centre is the
//   image centre in the same pixel-centre convention as AugLab's.
// - Its shear is applied before rotation and scale (AugLab/Albumentations shear after rotating),
//   its scale is one factor for both axes, its translate is a symmetric maximum fraction rounded
//   to whole pixels (AugLab truncates), and its border is a constant fill.
// - RandomErasing erases one rectangle chosen by area and aspect ratio.
// - ColorJitter's hue is a fraction of a turn applied in float HSV; its saturation and brightness
//   are factors, not AugLab's additive shifts of OpenCV's 8-bit S and V.
// Exact helpers are generated for brightness/contrast, Gaussian noise and gray, which torchvision has
// no exact equivalent for.

#include <algorithm>
#include <cmath>

#include "export_common.h"

namespace auglab {

namespace {

using namespace exporting;

std::string applyWithP(const std::string& t, double p) {
    if (p >= 1.0) return t;
    return "v2.RandomApply([" + t + "], p=" + pyFloat(p) + ")";
}

const char* kBrightnessContrastHelper = R"(

class BrightnessContrast(torch.nn.Module):
    """AugLab brightness_contrast: out = trunc(clip(v * (1 + c) + b * 255, 0, 255)) in float32."""

    def __init__(self, brightness, contrast, by_max=True):
        super().__init__()
        self.brightness, self.contrast, self.by_max = brightness, contrast, by_max

    def forward(self, img):  # uint8 tensor, C x H x W
        alpha = 1.0 + torch.empty(1).uniform_(*self.contrast).item()
        beta = torch.empty(1).uniform_(*self.brightness).item()
        beta *= 255.0 if self.by_max else img[:3].float().mean().item()
        out = img.float() * torch.tensor(alpha, dtype=torch.float32) + torch.tensor(beta, dtype=torch.float32)
        return out.clamp(0, 255).to(torch.uint8)  # truncation toward zero, as AugLab
)";

const char* kGrayHelper = R"(

class Gray(torch.nn.Module):
    """AugLab to_gray, OpenCV's RGB->GRAY in integers: (9798 R + 19235 G + 3735 B + 2^14) >> 15."""

    def forward(self, img):  # uint8 tensor, ... x C x H x W
        r, g, b = (img[..., i, :, :].int() for i in range(3))
        out = img.clone()
        out[..., :3, :, :] = ((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15).to(img.dtype).unsqueeze(-3)
        return out
)";

const char* kNoiseHelper = R"(

class GaussNoise(torch.nn.Module):
    """AugLab gauss_noise: adds trunc(N(mean * 255, std * 255)) per pixel, then clips."""

    def __init__(self, std, mean, per_channel=True):
        super().__init__()
        self.std, self.mean, self.per_channel = std, mean, per_channel

    def forward(self, img):  # uint8 tensor, C x H x W
        std = torch.empty(1).uniform_(*self.std).item() * 255.0
        mean = torch.empty(1).uniform_(*self.mean).item() * 255.0
        shape = img[:3].shape if self.per_channel else (1,) + img.shape[1:]
        noise = torch.trunc(torch.randn(shape) * std + mean)
        out = img.clone()
        out[:3] = (img[:3].float() + noise).clamp(0, 255).to(torch.uint8)
        return out
)";

}  // namespace

ExportResult exportTorchvision(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    std::string lines;
    bool needBc = false, needNoise = false, needGray = false;
    for (const ExportedOp& e : enabledOps(preset, "torchvision", w)) {
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (op.id()) {
            case OpId::Affine: {
                const Range rot = op.range("rotate_deg");
                const Range sx = op.range("scale_x"), tx = op.range("translate_x_frac"), ty = op.range("translate_y_frac");
                const Range shx = op.range("shear_x_deg"), shy = op.range("shear_y_deg");
                if (!op.flag("keep_ratio") && op.range("scale_y") != sx)
                    w.push_back(L + ": torchvision scales both axes by one factor: scale_x is used for both, scale_y [" +
                                formatNumber(op.range("scale_y").min) + ", " + formatNumber(op.range("scale_y").max) + "] is lost.");
                const auto symmetric = [&](const Range& t, const char* key) {
                    const double m = std::max(std::abs(t.min), std::abs(t.max));
                    if (t.min != -t.max)
                        w.push_back(L + ": torchvision translates within a symmetric range: " + key + " [" + formatNumber(t.min) +
                                    ", " + formatNumber(t.max) + "] becomes ±" + formatNumber(m) + ".");
                    return m;
                };
                const double mx = symmetric(tx, "translate_x_frac"), my = symmetric(ty, "translate_y_frac");
                if (mx > 0 || my > 0)
                    w.push_back(L + ": torchvision rounds the shift to whole pixels, AugLab truncates toward zero "
                                "(at most one pixel apart).");
                std::string shear = "None";
                if (shx != Range{0, 0} || shy != Range{0, 0}) {
                    // Appended piece by piece: "(" + std::string trips GCC 12's -Wrestrict false positive.
                    shear = "(";
                    shear += pyFloat(shx.min) + ", " + pyFloat(shx.max) + ", " + pyFloat(shy.min) + ", " + pyFloat(shy.max) + ")";
                    w.push_back(L + ": torchvision shears before rotating and scaling, AugLab after: with shear and "
                                "rotation together the images differ (each alone matches).");
                }
                const std::string border = op.choice("border");
                if (border != "constant")
                    w.push_back(L + ": torchvision fills outside the image with a constant: border \"" + border +
                                "\" becomes a constant fill of " + pyRgb(op.fill("fill")) + ".");
                const std::string interp = op.choice("interpolation") == "nearest" ? "NEAREST" : "BILINEAR";
                // torchvision's grid transform with a fill samples with zero padding and then blends the
                // fill in by the coverage it has already multiplied in (the edge pixels get coverage
                // squared). Without a fill (None) its zero padding is OpenCV's black constant border.
                const Fill fillValue = op.fill("fill");
                const bool black = fillValue.rgb[0] == 0 && fillValue.rgb[1] == 0 && fillValue.rgb[2] == 0;
                if (!black && interp == "BILINEAR")
                    w.push_back(L + ": torchvision blends a fill other than black into the warped image's edge "
                                "pixels by its coverage squared: a one-pixel band along the edge differs (up to 54 "
                                "levels on chelsea.png, measured); inside, within SPEC §2.");
                // A positive torchvision angle turns clockwise: negate AugLab's (counter-clockwise) range.
                const std::string t = "v2.RandomAffine(degrees=(" + pyFloat(-rot.max) + ", " + pyFloat(-rot.min) +
                                      "), translate=(" + pyFloat(mx) + ", " + pyFloat(my) + "), scale=" + pyRange(sx) +
                                      ", shear=" + shear + ", interpolation=v2.InterpolationMode." + interp +
                                      ", fill=" + (black ? std::string("None") : pyRgb(fillValue)) + ")";
                lines += "    # " + L + ": angle sign flipped (torchvision turns clockwise for positive angles)\n";
                lines += "    " + applyWithP(t, op.p) + ",\n";
                break;
            }
            case OpId::HorizontalFlip: lines += "    v2.RandomHorizontalFlip(p=" + pyFloat(op.p) + "),\n"; break;
            case OpId::VerticalFlip: lines += "    v2.RandomVerticalFlip(p=" + pyFloat(op.p) + "),\n"; break;
            case OpId::RandomResizedCrop: {
                const Size2 size = op.size("size");
                const std::string interp = op.choice("interpolation") == "nearest" ? "NEAREST" : "BILINEAR";
                const std::string t = "v2.RandomResizedCrop(size=(" + std::to_string(size.height) + ", " +
                                      std::to_string(size.width) + "), scale=" + pyRange(op.range("scale")) +
                                      ", ratio=" + pyRange(op.range("ratio")) +
                                      ", interpolation=v2.InterpolationMode." + interp + ", antialias=False)";
                lines += "    " + applyWithP(t, op.p) + ",\n";
                break;
            }
            case OpId::DeotteAffine:
                w.push_back(L + ": Chris Deotte's notebook transform (normal draws, truncated indices) has no torchvision "
                            "equivalent: not exported (the tf-deotte export has it).");
                lines += "    # " + L + ": not exported (see the warnings above)\n";
                break;
            case OpId::GridDropout:
                w.push_back(L + ": torchvision has no grid dropout: not exported (the albumentations export has it).");
                lines += "    # " + L + ": not exported (see the warnings above)\n";
                break;
            case OpId::CoarseDropout: {
                const Range holes = op.range("holes");
                w.push_back(L + ": approximated by RandomErasing, which erases exactly one rectangle (AugLab: " +
                            formatNumber(holes.min) + "-" + formatNumber(holes.max) + " holes), chosen by area and "
                            "aspect ratio instead of independent height and width.");
                std::string scale = "(0.0025, 0.01)", ratio = "(0.5, 2.0)";
                if (!op.has("hole_height_px")) {
                    const Range h = op.range("hole_height_frac"), wd = op.range("hole_width_frac");
                    scale = pyRange({h.min * wd.min, std::max(h.min * wd.min, h.max * wd.max)});
                    const double rmin = std::max(1e-3, h.min) / std::max(1e-3, wd.max), rmax = std::max(1e-3, h.max) / std::max(1e-3, wd.min);
                    ratio = pyRange({std::min(rmin, rmax), std::max(rmin, rmax)});
                    w.push_back(L + ": RandomErasing's ratio is height/width in pixels; with non-square images the "
                                "fractional sizes map only approximately.");
                } else {
                    w.push_back(L + ": hole sizes in pixels cannot be given to RandomErasing (it takes area fractions): "
                                "scale (0.0025, 0.01) is a placeholder; adjust it to your image size.");
                }
                const Fill f = op.fill("fill");
                std::string value = pyRgb(f);
                if (f.mode != Fill::Mode::Constant) {
                    value = "\"random\"";
                    if (f.mode == Fill::Mode::RandomUniform)
                        w.push_back(L + ": fill \"random_uniform\" (one colour per hole) becomes per-pixel noise.");
                }
                lines += "    v2.RandomErasing(p=" + pyFloat(op.p) + ", scale=" + scale + ", ratio=" + ratio +
                         ", value=" + value + "),  # " + L + " (approximation)\n";
                break;
            }
            case OpId::BrightnessContrast:
                needBc = true;
                lines += "    " + applyWithP("BrightnessContrast(brightness=" + pyRange(op.range("brightness")) +
                                     ", contrast=" + pyRange(op.range("contrast")) + ", by_max=" +
                                     (op.flag("brightness_by_max") ? "True" : "False") + ")", op.p) + ",\n";
                break;
            case OpId::HueSaturationValue: {
                const Range hue = op.range("hue_shift_deg");
                w.push_back(L + ": hue is exported as ColorJitter(hue=deg/360), a rotation in float HSV; AugLab "
                            "converts in 8 bits with OpenCV's 2-degree units (mean 0.4, max 3 levels apart for +30 degrees on "
                            "chelsea.png, measured).");
                if (op.range("sat_shift") != Range{0, 0} || op.range("val_shift") != Range{0, 0})
                    w.push_back(L + ": additive saturation and value shifts (OpenCV 0-255 units) cannot be expressed by "
                                "ColorJitter's factors: sat_shift and val_shift are not exported.");
                lines += "    " + applyWithP("v2.ColorJitter(hue=" + pyRange({hue.min / 360, hue.max / 360}) + ")", op.p) + ",\n";
                break;
            }
            case OpId::GaussianBlur: {
                const Range s = op.range("sigma_px");
                const int k = static_cast<int>(s.max * 3.5) * 2 + 1;
                if (s.min != s.max)
                    w.push_back(L + ": torchvision's kernel size is fixed (" + std::to_string(k) + ", from the largest "
                                "sigma); AugLab's grows with each sigma as int(sigma*3.5)*2+1.");
                lines += "    " + applyWithP("v2.GaussianBlur(kernel_size=" + std::to_string(k) + ", sigma=" +
                                     pyRange({std::max(1e-6, s.min), std::max(1e-6, s.max)}) + ")", op.p) + ",\n";
                break;
            }
            case OpId::GaussNoise:
                needNoise = true;
                lines += "    " + applyWithP("GaussNoise(std=" + pyRange(op.range("std_frac")) + ", mean=" +
                                     pyRange(op.range("mean_frac")) + ", per_channel=" +
                                     (op.flag("per_channel") ? "True" : "False") + ")", op.p) + ",\n";
                break;
            case OpId::ToGray:
                // torchvision's Grayscale truncates 0.2989 R + 0.587 G + 0.114 B (half the pixels a level
                // darker than OpenCV's rounded fixed point): an exact helper instead.
                needGray = true;
                lines += "    " + applyWithP("Gray()", op.p) + ",\n";
                break;
        }
    }
    std::string body = "import torch\nfrom torchvision.transforms import v2\n";
    if (needBc) body += kBrightnessContrastHelper;
    if (needNoise) body += kNoiseHelper;
    if (needGray) body += kGrayHelper;
    body += "\n\n# Expects uint8 image tensors (C x H x W, RGB), e.g. from torchvision.io.decode_image.\n";
    body += "transform = v2.Compose([\n" + lines + "])\n";
    r.text = pythonHeader(preset, "torchvision", w) + body;
    return r;
}

}  // namespace auglab
