#pragma once
// The value types ops are described and drawn in: ranges, fills, sizes, colours, interpolation and
// border modes, holes. Plain data shared by the op modules (core/ops/), the registry, replays and
// plans.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace auglab {

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

/// Three real numbers, one per channel (R, G, B), written [r, g, b]: a normalisation's mean and std.
struct Triple {
    std::array<double, 3> v{0, 0, 0};
    bool operator==(const Triple&) const = default;
};

using ParamValue = std::variant<bool, double, Range, std::string, Fill, Size2, Triple>;

enum class Interpolation { Nearest, Linear };
enum class BorderMode { Constant, Replicate, Reflect, Reflect101, Wrap };

Interpolation interpolationFromName(std::string_view name);
BorderMode borderFromName(std::string_view name);
const char* interpolationName(Interpolation i);
const char* borderName(BorderMode b);

using Rgb = std::array<std::uint8_t, 3>;

/// A constant fill's colour.
inline Rgb rgbOf(const Fill& f) {
    return {static_cast<std::uint8_t>(f.rgb[0]), static_cast<std::uint8_t>(f.rgb[1]),
            static_cast<std::uint8_t>(f.rgb[2])};
}

/// A hole in pixels of the image the sample was drawn for: [x, y) to [x + w, y + h).
struct Hole {
    int x = 0, y = 0, w = 0, h = 0;
    bool operator==(const Hole&) const = default;
};

}  // namespace auglab
