#pragma once
// A source image and its pre-filtered levels (area-averaged halvings). Tiles smaller than the
// source are rendered from the level closest above the tile's scale, so a 64-tile grid of a
// 4000x3000 photo costs about what a grid of a 1000x750 one does, without aliasing.

#include <deque>
#include <mutex>

#include "image.h"

namespace auglab {

class SourceLevels {
public:
    explicit SourceLevels(Image full);

    const Image& full() const { return levels_[0]; }
    int width() const { return levels_[0].width; }
    int height() const { return levels_[0].height; }

    /// Level k is the source downscaled by about 2^k (level 0 is the source). Thread safe; levels
    /// are built on first use and kept.
    const Image& level(int k);
    /// The coarsest level of a width x height source that is still at least as large as the source
    /// scaled by `scale`: the warp from it minifies by less than 2, so bilinear sampling does not alias.
    static int levelForScale(double scale, int width, int height);
    /// Size of level k of a width x height source, without building it.
    static void levelSize(int width, int height, int k, int& w, int& h);

private:
    std::deque<Image> levels_;  // a deque: references stay valid while levels are added
    std::mutex mutex_;
};

}  // namespace auglab
