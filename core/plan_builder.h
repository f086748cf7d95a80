#pragma once
// Builds a plan op by op: each applied op's module lowers its drawn parameters to what the builder
// offers (a forward matrix, a new frame, a gather stage, a pixel step). Geometric ops work in the
// "frame": the source image, or the image an op that sets the frame (a crop, a resize) replaced it
// by; the pending matrix maps the last stage's frame (the source's before the first stage) to the
// current frame. The output (outW x outH) shows the final frame (finalW x finalH), scaled; every
// stage renders its frame at that scale (clamped so that a stage is never larger than both its
// frame and the output), so pixel ops before a resize work at the size the library's do.

#include <memory>
#include <vector>

#include "geometry.h"
#include "plan.h"

namespace auglab {

class PlanBuilder {
public:
    /// finalW x finalH: the frame after the last op (frameSize in replay.h); 0: the source's size.
    PlanBuilder(int srcW, int srcH, int outW, int outH, SourceSampling sampling, int finalW = 0,
                int finalH = 0);
    /// A builder for masks (targets.h moveMasks): nearest neighbour everywhere, `maskFill` outside
    /// the image, pixel steps left out (pixel ops leave masks alone), resizes as cv2.resize's
    /// INTER_NEAREST picks its pixels (floor(x * src / dst), not centre-aligned).
    /// `level` > 0: the masks are read from level `level` of the source (reduced by 2^level by
    /// nearest neighbour, reduceMasks in overlay.h), for display.
    static PlanBuilder forMasks(int srcW, int srcH, int outW, int outH, int maskFill, int level = 0,
                                int finalW = 0, int finalH = 0);

    int frameWidth() const { return frameW_; }
    int frameHeight() const { return frameH_; }
    /// The size of the image the current frame renders to (the stage a pixel op lands in).
    int stageWidth() const;
    int stageHeight() const;
    /// Stage pixels per frame pixel (pixel ops scale their sizes with it).
    double sx() const { return static_cast<double>(stageWidth()) / frameW_; }
    double sy() const { return static_cast<double>(stageHeight()) / frameH_; }
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
    /// `regionX`, `regionY`: where the region starts, for a resize (a nearest resize alone in its
    /// warp picks its pixels as cv2.resize does: WarpStep::nearestResize).
    void newFrame(const Matrix3& forward, int newW, int newH, int regionW, int regionH,
                  Interpolation interpolation, bool resize = true, int regionX = 0, int regionY = 0);
    /// cv2.resize(frame, None, fx, fy): the frame becomes newW x newH (the caller's rounding of
    /// W * fx, H * fy), mapped with the factors themselves, as OpenCV does when given them.
    void resizeByFactors(double fx, double fy, int newW, int newH, Interpolation interpolation);
    /// Renders the pending warp into a stage now, so that the next geometric op starts a warp of its
    /// own (a resize down and back up that must not cancel out).
    void endWarp() {
        if (hasPending_) flushWarp();
    }
    /// Replaces the frame by a newW x newH image that `forward` maps whole pixels onto (a quarter
    /// turn, a transpose): resampling settings stay as they are (whole pixels need none);
    /// `swapsAxes` when the new x axis is the old y axis.
    void wholePixelFrame(const Matrix3& forward, int newW, int newH, bool swapsAxes);
    /// Replaces the frame by the newW x newH window whose top-left pixel is frame pixel (-dx, -dy)
    /// (a crop, a padding, both). A window reaching outside the frame is padded with `border`
    /// (`fill` for constant) as cv2.copyMakeBorder pads: it gets a warp of its own, so that no
    /// other op's border or resampling mixes with the padding.
    void window(int dx, int dy, int newW, int newH, BorderMode border, const Rgb& fill);
    /// A stage of its own that gathers its pixels as `gather` says (it does not fuse with a matrix).
    void gatherStage(std::shared_ptr<const GatherStep> gather);
    /// A stage of its own that reads the current frame's image as cv2.remap does with float32 maps:
    /// stage pixel (x, y) samples (mapX, mapY)[y * stageWidth() + x] of it, the maps being the op's
    /// for a stageWidth() x stageHeight() image (at full resolution, the frame's own). Masks are
    /// remapped with nearest neighbour and the mask fill.
    void remapStage(const std::vector<float>& mapX, const std::vector<float>& mapY,
                    Interpolation interpolation, BorderMode border, const Rgb& fill);
    /// remapStage of a map that moves rectangles by whole pixels (RemapMap::Tile, covering the stage
    /// once; RandomGridShuffle's at full resolution), held as the rectangles, without float maps: a CPU backend copies their rows, and the positions are made only where a
    /// backend reads them (RemapMap::positions).
    void remapStageTiles(std::vector<RemapMap::Tile> tiles, Interpolation interpolation, BorderMode border,
                         const Rgb& fill);
    void pixel(PixelStep step);

    Plan finish();

private:
    void flushWarp();
    /// A remap stage's settings and input (remapStage's first half); `stage` is pushed by the caller.
    WarpStep& beginRemap(PlanStage& stage, Interpolation interpolation, BorderMode border, const Rgb& fill);
    /// Marks the map whole when every position is a whole pixel inside the input, then adds `stage`.
    void endRemap(PlanStage& stage, std::shared_ptr<RemapMap> map);
    int stageSize(int frame, int out, int final) const;
    int firstLevel(int stageW, int stageH) const;  // the source level the first stage reads

    int srcW_, srcH_, frameW_, frameH_, outW_, outH_, finalW_, finalH_;
    double srcPerFrameX_ = 1, srcPerFrameY_ = 1;  // source pixels per frame pixel (the level's choice)
    int lastFrameW_ = 0, lastFrameH_ = 0;         // the frame of the last stage
    bool prefiltered_;  // tiles read a pre-filtered level; full-resolution outputs the source
    Matrix3 pending_;
    // The pending warp is one nearest resize of this region of the last stage's frame (or the source).
    std::optional<WarpStep::NearestRegion> pendingResize_;
    /// The crop a linear resize that started the pending warp reads (WarpStep::window): later ops
    /// in the warp compose on its output side and keep it.
    std::optional<PixelRect> pendingWindow_;
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
