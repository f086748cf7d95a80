#pragma once
// resize, longest_max_size, smallest_max_size and random_scale: the frame resized as cv2.resize does
// (module: resize.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

/// The frame resized to outWidth x outHeight. maxSize: the side length drawn by longest_max_size and
/// smallest_max_size (0 for resize): their keypoints scale by maxSize / that side, as Albumentations'
/// do, not by the rounded sizes. scale: random_scale's drawn factor (its keypoints scale by it).
struct ResizeParams {
    int outWidth = 0, outHeight = 0;
    int maxSize = 0;
    double scale = 0;
    Interpolation interpolation = Interpolation::Linear;
    bool operator==(const ResizeParams&) const = default;
};

const OpModule& resizeModule();
const OpModule& longestMaxSizeModule();
const OpModule& smallestMaxSizeModule();
const OpModule& randomScaleModule();

}  // namespace auglab
