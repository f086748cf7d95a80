#include "plan.h"

#include <cmath>
#include <string>

#include "error.h"
#include "geometry.h"
#include "philox.h"
#include "source_levels.h"

namespace auglab {

namespace {

std::array<double, 6> affinePart(const Matrix3& m) { return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2)}; }

class PlanBuilder {
public:
    PlanBuilder(int srcW, int srcH, int outW, int outH)
        : srcW_(srcW), srcH_(srcH), outW_(outW), outH_(outH), toOut_(resizeMatrix(srcW, srcH, outW, outH)),
          sx_(static_cast<double>(outW) / srcW), sy_(static_cast<double>(outH) / srcH) {
        plan_.width = outW;
        plan_.height = outH;
    }

    void geometric(const Matrix3& forward) {
        pending_ = forward * pending_;
        hasPending_ = true;
        pendingSettings(nullptr);
    }

    void affine(const AffineParams& a) {
        pending_ = affineMatrix(a, srcW_, srcH_) * pending_;
        hasPending_ = true;
        pendingSettings(&a);
    }

    void pixel(PixelStep step) {
        flushWarp();
        plan_.stages.back().ops.push_back(std::move(step));
    }

    Plan finish() {
        if (plan_.stages.empty() || hasPending_) flushWarp();
        return std::move(plan_);
    }

    double sx() const { return sx_; }
    double sy() const { return sy_; }

private:
    // Interpolation, border and fill of a fused warp come from its affine ops (the last one wins);
    // flips alone move whole pixels, for which nearest and linear agree.
    void pendingSettings(const AffineParams* a) {
        if (!a) return;
        interpolation_ = a->interpolation;
        border_ = a->border;
        fill_ = a->fill;
    }

    void flushWarp() {
        if (!plan_.stages.empty() && !hasPending_) return;
        PlanStage stage;
        WarpStep& w = stage.warp;
        w.interpolation = interpolation_;
        w.border = border_;
        w.fill = fill_;
        Matrix3 inverse;
        if (plan_.stages.empty()) {
            // Output pixel -> sample space -> source full resolution -> pre-filtered level.
            const int k = SourceLevels::levelForScale(std::min(sx_, sy_), srcW_, srcH_);
            int lw = 0, lh = 0;
            SourceLevels::levelSize(srcW_, srcH_, k, lw, lh);
            w.sourceLevel = k;
            w.inputWidth = lw;
            w.inputHeight = lh;
            inverse = resizeMatrix(srcW_, srcH_, lw, lh) * pending_.inverse() * toOut_.inverse();
        } else {
            w.sourceLevel = -1;
            w.inputWidth = outW_;
            w.inputHeight = outH_;
            inverse = toOut_ * pending_.inverse() * toOut_.inverse();
        }
        w.inverse = affinePart(inverse);
        w.copy = inverse.isIdentity(1e-8) && w.inputWidth == outW_ && w.inputHeight == outH_;
        plan_.stages.push_back(std::move(stage));
        pending_ = Matrix3::identity();
        hasPending_ = false;
    }

    int srcW_, srcH_, outW_, outH_;
    Matrix3 toOut_;
    double sx_, sy_;
    Matrix3 pending_;
    bool hasPending_ = false;
    Interpolation interpolation_ = Interpolation::Linear;
    BorderMode border_ = BorderMode::Constant;
    Rgb fill_{0, 0, 0};
    Plan plan_;
};

DropoutStep dropoutStep(const DropoutParams& d, double sx, double sy) {
    DropoutStep s;
    s.mode = d.fillMode;
    s.fill = d.fill;
    s.seed = d.noiseSeed;
    for (std::size_t i = 0; i < d.holes.size(); ++i) {
        const Hole& h = d.holes[i];
        // Scale hole edges, not sizes, so neighbouring holes stay adjacent in a tile.
        const int x0 = static_cast<int>(std::lround(h.x * sx)), x1 = static_cast<int>(std::lround((h.x + h.w) * sx));
        const int y0 = static_cast<int>(std::lround(h.y * sy)), y1 = static_cast<int>(std::lround((h.y + h.h) * sy));
        // A hole that covers no pixel at this size paints nothing: left out, so that GPU kernels,
        // which test every hole per pixel, do not pay for the fine grids of grid_dropout in tiles.
        if (x1 <= x0 || y1 <= y0) continue;
        s.holes.push_back(Hole{x0, y0, x1 - x0, y1 - y0});
        if (d.fillMode == Fill::Mode::RandomUniform && i < d.holeColours.size()) s.colours.push_back(d.holeColours[i]);
    }
    return s;
}

}  // namespace

Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight) {
    if (replay.imageWidth != srcWidth || replay.imageHeight != srcHeight)
        throw InputError("the sample was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, but this image is " + std::to_string(srcWidth) +
                         "x" + std::to_string(srcHeight));
    if (outWidth <= 0 || outHeight <= 0) throw InputError("output size must be positive");
    PlanBuilder b(srcWidth, srcHeight, outWidth, outHeight);
    for (const ConcreteOp& op : replay.ops) {
        if (!op.applied) continue;
        switch (op.id) {
            case OpId::Affine: b.affine(std::get<AffineParams>(op.params)); break;
            case OpId::HorizontalFlip: b.geometric(horizontalFlipMatrix(srcWidth)); break;
            case OpId::VerticalFlip: b.geometric(verticalFlipMatrix(srcHeight)); break;
            case OpId::CoarseDropout:
            case OpId::GridDropout: b.pixel(dropoutStep(std::get<DropoutParams>(op.params), b.sx(), b.sy())); break;
            case OpId::BrightnessContrast: {
                const auto& p = std::get<BrightnessContrastParams>(op.params);
                if (p.brightness_by_max) b.pixel(LutStep{brightnessContrastLut(contrastAlpha(p), brightnessBeta(p, 0))});
                else b.pixel(MeanBrightnessStep{contrastAlpha(p), p.brightness});
                break;
            }
            case OpId::HueSaturationValue: {
                HsvLuts luts = hsvLuts(std::get<HsvParams>(op.params));
                if (!luts.identity) b.pixel(HsvStep{luts});
                break;
            }
            case OpId::GaussianBlur: {
                // At tile scale the blur shrinks with the image, so the tile looks like the
                // full-resolution output scaled down.
                const double sigma = std::get<BlurParams>(op.params).sigma_px * 0.5 * (b.sx() + b.sy());
                const std::vector<double> k = gaussianKernel(sigma);
                if (k.size() > 1) b.pixel(BlurStep{std::vector<float>(k.begin(), k.end())});
                break;
            }
            case OpId::GaussNoise: {
                const auto& n = std::get<NoiseParams>(op.params);
                b.pixel(NoiseStep{static_cast<float>(n.mean_frac * 255.0), static_cast<float>(n.std_frac * 255.0),
                                  n.per_channel, n.noiseSeed});
                break;
            }
            case OpId::ToGray: b.pixel(GrayStep{}); break;
        }
    }
    return b.finish();
}

std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y) {
    return philox4x32({static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0x6e6f6973u, 0}, philoxKey(seed));
}

}  // namespace auglab
