#pragma once
// The one description of every op: its keys, units, kinds, bounds, defaults and help. The preset
// parser, the preset schema, the GUI controls and the exporters all read it; nothing else lists
// an op's parameters.

#include <array>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace auglab {

enum class OpId {
    Affine,
    HorizontalFlip,
    VerticalFlip,
    RandomResizedCrop,
    DeotteAffine,
    CoarseDropout,
    GridDropout,
    BrightnessContrast,
    HueSaturationValue,
    GaussianBlur,
    GaussNoise,
    ToGray,
};

/// Geometric ops move pixels and fuse into one warp; pixel ops change values in place.
enum class OpCategory { Geometric, Pixel };

/// A closed interval [min, max]; ranges in presets are always explicit pairs.
struct Range {
    double min = 0.0;
    double max = 0.0;
    bool operator==(const Range&) const = default;
};

/// A fill: a constant RGB colour, or noise per pixel ("random"), or one colour per hole
/// ("random_uniform"). Only ops that declare `allowsRandomFill` accept the random modes.
struct Fill {
    enum class Mode { Constant, Random, RandomUniform };
    Mode mode = Mode::Constant;
    std::array<int, 3> rgb{0, 0, 0};
    bool operator==(const Fill&) const = default;
};

/// An image size in pixels, written [height, width] as Albumentations and torchvision do.
struct Size2 {
    int height = 0;
    int width = 0;
    bool operator==(const Size2&) const = default;
};

using ParamValue = std::variant<bool, double, Range, std::string, Fill, Size2>;

enum class ParamKind {
    FloatRange,  ///< [min, max] of real numbers
    IntRange,    ///< [min, max] of integers, inclusive
    Float,       ///< one real number
    Bool,
    Choice,      ///< one of `choices`
    Fill,        ///< [r, g, b] (or a random mode when allowed)
    Size,        ///< [height, width] in pixels, integers in [lower, upper]
};

struct ParamDesc {
    std::string key;
    std::string label;
    std::string unit;     ///< "deg", "px", "fraction of width", ... for display
    ParamKind kind = ParamKind::FloatRange;
    double lower = 0.0;   ///< smallest allowed value (numbers and range ends)
    double upper = 0.0;   ///< largest allowed value
    ParamValue defaultValue;
    std::vector<std::string> choices;
    bool allowsRandomFill = false;
    /// Optional parameters are absent unless the preset gives them (e.g. hole sizes in pixels,
    /// which replace the fractional ones).
    bool optional = false;
    /// Shown on a logarithmic slider (positive ranges where ratios matter, e.g. an aspect ratio).
    bool logScale = false;
    std::string help;
};

struct OpDesc {
    OpId id;
    std::string name;     ///< key used in presets, e.g. "coarse_dropout"
    std::string label;    ///< for people, e.g. "Coarse dropout (cutout)"
    OpCategory category;
    std::string help;
    std::vector<ParamDesc> params;

    const ParamDesc* param(std::string_view key) const;
    int paramIndex(std::string_view key) const;  ///< -1 when unknown
};

/// All ops, in the order the GUI lists them.
const std::vector<OpDesc>& opRegistry();
/// nullptr when unknown.
const OpDesc* findOp(std::string_view name);
const OpDesc& opDesc(OpId id);

/// Human-readable names of the enum choices shared by several ops.
inline const std::vector<std::string> kInterpolationChoices{"nearest", "linear"};
inline const std::vector<std::string> kBorderChoices{"constant", "replicate", "reflect", "reflect_101", "wrap"};

}  // namespace auglab
