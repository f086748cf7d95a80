#pragma once
// random_grid_shuffle: the image cut into a grid whose cells swap places among cells of the same
// shape (module: random_grid_shuffle.cpp).

#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct GridShuffleParams {
    std::vector<int> rowHeights, colWidths;  ///< the cells' sides, in their drawn (shuffled) order
    /// Cell k (row-major) is moved to cell mapping[k], which has the same shape.
    std::vector<int> mapping;
    bool operator==(const GridShuffleParams&) const = default;
};

/// One cell: [x0, x1) x [y0, y1) of the frame.
struct GridCell {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// The cells of `p`, row-major (split_uniform_grid's tiles).
std::vector<GridCell> gridCells(const GridShuffleParams& p);

const OpModule& randomGridShuffleModule();

}  // namespace auglab
