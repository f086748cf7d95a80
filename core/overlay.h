#pragma once
// The labels of a sheet's tiles, drawn over the samples (SPEC "Annotations" in the GUI, `auglab-cli
// render --overlays`): each tile's boxes, keypoints and masks moved by its sample's replay and scaled
// to the tile, and a statistic per page (how many boxes survive, their median visibility) so that a
// range too strong for small objects shows.

#include <vector>

#include "contact_sheet.h"
#include "targets.h"

namespace auglab {

/// One tile's labels in tile pixels (origin at the tile's top-left corner).
struct TileOverlay {
    int tile = -1;
    std::vector<Box> boxes;
    std::vector<DroppedBox> dropped;  ///< where the op that dropped them left them, in tile pixels
    std::vector<Keypoint> keypoints;
    std::vector<Mask> masks;  ///< at the tile's size
    std::size_t boxesIn = 0, keypointsIn = 0;
};

/// The overlay of `tile` (a rendered sample: its replay drawn for the source the targets belong to)
/// under `rules`. Masks, when `withMasks`, are moved in one nearest-neighbour pass at the tile's size
/// (moveMasksPreview) from `levelMasks` (the targets' masks reduced to level `level`, reduceMasks)
/// or, when null, from the targets' own. Throws InputError when the targets break the rules (a box
/// outside the image).
TileOverlay tileOverlay(const SheetTile& tile, const Targets& targets, const TargetSettings& rules,
                        bool withMasks, const std::vector<Mask>* levelMasks = nullptr, int level = 0,
                        const PartnerLabelsFn& partners = {});

/// The masks of `masks` (level `level` of the image's masks: full resolution at 0) through `replay`'s
/// ops in one pass at outWidth x outHeight (the ops' maps composed, nearest neighbour): for display,
/// where moveMasks' op-by-op passes at full resolution would cost too much; within a pixel of it
/// at level 0.
std::vector<Mask> moveMasksPreview(const Replay& replay, const std::vector<Mask>& masks, int outWidth,
                                   int outHeight, int maskFill = 0, int level = 0);

/// `masks` reduced by 2^k by nearest neighbour (each pixel the full-resolution one nearest its block's
/// centre), to SourceLevels::levelSize: label values are picked, never averaged.
std::vector<Mask> reduceMasks(const std::vector<Mask>& masks, int k);
/// The level whose masks a display of at most `longestSide` pixels needs: the coarsest whose longer
/// side is still at least twice that.
int maskLevelFor(int width, int height, int longestSide);

/// A distinct colour per class (a fixed palette, the same in the window and in the CLI's sheets).
Rgb classColour(int label);

/// Draws `o` into `sheet` at tile `tile`'s place: masks (non-zero values) blended in their class's
/// colour at `opacity`, boxes as 2-px outlines in their class's colour, keypoints as dots.
void drawOverlay(Image& sheet, const SheetTile& tile, const TileOverlay& o, double opacity);

/// Over a page: the boxes that went in and came out, and the median visibility of those kept.
struct BoxStats {
    std::size_t in = 0, kept = 0;
    double medianVisibility = 1;
};
BoxStats boxStats(const std::vector<TileOverlay>& overlays);

}  // namespace auglab
