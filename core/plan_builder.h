#pragma once
// Builds a plan op by op: each applied op's module lowers its drawn parameters to what the builder
// offers (a forward matrix, a new frame, a gather stage, a pixel step). Geometric ops work in the
// "frame": the source image, or the image an op that sets the frame (a crop) replaced it by; the
// pending matrix maps source pixels to frame pixels. The output (outW x outH) shows the final
// frame, scaled.

#include <memory>

#include "geometry.h"
#include "plan.h"

namespace auglab {

class PlanBuilder {
public:
    PlanBuilder(int srcW, int srcH, int outW, int outH, SourceSampling sampling);
    /// A builder for masks (targets.h moveMasks): nearest neighbour everywhere, `maskFill` outside
    /// the image, pixel steps left out (pixel ops leave masks alone), resizes as cv2.resize's
    /// INTER_NEAREST picks its pixels (floor(x * src / dst), not centre-aligned).
    /// `level` > 0: the masks are read from level `level` of the source (reduced by 2^level by
    /// nearest neighbour, reduceMasks in overlay.h), for display.
    static PlanBuilder forMasks(int srcW, int srcH, int outW, int outH, int maskFill, int level = 0);

    int frameWidth() const { return frameW_; }
    int frameHeight() const { return frameH_; }
    int outWidth() const { return outW_; }
    int outHeight() const { return outH_; }
    /// Output pixels per frame pixel (pixel ops scale their sizes with it).
    double sx() const { return static_cast<double>(outW_) / frameW_; }
    double sy() const { return static_cast<double>(outH_) / frameH_; }
    /// True once a stage exists (a pixel op or a gather stage came before).
    bool hasStages() const { return !plan_.stages.empty(); }

    /// Composes `forward` (frame -> frame) into the pending warp.
    void geometric(const Matrix3& forward);
    /// How the pending warp samples: the last op that sets it wins (flips alone move whole pixels,
    /// for which nearest and linear agree).
    void resampling(Interpolation interpolation, BorderMode border, const Rgb& fill);
    /// Replaces the frame by a newW x newH image: `forward` maps the current frame onto it, and it
    /// shows a regionW x regionH part of the current frame (the source level is chosen for that
    /// scale). Resized as cv2.resize does: edges repeat unless an earlier op set a border.
    /// `resize` false: the new frame is a warp into a new size (no cv2.resize), not a resize.
    void newFrame(const Matrix3& forward, int newW, int newH, int regionW, int regionH,
                  Interpolation interpolation, bool resize = true);
    /// A stage of its own that gathers its pixels as `gather` says (it does not fuse with a matrix).
    void gatherStage(std::shared_ptr<const GatherStep> gather);
    void pixel(PixelStep step);

    Plan finish();

private:
    void flushWarp();

    int srcW_, srcH_, frameW_, frameH_, outW_, outH_;
    double levelScale_;
    bool prefiltered_;  // tiles read a pre-filtered level; full-resolution outputs the source
    Matrix3 pending_;
    bool hasPending_ = false;
    Interpolation interpolation_ = Interpolation::Linear;
    BorderMode border_ = BorderMode::Constant;
    Rgb fill_{0, 0, 0};
    bool borderSet_ = false;
    bool masks_ = false;
    int maskLevel_ = 0;
    std::uint8_t maskFill_ = 0;
    Plan plan_;
};

}  // namespace auglab
