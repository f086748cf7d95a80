#pragma once
// grid_distortion and optical_distortion: Albumentations 2.0.8's BaseDistortion ops, a cv2.remap of
// per-pixel maps (module: distortion.cpp). The maps are computed as the library computes them, in
// float32, for any image size: at full resolution for the frame, at the stage's size for a tile.

#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

/// How keypoints move (BaseDistortion's keypoint_remapping_method).
enum class KeypointRemap { Mask, Direct };

struct GridDistortionParams {
    int numSteps = 5;
    bool normalized = true;
    std::vector<double> stepsX, stepsY;  ///< the drawn 1 + U(distort_limit), num_steps + 1 each
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    KeypointRemap keypoints = KeypointRemap::Mask;
    bool operator==(const GridDistortionParams&) const = default;
};

struct OpticalDistortionParams {
    double k = 0;          ///< the distortion coefficient drawn from distort_limit
    bool fisheye = false;  ///< mode "fisheye" (else "camera")
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    KeypointRemap keypoints = KeypointRemap::Mask;
    bool operator==(const OpticalDistortionParams&) const = default;
};

/// The float32 maps (source x and y of every pixel, row-major) of a width x height image.
struct DistortionMaps {
    int width = 0, height = 0;
    std::vector<float> x, y;
};

/// GridDistortion's maps: normalize_grid_distortion_steps (when normalized) then generate_grid. An
/// axis shorter than num_steps is left as it is (the library divides by zero there).
DistortionMaps gridDistortionMaps(const GridDistortionParams& p, int width, int height);
/// OpticalDistortion's maps: cv2.initUndistortRectifyMap of the camera model (focal lengths W, H,
/// centre (W/2, H/2), k1 = k2 = k) or the fisheye model in float32.
DistortionMaps opticalDistortionMaps(const OpticalDistortionParams& p, int width, int height);

const OpModule& gridDistortionModule();
const OpModule& opticalDistortionModule();

}  // namespace auglab
