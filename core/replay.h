#pragma once
// Concrete parameters of one sample ("replay"): what the sampler drew for each op, in the units of
// the preset keys, together with the op's fixed settings, so that a replay alone reproduces the
// output bit for bit (SPEC §2). The JSON form is `"format": "auglab-replay"`, version 1.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "op_registry.h"

namespace auglab {

enum class Interpolation { Nearest, Linear };
enum class BorderMode { Constant, Replicate, Reflect, Reflect101, Wrap };

Interpolation interpolationFromName(std::string_view name);
BorderMode borderFromName(std::string_view name);
const char* interpolationName(Interpolation i);
const char* borderName(BorderMode b);

using Rgb = std::array<std::uint8_t, 3>;

struct AffineParams {
    double rotate_deg = 0, scale_x = 1, scale_y = 1, shear_x_deg = 0, shear_y_deg = 0;
    int translate_x_px = 0, translate_y_px = 0;
    Interpolation interpolation = Interpolation::Linear;
    BorderMode border = BorderMode::Constant;
    Rgb fill{0, 0, 0};
    bool operator==(const AffineParams&) const = default;
};

struct FlipParams {
    bool operator==(const FlipParams&) const = default;
};

/// A hole in pixels of the image the sample was drawn for: [x, y) to [x + w, y + h).
struct Hole {
    int x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Hole&) const = default;
};

struct DropoutParams {
    std::vector<Hole> holes;
    Fill::Mode fillMode = Fill::Mode::Constant;
    Rgb fill{0, 0, 0};              ///< constant fill
    std::vector<Rgb> holeColours;   ///< random_uniform: one colour per hole
    std::uint64_t noiseSeed = 0;    ///< random: key of the per-pixel noise
    /// grid_dropout: the grid unit drawn, in pixels (width, height); {0, 0} for coarse_dropout.
    std::array<int, 2> unitPx{0, 0};
    bool operator==(const DropoutParams&) const = default;
};

struct BrightnessContrastParams {
    double brightness = 0, contrast = 0;
    bool brightness_by_max = true;
    bool operator==(const BrightnessContrastParams&) const = default;
};

struct HsvParams {
    double hue_shift_deg = 0, sat_shift = 0, val_shift = 0;
    bool operator==(const HsvParams&) const = default;
};

struct BlurParams {
    double sigma_px = 0;
    bool operator==(const BlurParams&) const = default;
};

struct NoiseParams {
    double std_frac = 0, mean_frac = 0;
    bool per_channel = true;
    std::uint64_t noiseSeed = 0;  ///< key of the per-pixel normal draws
    bool operator==(const NoiseParams&) const = default;
};

struct GrayParams {
    bool operator==(const GrayParams&) const = default;
};

/// random_resized_crop: the crop [x, y) to [x + width, y + height) of the image as it is before the
/// op, resized to outWidth x outHeight (the size of every later op's image).
struct CropParams {
    int x = 0, y = 0, width = 0, height = 0;
    int outWidth = 0, outHeight = 0;
    Interpolation interpolation = Interpolation::Linear;
    bool operator==(const CropParams&) const = default;
};

/// deotte_affine: the six values of the notebook's draws (its rot, shr, h_zoom, w_zoom, h_shift,
/// w_shift).
struct DeotteParams {
    double rotation_deg = 0, shear_deg = 0, height_zoom = 1, width_zoom = 1, height_shift_px = 0, width_shift_px = 0;
    bool operator==(const DeotteParams&) const = default;
};

using OpParams = std::variant<AffineParams, FlipParams, DropoutParams, BrightnessContrastParams, HsvParams,
                              BlurParams, NoiseParams, GrayParams, CropParams, DeotteParams>;

/// One op of a sample. Ops whose gate failed or that are disabled are kept with applied = false,
/// so the list lines up with the pipeline.
struct ConcreteOp {
    OpId id = OpId::Affine;
    bool applied = false;
    OpParams params;
    bool operator==(const ConcreteOp&) const = default;
};

struct Replay {
    static constexpr int kFormatVersion = 1;
    std::uint64_t seed = 0;
    std::uint64_t index = 0;
    int imageWidth = 0;   ///< size the sample was drawn for (translations and holes are in its pixels)
    int imageHeight = 0;
    std::vector<ConcreteOp> ops;
    bool operator==(const Replay&) const = default;
};

/// Size of the image op `op` of the replay works on (op == ops.size(): the output's size): the image's
/// size, or the size of the random_resized_crop applied before it.
void frameSize(const Replay& replay, std::size_t op, int& width, int& height);

/// The values drawn for preset key `key` in this op, in that key's units (translations as fractions,
/// hole sizes per hole, `holes` as the count), for the distribution view. Empty when the op did
/// not apply or the key is not drawn (a choice, a flag). The size is that of the image the op
/// worked on (frameSize).
std::vector<double> drawnValues(const ConcreteOp& op, std::string_view key, int imageWidth, int imageHeight);

nlohmann::ordered_json replayToJson(const Replay& replay);
std::string serializeReplay(const Replay& replay);
/// Strict, like presets: errors name the JSON path.
Replay parseReplay(std::string_view text, const std::string& what = "replay");
Replay loadReplay(const std::filesystem::path& path);
void saveReplay(const std::filesystem::path& path, const Replay& replay);

}  // namespace auglab
