#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "error.h"
#include "philox.h"

namespace auglab {

namespace {

// Draw numbers within an op. The gate is always draw 0.
constexpr std::uint32_t kGate = 0;
constexpr std::uint32_t kHoleCount = 1;
constexpr std::uint32_t kNoiseKey = 2;
constexpr std::uint32_t kFirstHole = 16;  // hole j uses draws 16 + 8j ... 16 + 8j + 6
constexpr std::uint32_t kDrawsPerHole = 8;

PhiloxCounter counterFor(std::uint64_t index, std::uint32_t op, std::uint32_t draw) {
    return {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), op, draw};
}

Rgb rgbOf(const Fill& f) {
    return {static_cast<std::uint8_t>(f.rgb[0]), static_cast<std::uint8_t>(f.rgb[1]),
            static_cast<std::uint8_t>(f.rgb[2])};
}

AffineParams sampleAffine(const OpConfig& op, const OpDraws& d, int width, int height) {
    AffineParams a;
    a.rotate_deg = d.uniform(1, op.range("rotate_deg"));
    a.scale_x = d.uniform(2, op.range("scale_x"));
    const double sy = d.uniform(3, op.range("scale_y"));  // drawn even when unused: stable streams
    a.scale_y = op.flag("keep_ratio") ? a.scale_x : sy;
    a.shear_x_deg = d.uniform(4, op.range("shear_x_deg"));
    a.shear_y_deg = d.uniform(5, op.range("shear_y_deg"));
    // Albumentations: translate_percent * size, then int() which truncates toward zero.
    a.translate_x_px = static_cast<int>(std::trunc(d.uniform(6, op.range("translate_x_frac")) * width));
    a.translate_y_px = static_cast<int>(std::trunc(d.uniform(7, op.range("translate_y_frac")) * height));
    a.interpolation = interpolationFromName(op.choice("interpolation"));
    a.border = borderFromName(op.choice("border"));
    a.fill = rgbOf(op.fill("fill"));
    return a;
}

DropoutParams sampleDropout(const OpConfig& op, const OpDraws& d, int width, int height) {
    DropoutParams p;
    const Range count = op.range("holes");
    const auto n = d.randint(kHoleCount, static_cast<std::int64_t>(count.min), static_cast<std::int64_t>(count.max));
    const bool px = op.has("hole_height_px");
    const Fill fill = op.fill("fill");
    p.fillMode = fill.mode;
    p.fill = rgbOf(fill);
    for (std::int64_t j = 0; j < n; ++j) {
        const std::uint32_t base = kFirstHole + static_cast<std::uint32_t>(j) * kDrawsPerHole;
        int h = 0, w = 0;
        if (px) {
            // Albumentations draws a size in pixels from [min, min(max, side)], and raises for an
            // image smaller than the minimum: the same here, so that the preview's holes have the
            // library's distribution at the image's edge too (not the whole range, clamped after).
            const Range hr = op.range("hole_height_px"), wr = op.range("hole_width_px");
            if (hr.min > height || wr.min > width)
                throw InputError("coarse_dropout: holes of at least " + std::to_string(std::llround(wr.min)) + "x" +
                                 std::to_string(std::llround(hr.min)) + " px do not fit this " + std::to_string(width) +
                                 "x" + std::to_string(height) + " image (Albumentations raises here too); lower "
                                 "hole_width_px / hole_height_px's minimum");
            h = static_cast<int>(d.randint(base, static_cast<std::int64_t>(hr.min),
                                           std::min(static_cast<std::int64_t>(hr.max), std::int64_t{height})));
            w = static_cast<int>(d.randint(base + 1, static_cast<std::int64_t>(wr.min),
                                           std::min(static_cast<std::int64_t>(wr.max), std::int64_t{width})));
        } else {
            h = static_cast<int>(std::trunc(height * d.uniform(base, op.range("hole_height_frac"))));
            w = static_cast<int>(std::trunc(width * d.uniform(base + 1, op.range("hole_width_frac"))));
        }
        h = std::clamp(h, 0, height);
        w = std::clamp(w, 0, width);
        // Top-left uniform over the positions that keep the whole hole inside the image.
        const int x = static_cast<int>(d.randint(base + 2, 0, width - w));
        const int y = static_cast<int>(d.randint(base + 3, 0, height - h));
        p.holes.push_back(Hole{x, y, w, h});
        if (fill.mode == Fill::Mode::RandomUniform) {
            p.holeColours.push_back({static_cast<std::uint8_t>(d.randint(base + 4, 0, 255)),
                                     static_cast<std::uint8_t>(d.randint(base + 5, 0, 255)),
                                     static_cast<std::uint8_t>(d.randint(base + 6, 0, 255))});
        }
    }
    if (fill.mode == Fill::Mode::Random) p.noiseSeed = d.bits64(kNoiseKey);
    return p;
}

/// `size` cut into `parts` lengths differing by at most one (the first `size % parts` one longer),
/// then shuffled (Fisher-Yates, swap draws from `firstDraw`): Albumentations' shuffled splits.
std::vector<int> shuffledIntervals(int size, int parts, const OpDraws& d, std::uint32_t firstDraw) {
    std::vector<int> lengths(static_cast<std::size_t>(parts), size / parts);
    for (int i = 0; i < size % parts; ++i) ++lengths[static_cast<std::size_t>(i)];
    for (int i = parts - 1; i > 0; --i) {
        const auto j = d.randint(firstDraw + static_cast<std::uint32_t>(i), 0, i);
        std::swap(lengths[static_cast<std::size_t>(i)], lengths[static_cast<std::size_t>(j)]);
    }
    return lengths;
}

/// Albumentations 2.0 GridDropout (calculate_grid_dimensions, split_uniform_grid, generate_grid_holes)
/// with this sampler's draws: the same distribution of holes, drawn from (seed, index).
DropoutParams sampleGridDropout(const OpConfig& op, const OpDraws& d, int width, int height) {
    constexpr std::uint32_t kUnit = 1, kRowShuffle = 0x80000000u, kColumnShuffle = 0xC0000000u;
    DropoutParams p;
    const Fill fill = op.fill("fill");
    p.fillMode = fill.mode;
    p.fill = rgbOf(fill);
    if (fill.mode == Fill::Mode::Random) p.noiseSeed = d.bits64(kNoiseKey);
    int unitW = std::max(2, width / 10), unitH = std::max(2, height / 10);
    if (op.has("unit_size_px")) {
        const Range u = op.range("unit_size_px");
        // Albumentations refuses a unit range reaching the shorter side (its exported, exclusive upper
        // end max + 1 above that side): so does AugLab, for this image.
        const int shorter = std::min(width, height);
        if (u.max >= shorter)
            throw InputError("grid_dropout: unit_size_px up to " + std::to_string(std::llround(u.max)) +
                             " px does not fit this " + std::to_string(width) + "x" + std::to_string(height) +
                             " image: the largest unit must be below its shorter side, " + std::to_string(shorter) +
                             " (Albumentations raises here too)");
        const auto unit = d.randint(kUnit, static_cast<std::int64_t>(u.min), static_cast<std::int64_t>(u.max));
        unitW = unitH = static_cast<int>(unit);
    }
    p.unitPx = {unitW, unitH};
    const int rows = height / unitH, cols = width / unitW;
    if (rows <= 0 || cols <= 0) return p;
    const std::vector<int> rowHeights = shuffledIntervals(height, rows, d, kRowShuffle);
    const std::vector<int> colWidths = shuffledIntervals(width, cols, d, kColumnShuffle);
    const double ratio = op.number("ratio");
    const bool randomOffset = op.flag("random_offset");
    int cellY = 0;
    std::uint32_t cell = 0;
    for (const int cellH : rowHeights) {
        int cellX = 0;
        for (const int cellW : colWidths) {
            const std::uint32_t base = kFirstHole + cell * kDrawsPerHole;
            // numpy: clip(cell * ratio, 1, cell - 1).astype(int), i.e. min(max(v, 1), cell - 1) then
            // truncation (a one-pixel cell gets an empty hole).
            const int h = static_cast<int>(std::min(std::max(cellH * ratio, 1.0), cellH - 1.0));
            const int w = static_cast<int>(std::min(std::max(cellW * ratio, 1.0), cellW - 1.0));
            const int offY = randomOffset ? static_cast<int>(d.randint(base, 0, cellH - h)) : 0;
            const int offX = randomOffset ? static_cast<int>(d.randint(base + 1, 0, cellW - w)) : 0;
            const int x = std::clamp(cellX + offX, 0, width - w), y = std::clamp(cellY + offY, 0, height - h);
            p.holes.push_back(Hole{x, y, std::min(x + w, width) - x, std::min(y + h, height) - y});
            if (fill.mode == Fill::Mode::RandomUniform)
                p.holeColours.push_back({static_cast<std::uint8_t>(d.randint(base + 4, 0, 255)),
                                         static_cast<std::uint8_t>(d.randint(base + 5, 0, 255)),
                                         static_cast<std::uint8_t>(d.randint(base + 6, 0, 255))});
            cellX += cellW;
            ++cell;
        }
        cellY += cellH;
    }
    return p;
}

/// torchvision / Albumentations 2.0 RandomResizedCrop.get_params: up to 10 tries of an area
/// U(scale) x W x H and a log-uniform aspect ratio, rounded half to even as Python's round();
/// the first that fits is placed uniformly; else a centre crop clamped to the ratio range.
CropParams sampleCrop(const OpConfig& op, const OpDraws& d, int width, int height) {
    CropParams c;
    const Size2 size = op.size("size");
    c.outWidth = size.width;
    c.outHeight = size.height;
    c.interpolation = interpolationFromName(op.choice("interpolation"));
    const Range scale = op.range("scale"), ratio = op.range("ratio");
    const double area = static_cast<double>(width) * height;
    const double logLo = std::log(ratio.min), logHi = std::log(ratio.max);
    for (std::uint32_t attempt = 0; attempt < 10; ++attempt) {
        const std::uint32_t base = 1 + 4 * attempt;
        const double target = d.uniform(base, scale.min * area, scale.max * area);
        const double aspect = std::exp(d.uniform(base + 1, logLo, logHi));
        const auto w = static_cast<std::int64_t>(std::nearbyint(std::sqrt(target * aspect)));
        const auto h = static_cast<std::int64_t>(std::nearbyint(std::sqrt(target / aspect)));
        if (w > 0 && w <= width && h > 0 && h <= height) {
            // int((H - h + 1) * u): every top edge from 0 to H - h, as Albumentations' get_crop_coords.
            c.y = static_cast<int>((height - h + 1) * d.uniform(base + 2));
            c.x = static_cast<int>((width - w + 1) * d.uniform(base + 3));
            c.width = static_cast<int>(w);
            c.height = static_cast<int>(h);
            return c;
        }
    }
    const double inRatio = static_cast<double>(width) / height;
    c.width = width;
    c.height = height;
    if (inRatio < ratio.min) c.height = static_cast<int>(std::nearbyint(width / ratio.min));
    else if (inRatio > ratio.max) c.width = static_cast<int>(std::nearbyint(height * ratio.max));
    c.width = std::clamp(c.width, 1, width);
    c.height = std::clamp(c.height, 1, height);
    c.x = (width - c.width) / 2;
    c.y = (height - c.height) / 2;
    return c;
}

/// Chris Deotte's notebook: rot = std * N, shr = std * N, h_zoom = 1 + std * N, w_zoom likewise,
/// h_shift = std * N, w_shift likewise (the notebook writes N / 10 for std 0.1).
DeotteParams sampleDeotte(const OpConfig& op, const OpDraws& d) {
    const double zoom = op.number("zoom_std"), shift = op.number("shift_std_px");
    return DeotteParams{op.number("rotation_std_deg") * d.normal(1), op.number("shear_std_deg") * d.normal(2),
                        1.0 + zoom * d.normal(3),                  1.0 + zoom * d.normal(4),
                        shift * d.normal(5),                       shift * d.normal(6)};
}

OpParams sampleOp(const OpConfig& op, const OpDraws& d, int width, int height) {
    switch (op.id()) {
        case OpId::Affine: return sampleAffine(op, d, width, height);
        case OpId::HorizontalFlip:
        case OpId::VerticalFlip: return FlipParams{};
        case OpId::RandomResizedCrop: return sampleCrop(op, d, width, height);
        case OpId::DeotteAffine: return sampleDeotte(op, d);
        case OpId::ToGray: return GrayParams{};
        case OpId::CoarseDropout: return sampleDropout(op, d, width, height);
        case OpId::GridDropout: return sampleGridDropout(op, d, width, height);
        case OpId::BrightnessContrast:
            return BrightnessContrastParams{d.uniform(1, op.range("brightness")), d.uniform(2, op.range("contrast")),
                                            op.flag("brightness_by_max")};
        case OpId::HueSaturationValue:
            return HsvParams{d.uniform(1, op.range("hue_shift_deg")), d.uniform(2, op.range("sat_shift")),
                             d.uniform(3, op.range("val_shift"))};
        case OpId::GaussianBlur: return BlurParams{d.uniform(1, op.range("sigma_px"))};
        case OpId::GaussNoise:
            return NoiseParams{d.uniform(1, op.range("std_frac")), d.uniform(2, op.range("mean_frac")),
                               op.flag("per_channel"), d.bits64(kNoiseKey)};
    }
    return FlipParams{};
}

}  // namespace

double OpDraws::uniform(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    return uniformFromWords(r[0], r[1]);
}

double OpDraws::uniform(std::uint32_t draw, double a, double b) const {
    if (a == b) return a;  // fixed values are exact, whatever the draw
    return a + (b - a) * uniform(draw);
}

std::int64_t OpDraws::randint(std::uint32_t draw, std::int64_t a, std::int64_t b) const {
    if (b <= a) return a;
    const auto span = static_cast<double>(b - a + 1);
    const auto k = static_cast<std::int64_t>(std::floor(uniform(draw) * span));
    return a + std::min<std::int64_t>(k, b - a);
}

double OpDraws::normal(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    const double u1 = 1.0 - uniformFromWords(r[0], r[1]);  // (0, 1]: the log is finite
    const double u2 = uniformFromWords(r[2], r[3]);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
}

std::uint64_t OpDraws::bits64(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    return (static_cast<std::uint64_t>(r[2]) << 32) | r[3];
}

Replay samplePipeline(const std::vector<OpConfig>& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                      int height) {
    Replay replay;
    replay.seed = seed;
    replay.index = index;
    replay.imageWidth = width;
    replay.imageHeight = height;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const OpConfig& op = pipeline[i];
        const OpDraws draws(seed, index, static_cast<std::uint32_t>(i));
        ConcreteOp c;
        c.id = op.id();
        const double gate = draws.uniform(kGate);
        c.applied = op.enabled && gate < op.p;
        if (c.applied) c.params = sampleOp(op, draws, width, height);
        // The ops after a crop work on the resized crop.
        if (const auto* crop = std::get_if<CropParams>(&c.params); crop && c.applied) {
            width = crop->outWidth;
            height = crop->outHeight;
        }
        replay.ops.push_back(std::move(c));
    }
    return replay;
}

}  // namespace auglab
