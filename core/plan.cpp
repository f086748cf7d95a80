#include "plan.h"

#include <cmath>
#include <string>

#include "error.h"
#include "ops/op_module.h"
#include "philox.h"
#include "plan_builder.h"
#include "source_levels.h"

namespace auglab {

namespace {

std::array<double, 6> affinePart(const Matrix3& m) {
    return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2)};
}

}  // namespace

PlanBuilder::PlanBuilder(int srcW, int srcH, int outW, int outH, SourceSampling sampling)
    : srcW_(srcW),
      srcH_(srcH),
      frameW_(srcW),
      frameH_(srcH),
      outW_(outW),
      outH_(outH),
      levelScale_(std::min(static_cast<double>(outW) / srcW, static_cast<double>(outH) / srcH)),
      prefiltered_(sampling == SourceSampling::Prefiltered) {
    plan_.width = outW;
    plan_.height = outH;
}

PlanBuilder PlanBuilder::forMasks(int srcW, int srcH, int outW, int outH, int maskFill, int level) {
    PlanBuilder b(srcW, srcH, outW, outH, SourceSampling::Source);
    b.masks_ = true;
    b.maskLevel_ = level;
    b.maskFill_ = static_cast<std::uint8_t>(maskFill);
    b.interpolation_ = Interpolation::Nearest;
    b.fill_ = {b.maskFill_, b.maskFill_, b.maskFill_};
    return b;
}

void PlanBuilder::geometric(const Matrix3& forward) {
    pending_ = forward * pending_;
    hasPending_ = true;
}

void PlanBuilder::resampling(Interpolation interpolation, BorderMode border, const Rgb& fill) {
    interpolation_ = masks_ ? Interpolation::Nearest : interpolation;
    border_ = border;
    fill_ = masks_ ? Rgb{maskFill_, maskFill_, maskFill_} : fill;
    borderSet_ = true;
}

void PlanBuilder::newFrame(const Matrix3& forward, int newW, int newH, int regionW, int regionH,
                           Interpolation interpolation, bool resize) {
    // cv2.resize's INTER_NEAREST reads source pixel floor(x * region / new): the centre-aligned map
    // moved by half an output pixel, so that the warp's rounding (half up) gives that floor.
    geometric(masks_ && resize ? Matrix3::translation(0.5, 0.5) * forward : forward);
    frameW_ = newW;
    frameH_ = newH;
    interpolation_ = masks_ ? Interpolation::Nearest : interpolation;
    // cv2.resize repeats the region's edge pixels; an op before it that set a border keeps its own.
    if (!borderSet_) border_ = BorderMode::Replicate;
    // The source level is chosen for the region's scale, not the whole image's.
    levelScale_ = std::min(static_cast<double>(outW_) / regionW, static_cast<double>(outH_) / regionH);
}

void PlanBuilder::gatherStage(std::shared_ptr<const GatherStep> gather) {
    if (hasPending_) flushWarp();
    PlanStage stage;
    WarpStep& w = stage.warp;
    w.gather = std::move(gather);
    if (plan_.stages.empty()) {
        // Tiles read a pre-filtered level of the source, as a fused warp does.
        const int k = masks_         ? maskLevel_
                      : prefiltered_ ? SourceLevels::levelForScale(levelScale_, srcW_, srcH_)
                                     : 0;
        SourceLevels::levelSize(srcW_, srcH_, k, w.inputWidth, w.inputHeight);
        w.sourceLevel = k;
    } else {
        w.sourceLevel = -1;
        w.inputWidth = outW_;
        w.inputHeight = outH_;
    }
    plan_.stages.push_back(std::move(stage));
}

void PlanBuilder::pixel(PixelStep step) {
    if (masks_) return;
    flushWarp();
    plan_.stages.back().ops.push_back(std::move(step));
}

Plan PlanBuilder::finish() {
    if (plan_.stages.empty() || hasPending_) flushWarp();
    return std::move(plan_);
}

void PlanBuilder::flushWarp() {
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
        const int k = masks_         ? maskLevel_
                      : prefiltered_ ? SourceLevels::levelForScale(levelScale_, srcW_, srcH_)
                                     : 0;
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
    // A projective map leaves a last row other than (0, 0, 1): the stage is then a projective warp.
    w.projective = std::abs(inverse(2, 0)) > 1e-15 || std::abs(inverse(2, 1)) > 1e-15 ||
                   std::abs(inverse(2, 2) - 1.0) > 1e-12;
    if (w.projective)
        w.homography = inverse.m;
    else
        w.inverse = affinePart(inverse);
    w.copy = !w.projective && inverse.isIdentity(1e-8) && w.inputWidth == outW_ && w.inputHeight == outH_;
    plan_.stages.push_back(std::move(stage));
    pending_ = Matrix3::identity();
    hasPending_ = false;
}

Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight,
               SourceSampling sampling) {
    if (replay.imageWidth != srcWidth || replay.imageHeight != srcHeight)
        throw InputError("the sample was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, but this image is " +
                         std::to_string(srcWidth) + "x" + std::to_string(srcHeight));
    if (outWidth <= 0 || outHeight <= 0) throw InputError("output size must be positive");
    PlanBuilder b(srcWidth, srcHeight, outWidth, outHeight, sampling);
    for (const ConcreteOp& op : replay.ops) {
        if (!op.applied) continue;
        opModule(op.id).lower(op.params, b);
    }
    return b.finish();
}

Plan buildFullPlan(const Replay& replay, int srcWidth, int srcHeight) {
    int w = 0, h = 0;
    frameSize(replay, replay.ops.size(), w, h);
    return buildPlan(replay, srcWidth, srcHeight, w, h, SourceSampling::Source);
}

std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y) {
    return philox4x32({static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0x6e6f6973u, 0},
                      philoxKey(seed));
}

}  // namespace auglab
