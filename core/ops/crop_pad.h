#pragma once
// pad_if_needed, random_crop, center_crop and crop: a padded and cropped window of the frame (module:
// crop_pad.cpp).

#include <array>

#include "op_types.h"

namespace auglab {

class OpModule;

/// The frame padded by (top, bottom, left, right) pixels with `border` (`fill` for constant), then
/// the window [x, x + width) x [y, y + height) of the padded frame kept (pad_if_needed keeps all of
/// it). `padded`: a padding was applied (Albumentations' pad_params is not None).
struct CropPadParams {
    int top = 0, bottom = 0, left = 0, right = 0;
    int x = 0, y = 0, width = 0, height = 0;
    bool padded = false;
    BorderMode border = BorderMode::Constant;
    std::array<int, 3> fill{0, 0, 0};
    bool operator==(const CropPadParams&) const = default;
};

const OpModule& padIfNeededModule();
const OpModule& randomCropModule();
const OpModule& centerCropModule();
const OpModule& cropModule();

}  // namespace auglab
