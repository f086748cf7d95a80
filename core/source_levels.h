#pragma once
// A source image and its pre-filtered levels. Tiles smaller than the source are rendered from the
// level closest above the tile's scale, so a 64-tile grid of a 4000x3000 photo costs about what a
// grid of a 1000x750 one does, without aliasing.
//
// Level k is the source reduced by exactly 2^k: its pixel (i, j) is the mean of the 2^k x 2^k
// block of source pixels whose corner is (i·2^k, j·2^k), the last column and row repeated where
// the image ends inside a block, so level k has ceil(W / 2^k) x ceil(H / 2^k) pixels. That is the geometry of libjpeg's DCT
// scaling: a JPEG decoded at 1/2^k is level k of its full decode (within rounding), which lets a
// page of camera photos be decoded at the size its tiles need and never in full.

#include <map>
#include <mutex>

#include "image.h"

namespace auglab {

class SourceLevels {
public:
    /// The whole source: every level can be made.
    explicit SourceLevels(Image full);
    /// The whole source in memory AugLab does not own (a NumPy array): it is read, never written
    /// or kept, and must stay as it is while this object renders from it. view(0) is that memory;
    /// level(0), for a caller that needs an Image, is a copy made once.
    explicit SourceLevels(ImageView borrowed);
    /// Only level `level` and coarser ones of a fullWidth x fullHeight source: `image` is level
    /// `level` (a JPEG decoded at 1/2^level, or a reduced copy). Finer levels do not exist.
    SourceLevels(Image image, int level, int fullWidth, int fullHeight);

    /// Size of the source at full resolution (level 0), whether or not level 0 is held.
    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }
    /// The finest level held (0 for a whole source).
    int firstLevel() const { return first_; }
    /// Bytes of pixels held now (levels are added as they are asked for).
    std::size_t bytes() const;

    /// Level k (k >= firstLevel()). Thread safe; each level is made from the first one (one rounding,
    /// not one per halving) on first use and kept. Throws RuntimeError for a level finer than the first.
    const Image& level(int k);
    /// Level k's pixels: the borrowed memory itself for level 0 of a borrowed source, else level(k).
    /// What the CPU backend reads (no copy of a borrowed source).
    ImageView view(int k);
    /// The coarsest level of a width x height source that is still at least as large as the source
    /// scaled by `scale`: the warp from it minifies by less than 2, so bilinear sampling does not alias.
    static int levelForScale(double scale, int width, int height);
    /// Size of level k of a width x height source, without building it: ceil(width / 2^k) x
    /// ceil(height / 2^k).
    static void levelSize(int width, int height, int k, int& w, int& h);
    /// `image` reduced by 2^k as level k is made from level 0 (block means, rounded to nearest even).
    static Image reduce(const ImageView& image, int k);

private:
    ImageView firstView() const;  ///< the finest level held (the borrowed memory, if any); with mutex_ held

    int width_ = 0, height_ = 0, channels_ = 3, first_ = 0;
    ImageView borrowed_;  ///< a borrowed source's level 0 (data null when none)
    std::map<int, Image> levels_;  // by level; a map keeps references valid while levels are added
    mutable std::mutex mutex_;
};

}  // namespace auglab
