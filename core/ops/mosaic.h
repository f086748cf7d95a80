#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "geometry.h"
#include "op_types.h"

namespace auglab {

class OpModule;

/// One cell of a mosaic: a part of the canvas showing one image, scaled to the cell shape and cut
/// where it meets the mosaic's centre (Albumentations 2.0.8 Mosaic, 2x2 grid).
struct MosaicCell {
    Hole rect;                  ///< on the canvas, target pixels
    std::uint64_t partner = 0;  ///< the image's index in the pool (the sample's own for the primary)
    bool primary = false;       ///< the sample's own image (the largest cell)
    int cropX = 0, cropY = 0;   ///< where the cell's crop starts in the cell-shaped frame
    std::string partnerPath;    ///< the image's file, when the caller names it
    bool operator==(const MosaicCell&) const = default;
};

struct MosaicParams {
    int targetW = 512, targetH = 512, cellW = 512, cellH = 512;
    int centreX = 0, centreY = 0;  ///< on the 2x2 grid of cells
    bool contain = false;          ///< fit_mode contain (else cover)
    Interpolation interpolation = Interpolation::Linear;
    Rgb fill{0, 0, 0};
    std::uint64_t partners = 1;  ///< the pool's size
    std::vector<MosaicCell> cells;  ///< row-major
    bool operator==(const MosaicParams&) const = default;
};

/// Where an image of width x height lands in `cell`: scaled by `scale` (cover: the larger of the
/// cell shape's ratios, contain: the smaller) to resizedW x resizedH (Python's round, at least 1),
/// its top-left corner at (offsetX, offsetY) on the canvas (contain pads with the centred half).
struct MosaicPlacement {
    double scale = 1;
    int resizedW = 1, resizedH = 1;
    int offsetX = 0, offsetY = 0;
    /// Image pixel centres to canvas pixel centres, as cv2.resize then the crop place them.
    Matrix3 forward;
};
MosaicPlacement mosaicPlacement(const MosaicParams& m, const MosaicCell& cell, int width, int height);

const OpModule& mosaicModule();

}  // namespace auglab
