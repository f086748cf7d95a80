#include "plan.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cpu/noise_rows.h"
#include "cpu/remap_rows.h"
#include "error.h"
#include "ops/op_module.h"
#include "philox.h"
#include "plan_builder.h"
#include "shared_maths.h"
#include "source_levels.h"
#include "warp_fixed_point.h"

namespace auglab {

namespace {

std::array<double, 6> affinePart(const Matrix3& m) {
    return {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2)};
}

}  // namespace

ChannelMatrixStep ChannelMatrixStep::fromFloat(const std::array<float, 9>& m) {
    // cv::transform's 8-bit path: saturate_cast<short>(m * 1024), i.e. rounded half to even.
    ChannelMatrixStep s;
    for (std::size_t i = 0; i < 9; ++i)
        s.m[i] = static_cast<std::int32_t>(
            std::clamp(std::nearbyint(m[i] * static_cast<float>(1 << kShift)), -32768.0f, 32767.0f));
    return s;
}

PlanBuilder::PlanBuilder(int srcW, int srcH, int outW, int outH, SourceSampling sampling, int finalW,
                         int finalH)
    : srcW_(srcW),
      srcH_(srcH),
      frameW_(srcW),
      frameH_(srcH),
      outW_(outW),
      outH_(outH),
      finalW_(finalW > 0 ? finalW : srcW),
      finalH_(finalH > 0 ? finalH : srcH),
      prefiltered_(sampling == SourceSampling::Prefiltered) {
    plan_.width = outW;
    plan_.height = outH;
}

PlanBuilder PlanBuilder::forMasks(int srcW, int srcH, int outW, int outH, int maskFill, int level, int finalW,
                                  int finalH) {
    PlanBuilder b(srcW, srcH, outW, outH, SourceSampling::Source, finalW, finalH);
    b.masks_ = true;
    b.maskLevel_ = level;
    b.maskFill_ = static_cast<std::uint8_t>(maskFill);
    b.interpolation_ = Interpolation::Nearest;
    b.fill_ = {b.maskFill_, b.maskFill_, b.maskFill_};
    return b;
}

int PlanBuilder::stageSize(int frame, int out, int final) const {
    // The final frame fills the output exactly; the others keep the output's scale, but a scale
    // above 1 (a tile larger than the final frame) enlarges them only up to the output's size.
    if (frameW_ == finalW_ && frameH_ == finalH_) return out;
    const double scale = static_cast<double>(out) / final;
    long size = std::lround(frame * scale);
    if (scale > 1) size = std::min<long>(size, std::max(frame, out));
    return static_cast<int>(std::max<long>(1, size));
}

int PlanBuilder::stageWidth() const {
    return stageSize(frameW_, outW_, finalW_);
}

int PlanBuilder::stageHeight() const {
    return stageSize(frameH_, outH_, finalH_);
}

void PlanBuilder::geometric(const Matrix3& forward) {
    pending_ = forward * pending_;
    hasPending_ = true;
    pendingResize_.reset();  // anything composed with a resize is a warp
}

void PlanBuilder::resampling(Interpolation interpolation, BorderMode border, const Rgb& fill) {
    interpolation_ = masks_ ? Interpolation::Nearest : interpolation;
    border_ = border;
    fill_ = masks_ ? Rgb{maskFill_, maskFill_, maskFill_} : fill;
    borderSet_ = true;
}

void PlanBuilder::newFrame(const Matrix3& forward, int newW, int newH, int regionW, int regionH,
                           Interpolation interpolation, bool resize, int regionX, int regionY) {
    // cv2.resize's INTER_NEAREST reads source pixel floor(x * region / new): the centre-aligned map
    // moved by half an output pixel, so that the warp's rounding (half up) gives that floor.
    const bool nearest = masks_ || interpolation == Interpolation::Nearest;
    const bool alone = !hasPending_;
    geometric(nearest && resize ? Matrix3::translation(0.5, 0.5) * forward : forward);
    // Alone in its warp, a nearest resize picks exactly the pixels OpenCV's resizeNN picks; a
    // linear one of a part of the frame reads that part only, repeating its edge (WarpStep::window).
    if (alone && nearest && resize)
        pendingResize_ = WarpStep::NearestRegion{regionX, regionY, regionW, regionH};
    if (alone && !nearest && resize && (regionX != 0 || regionY != 0 || regionW != frameW_ || regionH != frameH_))
        pendingWindow_ = PixelRect{regionX, regionY, regionW, regionH};
    frameW_ = newW;
    frameH_ = newH;
    interpolation_ = masks_ ? Interpolation::Nearest : interpolation;
    // cv2.resize repeats the region's edge pixels; an op before it (in the same warp) that set a
    // border keeps its own.
    if (!borderSet_) border_ = BorderMode::Replicate;
    // The first stage's source level is chosen for the region's scale, not the whole image's.
    srcPerFrameX_ *= static_cast<double>(regionW) / newW;
    srcPerFrameY_ *= static_cast<double>(regionH) / newH;
}

void PlanBuilder::resizeByFactors(double fx, double fy, int newW, int newH, Interpolation interpolation) {
    // Centre-aligned: source x = (x + 0.5) / fx - 0.5.
    const Matrix3 forward{{fx, 0, 0.5 * fx - 0.5, 0, fy, 0.5 * fy - 0.5, 0, 0, 1}};
    newFrame(forward, newW, newH, frameW_, frameH_, interpolation);
    if (pendingResize_) {
        pendingResize_->ifx = 1.0 / fx;
        pendingResize_->ify = 1.0 / fy;
    }
}

void PlanBuilder::wholePixelFrame(const Matrix3& forward, int newW, int newH, bool swapsAxes) {
    geometric(forward);  // (a resize pending before it is no longer alone)
    frameW_ = newW;
    frameH_ = newH;
    if (swapsAxes) std::swap(srcPerFrameX_, srcPerFrameY_);
}

void PlanBuilder::window(int dx, int dy, int newW, int newH, BorderMode border, const Rgb& fill) {
    const bool outside = dx > 0 || dy > 0 || newW - dx > frameW_ || newH - dy > frameH_;
    if (outside && hasPending_) flushWarp();
    geometric(Matrix3::translation(dx, dy));
    frameW_ = newW;
    frameH_ = newH;
    if (!outside) return;
    border_ = border;
    fill_ = masks_ ? Rgb{maskFill_, maskFill_, maskFill_} : fill;
    borderSet_ = true;
    flushWarp();
}

void PlanBuilder::gatherStage(std::shared_ptr<const GatherStep> gather) {
    if (hasPending_) flushWarp();
    PlanStage stage;
    WarpStep& w = stage.warp;
    w.gather = std::move(gather);
    stage.width = stageWidth();
    stage.height = stageHeight();
    if (plan_.stages.empty()) {
        // Tiles read a pre-filtered level of the source, as a fused warp does.
        const int k = firstLevel(stage.width, stage.height);
        SourceLevels::levelSize(srcW_, srcH_, k, w.inputWidth, w.inputHeight);
        w.sourceLevel = k;
    } else {
        w.sourceLevel = -1;
        w.inputWidth = plan_.stages.back().width;
        w.inputHeight = plan_.stages.back().height;
    }
    lastFrameW_ = frameW_;
    lastFrameH_ = frameH_;
    plan_.stages.push_back(std::move(stage));
}

WarpStep& PlanBuilder::beginRemap(PlanStage& stage, Interpolation interpolation, BorderMode border,
                                   const Rgb& fill) {
    WarpStep& w = stage.warp;
    w.interpolation = masks_ ? Interpolation::Nearest : interpolation;
    w.border = border;
    w.fill = masks_ ? Rgb{maskFill_, maskFill_, maskFill_} : fill;
    // The frame's image first: the source itself when the remap is the first thing at full
    // resolution, otherwise the pending warp's (or a pre-filtered level's) stage.
    if (!plan_.stages.empty() || hasPending_ || firstLevel(stage.width, stage.height) != 0 ||
        stage.width != srcW_ || stage.height != srcH_ || frameW_ != srcW_ || frameH_ != srcH_) {
        if (plan_.stages.empty() && !hasPending_) hasPending_ = true;  // an identity warp to a stage
        flushWarp();
        w.sourceLevel = -1;
        w.inputWidth = plan_.stages.back().width;
        w.inputHeight = plan_.stages.back().height;
    } else {
        w.sourceLevel = 0;
        w.inputWidth = srcW_;
        w.inputHeight = srcH_;
    }
    return w;
}

void PlanBuilder::endRemap(PlanStage& stage, std::shared_ptr<RemapMap> map) {
    WarpStep& w = stage.warp;
    const bool nearest = w.interpolation == Interpolation::Nearest;
    const std::size_t n = static_cast<std::size_t>(stage.width) * stage.height;
    const int frac = nearest ? 0 : (1 << kWarpInterBits) - 1, shift = nearest ? 0 : kWarpInterBits;
    bool whole = true;
    if (!map->tiles.empty()) {
        for (const RemapMap::Tile& t : map->tiles)
            whole &= t.x + t.dx >= 0 && t.y + t.dy >= 0 && t.x + t.dx + t.w <= w.inputWidth &&
                     t.y + t.dy + t.h <= w.inputHeight;
    } else {
        // Without an early exit, so that the loop vectorises: a whole map is read to its end anyway.
        const int* xy = map->xy.data();
        for (std::size_t i = 0; i < n; ++i) {
            const int px = xy[2 * i], py = xy[2 * i + 1];
            whole &= ((px | py) & frac) == 0 && px >= 0 && py >= 0 && (px >> shift) < w.inputWidth &&
                     (py >> shift) < w.inputHeight;
        }
    }
    map->whole = whole;
    w.projective = true;
    w.remap = std::move(map);
    lastFrameW_ = frameW_;
    lastFrameH_ = frameH_;
    plan_.stages.push_back(std::move(stage));
    borderSet_ = false;
}

void PlanBuilder::remapStageTiles(std::vector<RemapMap::Tile> tiles, Interpolation interpolation, BorderMode border,
                                  const Rgb& fill) {
    PlanStage stage;
    stage.width = stageWidth();
    stage.height = stageHeight();
    std::size_t area = 0;
    for (const RemapMap::Tile& t : tiles) {
        if (t.x < 0 || t.y < 0 || t.w <= 0 || t.h <= 0 || t.x + t.w > stage.width || t.y + t.h > stage.height ||
            std::abs(t.dx) > 32767 || std::abs(t.dy) > 32767)
            throw RuntimeError("remap: a tile outside the " + std::to_string(stage.width) + "x" +
                               std::to_string(stage.height) + " stage");
        area += std::size_t(t.w) * std::size_t(t.h);
    }
    if (area != std::size_t(stage.width) * std::size_t(stage.height))
        throw RuntimeError("remap: tiles that do not cover the stage once");
    const WarpStep& w = beginRemap(stage, interpolation, border, fill);
    auto map = std::make_shared<RemapMap>();
    map->width = stage.width;
    map->height = stage.height;
    map->tiles = std::move(tiles);
    map->unit = w.interpolation == Interpolation::Nearest ? 1 : 1 << kWarpInterBits;
    endRemap(stage, std::move(map));
}

const std::vector<int>& RemapMap::positions() const {
    if (tiles.empty()) return xy;
    std::call_once(made_->once, [&] {
        std::vector<int>& out = made_->xy;
        out.assign(2 * std::size_t(width) * std::size_t(height), 0);
        for (const Tile& t : tiles)
            for (int y = t.y; y < t.y + t.h; ++y) {
                int* o = out.data() + 2 * (std::size_t(y) * std::size_t(width) + std::size_t(t.x));
                for (int x = t.x; x < t.x + t.w; ++x, o += 2) {
                    o[0] = std::clamp(x + t.dx, -32768, 32767) * unit;
                    o[1] = std::clamp(y + t.dy, -32768, 32767) * unit;
                }
            }
    });
    return made_->xy;
}

void PlanBuilder::remapStage(const std::vector<float>& mapX, const std::vector<float>& mapY,
                             Interpolation interpolation, BorderMode border, const Rgb& fill) {
    PlanStage stage;
    stage.width = stageWidth();
    stage.height = stageHeight();
    const std::size_t n = static_cast<std::size_t>(stage.width) * stage.height;
    if (mapX.size() != n || mapY.size() != n)
        throw RuntimeError("remap: maps of " + std::to_string(mapX.size()) + " pixels for a " +
                           std::to_string(stage.width) + "x" + std::to_string(stage.height) + " stage");
    const WarpStep& w = beginRemap(stage, interpolation, border, fill);
    // cv2.remap (RemapInvoker): cvRound of the map (times INTER_TAB_SIZE for linear), the integer
    // part saturated to a short (cpu::remapPosition; vectorised).
    auto map = std::make_shared<RemapMap>();
    map->width = stage.width;
    map->height = stage.height;
    map->xy.resize(2 * n);
    cpu::remapPositions(mapX.data(), mapY.data(), n,
                        w.interpolation == Interpolation::Nearest ? 0 : kWarpInterBits, map->xy.data());
    endRemap(stage, std::move(map));
}

int PlanBuilder::firstLevel(int stageW, int stageH) const {
    if (masks_) return maskLevel_;
    if (!prefiltered_) return 0;
    // Stage pixels per source pixel, the smaller of the two axes.
    const double scale = std::min(static_cast<double>(stageW) / frameW_ / srcPerFrameX_,
                                  static_cast<double>(stageH) / frameH_ / srcPerFrameY_);
    return SourceLevels::levelForScale(scale, srcW_, srcH_);
}

void PlanBuilder::pixel(PixelStep step) {
    if (masks_) return;
    flushWarp();
    std::vector<PixelStep>& ops = plan_.stages.back().ops;
    // Tables in a row (brightness, then gamma, then a channel shift...) compose into one: each
    // channel's value through the first table and then the second is one lookup of their
    // composition, exactly, on every backend.
    if (auto* next = std::get_if<LutStep>(&step); next && !ops.empty()) {
        if (auto* last = std::get_if<LutStep>(&ops.back())) {
            for (std::size_t c = 0; c < 3; ++c)
                for (std::uint8_t& v : last->luts[c]) v = next->luts[c][v];
            return;
        }
    }
    ops.push_back(std::move(step));
}

Plan PlanBuilder::finish() {
    if (plan_.stages.empty() || hasPending_) flushWarp();
    if (frameW_ != lastFrameW_ || frameH_ != lastFrameH_ || plan_.stages.back().width != outW_ ||
        plan_.stages.back().height != outH_)
        throw RuntimeError("plan: the last stage is " + std::to_string(plan_.stages.back().width) + "x" +
                           std::to_string(plan_.stages.back().height) + ", not the output's " +
                           std::to_string(outW_) + "x" + std::to_string(outH_) +
                           " (the final frame given to the builder is not the last op's)");
    return std::move(plan_);
}

void PlanBuilder::flushWarp() {
    if (!plan_.stages.empty() && !hasPending_) return;
    PlanStage stage;
    WarpStep& w = stage.warp;
    w.interpolation = interpolation_;
    w.border = border_;
    w.fill = fill_;
    stage.width = stageWidth();
    stage.height = stageHeight();
    const Matrix3 toStage = resizeMatrix(frameW_, frameH_, stage.width, stage.height);
    Matrix3 inverse;
    if (plan_.stages.empty()) {
        // Stage pixel -> frame -> source full resolution -> pre-filtered level.
        const int k = firstLevel(stage.width, stage.height);
        SourceLevels::levelSize(srcW_, srcH_, k, w.inputWidth, w.inputHeight);
        w.sourceLevel = k;
        inverse = levelMatrix(k) * pending_.inverse() * toStage.inverse();
    } else {
        // Stage pixel -> frame -> the last stage's frame -> the last stage's pixels.
        const PlanStage& last = plan_.stages.back();
        w.sourceLevel = -1;
        w.inputWidth = last.width;
        w.inputHeight = last.height;
        inverse = resizeMatrix(lastFrameW_, lastFrameH_, last.width, last.height) * pending_.inverse() *
                  toStage.inverse();
    }
    // A projective map leaves a last row other than (0, 0, 1): the stage is then a projective warp.
    w.projective = std::abs(inverse(2, 0)) > 1e-15 || std::abs(inverse(2, 1)) > 1e-15 ||
                   std::abs(inverse(2, 2) - 1.0) > 1e-12;
    if (w.projective)
        w.homography = inverse.m;
    else
        w.inverse = affinePart(inverse);
    w.copy = !w.projective && inverse.isIdentity(1e-8) && w.inputWidth == stage.width &&
             w.inputHeight == stage.height;
    // The exact resize needs the stage at its frame's scale, reading the frame it resizes at full size.
    const int fromW = plan_.stages.empty() ? srcW_ : lastFrameW_,
              fromH = plan_.stages.empty() ? srcH_ : lastFrameH_;
    if (pendingResize_ && w.interpolation == Interpolation::Nearest && stage.width == frameW_ &&
        stage.height == frameH_ && w.inputWidth == fromW && w.inputHeight == fromH)
        w.nearestResize = pendingResize_;
    pendingResize_.reset();
    // The crop window, in the input's pixels where the input is at its frame's scale (full
    // resolution; a tile's pre-filtered level is not): positions become relative to it.
    if (pendingWindow_ && w.interpolation == Interpolation::Linear && w.inputWidth == fromW &&
        w.inputHeight == fromH && PixelRect{0, 0, fromW, fromH}.contains(*pendingWindow_)) {
        w.window = *pendingWindow_;
        const Matrix3 relative = Matrix3::translation(-w.window.x, -w.window.y) * inverse;
        if (w.projective)
            w.homography = relative.m;
        else
            w.inverse = affinePart(relative);
        w.copy = false;
    }
    pendingWindow_.reset();
    lastFrameW_ = frameW_;
    lastFrameH_ = frameH_;
    plan_.stages.push_back(std::move(stage));
    pending_ = Matrix3::identity();
    hasPending_ = false;
    // The next warp's ops set their own border; a resize among them repeats the edge (newFrame).
    borderSet_ = false;
}

Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight,
               SourceSampling sampling) {
    if (replay.imageWidth != srcWidth || replay.imageHeight != srcHeight)
        throw InputError("the sample was drawn for a " + std::to_string(replay.imageWidth) + "x" +
                         std::to_string(replay.imageHeight) + " image, but this image is " +
                         std::to_string(srcWidth) + "x" + std::to_string(srcHeight));
    if (outWidth <= 0 || outHeight <= 0) throw InputError("output size must be positive");
    int finalW = 0, finalH = 0;
    frameSize(replay, replay.ops.size(), finalW, finalH);
    PlanBuilder b(srcWidth, srcHeight, outWidth, outHeight, sampling, finalW, finalH);
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

bool planIsCopy(const Plan& plan, int srcWidth, int srcHeight) {
    if (plan.stages.size() != 1) return false;
    const PlanStage& s = plan.stages.front();
    const WarpStep& w = s.warp;
    return s.ops.empty() && w.copy && !w.projective && !w.gather && !w.remap && w.sourceLevel == 0 &&
           s.width == srcWidth && s.height == srcHeight && w.inputWidth == srcWidth && w.inputHeight == srcHeight;
}

std::optional<PixelRect> planSourceRegion(const Plan& plan, int srcWidth, int srcHeight) {
    if (plan.stages.empty() || srcWidth <= 0 || srcHeight <= 0) return std::nullopt;
    for (const PlanStage& stage : plan.stages)
        for (const PixelStep& step : stage.ops)
            if (std::holds_alternative<MixStep>(step)) return std::nullopt;
    const PlanStage& first = plan.stages.front();
    const WarpStep& w = first.warp;
    if (w.copy || w.gather || w.remap || w.sourceLevel != 0 || w.inputWidth != srcWidth ||
        w.inputHeight != srcHeight || first.width <= 0 || first.height <= 0)
        return std::nullopt;
    // An affine map takes the output rectangle to a parallelogram, a projective one whose
    // denominator keeps its sign over it to a convex quadrilateral: the corners bound every
    // position. Corners one pixel outside the output cover the half-pixel conventions.
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (const double cy : {-1.0, static_cast<double>(first.height)})
        for (const double cx : {-1.0, static_cast<double>(first.width)}) {
            double sx = 0, sy = 0;
            if (w.projective) {
                const auto& h = w.homography;
                const double d = h[6] * cx + h[7] * cy + h[8];
                if (!(d > 0)) return std::nullopt;
                sx = (h[0] * cx + h[1] * cy + h[2]) / d;
                sy = (h[3] * cx + h[4] * cy + h[5]) / d;
            } else {
                const auto& m = w.inverse;
                sx = m[0] * cx + m[1] * cy + m[2];
                sy = m[3] * cx + m[4] * cy + m[5];
            }
            x0 = std::min(x0, sx), x1 = std::max(x1, sx), y0 = std::min(y0, sy), y1 = std::max(y1, sy);
        }
    // The taps of a linear sample are floor(p) and floor(p) + 1, a nearest one's round(p); positions
    // are fixed point (1/32, 1/1024 pixel) or double: 4 pixels cover both with room.
    constexpr double margin = 4;
    const double limit = 4.0 * std::max(srcWidth, srcHeight);
    if (!(x0 > -limit && y0 > -limit && x1 < limit && y1 < limit)) return std::nullopt;  // NaN too
    // Positions are relative to the window the warp reads, where it has one: its edges are the
    // image's for the border rule.
    const PixelRect within = w.window.empty() ? PixelRect{0, 0, srcWidth, srcHeight} : w.window;
    const int left = static_cast<int>(std::floor(x0 - margin)), top = static_cast<int>(std::floor(y0 - margin));
    const int right = static_cast<int>(std::ceil(x1 + margin)) + 1, bottom = static_cast<int>(std::ceil(y1 + margin)) + 1;
    const bool outside = left < 0 || top < 0 || right > within.width || bottom > within.height;
    if (outside && w.border != BorderMode::Constant && w.border != BorderMode::Replicate)
        return w.window.empty() ? std::nullopt : std::optional<PixelRect>(w.window);  // reflected within it
    PixelRect r;
    r.x = within.x + std::clamp(left, 0, within.width - 1);
    r.y = within.y + std::clamp(top, 0, within.height - 1);
    r.width = within.x + std::clamp(right, r.x - within.x + 1, within.width) - r.x;
    r.height = within.y + std::clamp(bottom, r.y - within.y + 1, within.height) - r.y;
    return r;
}

std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y) {
    return philox4x32({static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0x6e6f6973u, 0},
                      philoxKey(seed));
}

IsoNoise::IsoNoise(std::uint64_t seed, double lambda)
    : seed_(seed), lambda_(lambda), p0_(std::exp(-lambda)) {}

IsoNoiseSample IsoNoise::at(int x, int y) const {
    const auto w = pixelNoiseWords(seed_, x, y);
    return {shared::isoNoiseCount(w[0], lambda_, p0_), boxMullerFirst(w[2], w[3])};
}

double isoNoiseLambda(const Image& img, double intensity) {
    // L depends on a pixel's 8-bit maximum and minimum only: count those pairs, then sum.
    std::vector<std::uint64_t> pairs(256 * 256, 0);
    for (int y = 0; y < img.height; ++y) {
        const std::uint8_t* p = img.row(y);
        for (int x = 0; x < img.width; ++x, p += img.channels)
            ++pairs[std::size_t(std::max({p[0], p[1], p[2]})) * 256 + std::min({p[0], p[1], p[2]})];
    }
    return shared::isoNoiseLambda(pairs.data(), double(img.width) * img.height, intensity);
}

void pixelDropRow(const PixelDropoutStep& s, int y, int x0, int n, std::uint8_t* drop) {
    const PhiloxKey key = philoxKey(s.seed);
    const auto below = [&](std::uint32_t w) { return static_cast<std::uint8_t>(w < s.threshold ? 1 : 0); };
    const auto row = static_cast<std::uint32_t>(y);
    if (s.perChannel) {
        for (int i = 0; i < n; ++i) {
            const PhiloxCounter w = philox4x32({static_cast<std::uint32_t>(x0 + i), row, 1, 0}, key);
            for (int c = 0; c < 3; ++c) drop[3 * i + c] = below(w[static_cast<std::size_t>(c)]);
        }
        return;
    }
    PhiloxCounter w{};
    std::uint32_t block = UINT32_MAX;
    for (int i = 0; i < n; ++i) {
        const auto x = static_cast<std::uint32_t>(x0 + i);
        if (x / 4 != block) {
            block = x / 4;
            w = philox4x32({block, row, 0, 0}, key);
        }
        drop[3 * i] = drop[3 * i + 1] = drop[3 * i + 2] = below(w[x % 4]);
    }
}

void pixelKeyRow(std::uint64_t seed, int y, int x0, int n, std::uint32_t* keys) {
    const PhiloxKey key = philoxKey(seed);
    PhiloxCounter w{};
    std::uint32_t block = UINT32_MAX;
    for (int i = 0; i < n; ++i) {
        const auto x = static_cast<std::uint32_t>(x0 + i);
        if (x / 4 != block) {
            block = x / 4;
            w = philox4x32({block, static_cast<std::uint32_t>(y), 0, 0}, key);
        }
        keys[i] = w[x % 4];
    }
}

SaltPepperStep saltPepperStep(std::uint64_t seed, int width, int height, std::uint64_t salt, std::uint64_t pepper) {
    SaltPepperStep s;
    s.seed = seed;
    const std::uint64_t area = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
    const std::uint64_t ranks[2] = {std::min(salt, area), std::min(salt + pepper, area)};
    constexpr std::uint64_t kAll = std::uint64_t{1} << 32;
    // The threshold of rank r: the r-th smallest key (0-based), all keys below it being the r smallest.
    std::uint64_t* thresholds[2] = {&s.saltBelow, &s.pepperBelow};
    if (ranks[0] == 0 && ranks[1] == 0) return s;
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(width));
    std::vector<std::uint64_t> histogram(65536, 0);
    for (int y = 0; y < height; ++y) {
        cpu::pixelKeys(seed, 0, y, keys.size(), keys.data());
        for (std::uint32_t k : keys) ++histogram[k >> 16];
    }
    // Each rank's bin and its rank within the bin.
    std::uint32_t bin[2] = {0, 0};
    std::uint64_t within[2] = {0, 0};
    for (int t = 0; t < 2; ++t) {
        if (ranks[t] == area) {
            *thresholds[t] = kAll;
            continue;
        }
        std::uint64_t below = 0;
        std::uint32_t b = 0;
        while (below + histogram[b] <= ranks[t]) below += histogram[b++];
        bin[t] = b;
        within[t] = ranks[t] - below;
    }
    std::vector<std::uint32_t> inBin[2];
    for (int y = 0; y < height; ++y) {
        cpu::pixelKeys(seed, 0, y, keys.size(), keys.data());
        for (std::uint32_t k : keys)
            for (int t = 0; t < 2; ++t)
                if (ranks[t] < area && (k >> 16) == bin[t]) inBin[t].push_back(k);
    }
    for (int t = 0; t < 2; ++t) {
        if (ranks[t] == area) continue;
        auto& v = inBin[t];
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(within[t]), v.end());
        *thresholds[t] = v[static_cast<std::size_t>(within[t])];
    }
    return s;
}

}  // namespace auglab
