#pragma once
// random_resized_crop and random_sized_crop: the drawn crop (module: random_resized_crop.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

/// The crop [x, y) to [x + width, y + height) of the image as it is before the op, resized to
/// outWidth x outHeight (the size of every later op's image).
struct CropParams {
    int x = 0, y = 0, width = 0, height = 0;
    int outWidth = 0, outHeight = 0;
    Interpolation interpolation = Interpolation::Linear;
    bool operator==(const CropParams&) const = default;
};

const OpModule& randomResizedCropModule();
const OpModule& randomSizedCropModule();

}  // namespace auglab
