#pragma once
// What a backend executes for one output (SPEC §2 "Plan"): stages of one fused warp followed by
// pixel ops in pipeline order. Consecutive geometric ops compose into one matrix, sampled once;
// a pixel op between geometric ops starts a new stage, so order is kept exactly. The tile scale
// is folded into the first warp, which reads a pre-filtered source level. Backends never sample
// random numbers or derive matrices: everything they need is here.

#include <array>
#include <cstdint>
#include <variant>
#include <vector>

#include "colour.h"
#include "replay.h"

namespace auglab {

/// Output pixel (x, y) samples the input at (a*x + b*y + c, d*x + e*y + f).
struct WarpStep {
    std::array<double, 6> inverse{1, 0, 0, 0, 1, 0};
    int sourceLevel = 0;  ///< first stage: the source level read; later stages read the previous stage
    int inputWidth = 0, inputHeight = 0;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool copy = false;  ///< the inverse is the identity and sizes match: the output is the input
};

struct LutStep { Lut lut; };                        ///< brightness/contrast relative to 255
struct MeanBrightnessStep { float alpha; double brightness; };  ///< relative to the image mean
struct HsvStep { HsvLuts luts; };
struct GrayStep {};
struct BlurStep { std::vector<float> kernel; };     ///< separable, border reflect_101
struct NoiseStep { float mean255; float std255; bool perChannel; std::uint64_t seed; };
struct DropoutStep {
    std::vector<Hole> holes;  ///< in output pixels
    Fill::Mode mode = Fill::Mode::Constant;
    Rgb fill{0, 0, 0};
    std::vector<Rgb> colours;
    std::uint64_t seed = 0;
};

using PixelStep = std::variant<LutStep, MeanBrightnessStep, HsvStep, GrayStep, BlurStep, NoiseStep, DropoutStep>;

struct PlanStage {
    WarpStep warp;
    std::vector<PixelStep> ops;
};

struct Plan {
    int width = 0, height = 0;  ///< output size
    std::vector<PlanStage> stages;
};

/// Builds the plan of `replay` for a source of srcWidth x srcHeight pixels (the size the replay was
/// drawn for; InputError otherwise) rendered at outWidth x outHeight: the replay's last frame (see
/// frameSize), scaled to that size.
Plan buildPlan(const Replay& replay, int srcWidth, int srcHeight, int outWidth, int outHeight);

/// The plan of `replay` at full resolution: the output has the size of the replay's last frame (the
/// image's size, or a random_resized_crop's `size`).
Plan buildFullPlan(const Replay& replay, int srcWidth, int srcHeight);

/// Noise of pixel (x, y) of a random fill or gauss_noise: Philox4x32 keyed by `seed`.
std::array<std::uint32_t, 4> pixelNoiseWords(std::uint64_t seed, int x, int y);

}  // namespace auglab
