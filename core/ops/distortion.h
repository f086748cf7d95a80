#pragma once
// grid_distortion, optical_distortion, elastic_transform: Albumentations 2.0.8's BaseDistortion ops, a
// cv2.remap of per-pixel maps (module: distortion.cpp). The maps are computed as the library computes them,
// in float32, for any image size: at full resolution for the frame, at the stage's size for a tile.

#include <cstdint>
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

struct ElasticParams {
    double alpha = 1, sigma = 50;  ///< pixels: the displacement's scale, the smoothing's sigma
    bool approximate = false;      ///< a 17 x 17 smoothing kernel instead of one from sigma
    bool sameDxDy = false;         ///< one field for both axes
    bool uniform = false;          ///< noise U(-1, 1) (else normal, scaled by its largest magnitude)
    std::uint64_t noiseSeed = 0;   ///< the noise fields' stream (pixelNoiseWords)
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    KeypointRemap keypoints = KeypointRemap::Mask;
    bool operator==(const ElasticParams&) const = default;
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

/// ElasticTransform's noise before anything is done to it: one field (same_dxdy) or two (dx, then
/// dy), each width x height, row-major; pixel (x, y) of field f from pixelNoiseWords(noiseSeed, x, y)
/// (normal: Box-Muller of words 2f, 2f + 1; uniform: -1 + 2 word 2f / 2^32).
std::vector<float> elasticNoise(const ElasticParams& p, int width, int height);
/// ElasticTransform's maps (generate_displacement_fields, then the pixel grid plus the fields, as
/// float64 then float32): the noise (normal: divided by its largest magnitude), stacked as one
/// (fields x height) x width image and smoothed by cv2.GaussianBlur's separable float32 filter (kernel
/// from sigma, or 17 x 17 when approximate; edges replicated, so the dx field's bottom rows blur into
/// the dy field's top ones as in the library), times alpha. `scale`: stage pixels per frame pixel (a
/// tile computes its own noise at its size, sigma and alpha scaled).
DistortionMaps elasticMaps(const ElasticParams& p, int width, int height, double scale = 1);

const OpModule& gridDistortionModule();
const OpModule& opticalDistortionModule();
const OpModule& elasticTransformModule();

}  // namespace auglab
