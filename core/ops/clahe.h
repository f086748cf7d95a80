#pragma once
// clahe: the drawn clip limit and the tile grid (module: clahe.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct ClaheParams {
    double clipLimit = 4;  ///< OpenCV's clipLimit: a bin's cap in multiples of the tile's mean count
    int tilesX = 8;        ///< tiles across (OpenCV's tileGridSize.width)
    int tilesY = 8;        ///< tiles down
    bool operator==(const ClaheParams&) const = default;
};

const OpModule& claheModule();

}  // namespace auglab
