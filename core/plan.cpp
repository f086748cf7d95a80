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

/// numpy/Python floor division, as the notebook's -DIM//2.
int floorDiv(int a, int b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// The float32 matrix of the notebook's get_mat: R·SH·Z·SF, each product of 3x3 float32 matrices
/// summed in index order, multiply then add.
std::array<float, 9> deotteMatrix(const DeotteParams& d) {
    using M = std::array<float, 9>;
    auto mul = [](const M& a, const M& b) {
        M c{};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                float sum = a[i * 3] * b[j];
                sum = sum + a[i * 3 + 1] * b[3 + j];
                sum = sum + a[i * 3 + 2] * b[6 + j];
                c[i * 3 + j] = sum;
            }
        return c;
    };
    const float pi = 3.14159265358979323846f;
    const float rot = pi * static_cast<float>(d.rotation_deg) / 180.0f;
    const float shr = pi * static_cast<float>(d.shear_deg) / 180.0f;
    const float c1 = std::cos(rot), s1 = std::sin(rot), c2 = std::cos(shr), s2 = std::sin(shr);
    const M rotation{c1, s1, 0, -s1, c1, 0, 0, 0, 1};
    const M shear{1, s2, 0, 0, c2, 0, 0, 0, 1};
    const M zoom{1.0f / static_cast<float>(d.height_zoom), 0, 0, 0, 1.0f / static_cast<float>(d.width_zoom), 0, 0, 0, 1};
    const M shift{1, 0, static_cast<float>(d.height_shift_px), 0, 1, static_cast<float>(d.width_shift_px), 0, 0, 1};
    return mul(mul(rotation, shear), mul(zoom, shift));
}

/// The gather of a dim x dim frame rendered at outW x outH: output row y shows destination row
/// floor((y + 0.5) dim / outH) of the notebook's grid (itself at full size), likewise columns.
GatherStep deotteGather(const DeotteParams& d, int dim, int outW, int outH) {
    const std::array<float, 9> m = deotteMatrix(d);
    GatherStep g;
    g.dim = dim;
    g.lo = floorDiv(-dim, 2) + dim % 2 + 1;
    g.hi = dim / 2;
    g.m02 = m[2];
    g.m12 = m[5];
    for (int y = 0; y < outH; ++y) {
        const int row = std::min(dim - 1, static_cast<int>((static_cast<std::int64_t>(2 * y + 1) * dim) / (2 * outH)));
        const auto X = static_cast<float>(dim / 2 - row);  // tf.range(DIM//2, -DIM//2, -1)
        g.rowA0.push_back(m[0] * X);
        g.rowA1.push_back(m[3] * X);
    }
    for (int x = 0; x < outW; ++x) {
        const int col = std::min(dim - 1, static_cast<int>((static_cast<std::int64_t>(2 * x + 1) * dim) / (2 * outW)));
        const auto Y = static_cast<float>(floorDiv(-dim, 2) + col);  // tf.range(-DIM//2, DIM//2)
        g.colB0.push_back(m[1] * Y);
        g.colB1.push_back(m[4] * Y);
    }
    return g;
}

/// Builds a plan op by op. Geometric ops work in the "frame": the source image, or after a
/// random_resized_crop the crop at its output size; `pending_` maps source pixels to frame pixels.
/// The output (outW x outH) shows the final frame, scaled.
class PlanBuilder {
public:
    PlanBuilder(int srcW, int srcH, int outW, int outH, SourceSampling sampling)
        : srcW_(srcW), srcH_(srcH), frameW_(srcW), frameH_(srcH), outW_(outW), outH_(outH),
          levelScale_(std::min(static_cast<double>(outW) / srcW, static_cast<double>(outH) / srcH)),
          prefiltered_(sampling == SourceSampling::Prefiltered) {
        plan_.width = outW;
        plan_.height = outH;
    }

    int frameWidth() const { return frameW_; }
    int frameHeight() const { return frameH_; }

    void geometric(const Matrix3& forward) {
        pending_ = forward * pending_;
        hasPending_ = true;
    }

    void affine(const AffineParams& a) {
        geometric(affineMatrix(a, frameW_, frameH_));
        interpolation_ = a.interpolation;
        border_ = a.border;
        fill_ = a.fill;
        borderFromAffine_ = true;
    }

    /// The crop, resized: the frame becomes the output of the crop. Only before pixel ops.
    void crop(const CropParams& c) {
        if (!plan_.stages.empty())
            throw InputError("random_resized_crop must come before every pixel op and deotte_affine (it sets the "
                             "size the later ops work at)");
        // Crop pixel centres map as cv2.resize maps them: x' = (x - x0 + 0.5) * w'/w - 0.5.
        geometric(resizeMatrix(c.width, c.height, c.outWidth, c.outHeight) * Matrix3::translation(-c.x, -c.y));
        frameW_ = c.outWidth;
        frameH_ = c.outHeight;
        interpolation_ = c.interpolation;
        // cv2.resize repeats the crop's edge pixels; an affine before the crop keeps its own border.
        if (!borderFromAffine_) border_ = BorderMode::Replicate;
        // The source level is chosen for the crop's scale, not the whole image's.
        levelScale_ = std::min(static_cast<double>(outW_) / c.width, static_cast<double>(outH_) / c.height);
    }

    /// deotte_affine: a stage of its own (its nearest, truncated indices do not fuse with a matrix).
    void deotte(const DeotteParams& d) {
        if (frameW_ != frameH_)
            throw InputError("deotte_affine works on square images only; this one is " + std::to_string(frameW_) +
                             "x" + std::to_string(frameH_));
        // The notebook's clip range is empty for a 1x1 image (it would gather out of bounds): left as it is.
        if (frameW_ < 2) return;
        if (hasPending_) flushWarp();
        auto gather = std::make_shared<GatherStep>(deotteGather(d, frameW_, outW_, outH_));
        PlanStage stage;
        WarpStep& w = stage.warp;
        w.gather = std::move(gather);
        if (plan_.stages.empty()) {
            // Tiles read a pre-filtered level of the source, as a fused warp does.
            const int k = prefiltered_ ? SourceLevels::levelForScale(levelScale_, srcW_, srcH_) : 0;
            SourceLevels::levelSize(srcW_, srcH_, k, w.inputWidth, w.inputHeight);
            w.sourceLevel = k;
        } else {
            w.sourceLevel = -1;
            w.inputWidth = outW_;
            w.inputHeight = outH_;
        }
        plan_.stages.push_back(std::move(stage));
    }

    void pixel(PixelStep step) {
        flushWarp();
        plan_.stages.back().ops.push_back(std::move(step));
    }

    Plan finish() {
        if (plan_.stages.empty() || hasPending_) flushWarp();
        return std::move(plan_);
    }

    /// Output pixels per frame pixel (pixel ops scale their sizes with it).
    double sx() const { return static_cast<double>(outW_) / frameW_; }
    double sy() const { return static_cast<double>(outH_) / frameH_; }

private:
    void flushWarp() {
        if (!plan_.stages.empty() && !hasPending_) return;
        PlanStage stage;
        WarpStep& w = stage.warp;
        w.interpolation = interpolation_;
        w.border = border_;
        w.fill = fill_;
        const Matrix3 toOut = resizeMatrix(frameW_, frameH_, outW_, outH_);
        Matrix3 inverse;
        if (plan_.stages.empty()) {
            // Output pixel -> frame -> source full resolution -> pre-filtered level.
            const int k = prefiltered_ ? SourceLevels::levelForScale(levelScale_, srcW_, srcH_) : 0;
            int lw = 0, lh = 0;
            SourceLevels::levelSize(srcW_, srcH_, k, lw, lh);
            w.sourceLevel = k;
            w.inputWidth = lw;
            w.inputHeight = lh;
            inverse = levelMatrix(k) * pending_.inverse() * toOut.inverse();
        } else {
            w.sourceLevel = -1;
            w.inputWidth = outW_;
            w.inputHeight = outH_;
            inverse = toOut * pending_.inverse() * toOut.inverse();
        }
        w.inverse = affinePart(inverse);
        w.copy = inverse.isIdentity(1e-8) && w.inputWidth == outW_ && w.inputHeight == outH_;
        plan_.stages.push_back(std::move(stage));
        pending_ = Matrix3::identity();
        hasPending_ = false;
    }

    int srcW_, srcH_, frameW_, frameH_, outW_, outH_;
    double levelScale_;
    bool prefiltered_;  // tiles read a pre-filtered level; full-resolution outputs the source
    Matrix3 pending_;
    bool hasPending_ = false;
    // Interpolation, border and fill of a fused warp come from its affine ops (the last one wins)
    // or a crop; flips alone move whole pixels, for which nearest and linear agree.
    Interpolation interpolation_ = Interpolation::Linear;
    BorderMode border_ = BorderMode::Constant;
    Rgb fill_{0, 0, 0};
    bool borderFromAffine_ = false;
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

Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight,
               SourceSampling sampling) {
    if (replay.imageWidth != srcWidth || replay.imageHeight != srcHeight)
        throw InputError("the sample was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, but this image is " + std::to_string(srcWidth) +
                         "x" + std::to_string(srcHeight));
    if (outWidth <= 0 || outHeight <= 0) throw InputError("output size must be positive");
    PlanBuilder b(srcWidth, srcHeight, outWidth, outHeight, sampling);
    for (const ConcreteOp& op : replay.ops) {
        if (!op.applied) continue;
        switch (op.id) {
            case OpId::Affine: b.affine(std::get<AffineParams>(op.params)); break;
            case OpId::HorizontalFlip: b.geometric(horizontalFlipMatrix(b.frameWidth())); break;
            case OpId::VerticalFlip: b.geometric(verticalFlipMatrix(b.frameHeight())); break;
            case OpId::RandomResizedCrop: b.crop(std::get<CropParams>(op.params)); break;
            case OpId::DeotteAffine: b.deotte(std::get<DeotteParams>(op.params)); break;
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

Plan buildFullPlan(const Replay& replay, int srcWidth, int srcHeight) {
    int w = 0, h = 0;
    frameSize(replay, replay.ops.size(), w, h);
    return buildPlan(replay, srcWidth, srcHeight, w, h, SourceSampling::Source);
}

std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y) {
    return philox4x32({static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0x6e6f6973u, 0}, philoxKey(seed));
}

}  // namespace auglab
