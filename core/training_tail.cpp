// The training tail as tables: each channel's 256 input values carried through the ops by the
// library's own arithmetic (albucore 0.0.24 under Albumentations 2.0.8, NumPy 2), then one pass of
// lookups (core/cpu/tail_rows.cpp) writes the output. Which arithmetic each op runs depends on the
// type it receives, as in the library:
//
//   normalize standard   x -> (x - m) * d in float32, m = float32(mean) * max_pixel_value and
//                        d = 1 / (float32(std) * max_pixel_value), both rounded to float32
//                        (normalize_lut on uint8, cv2.subtract / cv2.multiply on float32: the same)
//   normalize per image  on uint8 (normalize_per_image_lut): the image's mean and std (+ 1e-4) or
//                        min and max; (float32(v) - mean) / std in float64, clipped to [-20, 20]
//                        (min_max_per_channel unclipped); on float32 (the OpenCV path) in float32
//   to_float             uint8: float32(v) / float32(max_value); float32: unchanged
//   from_float           float32: clip(rint(x * float32(max_value))); uint8 and float64: in float64
//   to_tensor            values unchanged; the layout becomes C x H x W
//
// The per-image statistics come from per-channel histograms: a sum over an image's uint8 values in
// float64 is exact in any order (NumPy's pairwise sum gives the same mean); the spread is summed in
// another order than NumPy's, so the standard deviation may differ in its last bits.

#include "training_tail.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "cpu/tail_rows.h"
#include "error.h"
#include "ops/op_module.h"
#include "pipeline.h"
#include "replay.h"

namespace auglab {

namespace {

/// What the values of the tables are, as the library's image would be typed.
enum class Held { UInt8, Float32, Float64, UInt16, UInt32 };

using Tables = std::vector<std::array<double, 256>>;

float f32(double v) {
    return static_cast<float>(v);
}

TailOp tailOpOf(const OpConfig& op) {
    TailOp t;
    const std::string& name = op.name();
    if (name == "normalize") {
        t.kind = TailOp::Kind::Normalize;
        t.mean = op.triple("mean").v;
        t.std = op.triple("std").v;
        t.maxPixelValue = op.number("max_pixel_value");
        t.normalization = op.choice("normalization");
    } else if (name == "to_float") {
        t.kind = TailOp::Kind::ToFloat;
        t.maxValue = op.number("max_value");
    } else if (name == "from_float") {
        t.kind = TailOp::Kind::FromFloat;
        t.dtype = op.choice("dtype");
        t.maxValue = op.number("max_value");
    } else {
        t.kind = TailOp::Kind::ToTensor;
        t.transposeMask = op.flag("transpose_mask");
    }
    return t;
}

/// Per channel counts of each value.
using Histograms = std::vector<std::array<std::uint64_t, 256>>;

Histograms histogramsOf(const Image& image) {
    Histograms h(static_cast<std::size_t>(image.channels));
    for (auto& c : h) c.fill(0);
    const auto cn = static_cast<std::size_t>(image.channels);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* p = image.row(y);
        const std::size_t n = static_cast<std::size_t>(image.width) * cn;
        for (std::size_t i = 0; i < n; i += cn)
            for (std::size_t c = 0; c < cn; ++c) ++h[c][p[i + c]];
    }
    return h;
}

/// Mean and population standard deviation of the current values of `channels` (all when empty).
struct Spread {
    double mean = 0, std = 0, min = 0, max = 0;
};

Spread spreadOf(const Tables& t, const Histograms& h, const std::vector<std::size_t>& channels) {
    double sum = 0, count = 0;
    Spread s;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -s.min;
    for (std::size_t c : channels)
        for (int v = 0; v < 256; ++v)
            if (h[c][v] != 0) {
                sum += double(h[c][v]) * t[c][v];
                count += double(h[c][v]);
                s.min = std::min(s.min, t[c][v]);
                s.max = std::max(s.max, t[c][v]);
            }
    s.mean = sum / count;
    double squares = 0;
    for (std::size_t c : channels)
        for (int v = 0; v < 256; ++v)
            if (h[c][v] != 0) {
                const double d = t[c][v] - s.mean;
                squares += double(h[c][v]) * (d * d);
            }
    s.std = std::sqrt(squares / count);
    return s;
}

/// The tail as float32 steps (cpu::FloatProgram), while it is one: the standard normalisation and
/// to_float on uint8 or float32 values.
struct Program {
    cpu::FloatProgram steps;
    bool valid = true;
    void add(cpu::FloatProgram::Op op, const float (&c)[4]) {
        if (steps.count == cpu::FloatProgram::kMaxSteps) {
            valid = false;
            return;
        }
        cpu::FloatProgram::Step& s = steps.steps[steps.count++];
        s.op = op;
        std::copy(std::begin(c), std::end(c), std::begin(s.c));
    }
};

void normalizeStandard(const TailOp& op, Tables& t, Held& held, Program& program) {
    if (t.size() != 3)
        throw InputError(
            "normalize: standard normalisation has three means and deviations (RGB), the image has " +
            std::to_string(t.size()) + " channels (Albumentations refuses it too)");
    const float mpv = f32(op.maxPixelValue);
    float means[4] = {}, scales[4] = {};
    for (std::size_t c = 0; c < 3; ++c) {
        const float m = f32(op.mean[c]) * mpv;
        const float d = 1.0f / (f32(op.std[c]) * mpv);
        means[c] = m;
        scales[c] = d;
        for (double& x : t[c]) {
            const float v = f32(x);  // uint8 and float32 values are exact; float64 is cast first
            const float centred = v - m;
            x = centred * d;
        }
    }
    if (held == Held::UInt8 || held == Held::Float32) {
        program.add(cpu::FloatProgram::Op::Sub, means);
        program.add(cpu::FloatProgram::Op::Mul, scales);
    } else {
        program.valid = false;
    }
    held = Held::Float32;
}

void normalizePerImage(const TailOp& op, Tables& t, Held& held, const Histograms& h) {
    constexpr double eps = 1e-4;
    const bool perChannel =
        op.normalization == "image_per_channel" || op.normalization == "min_max_per_channel";
    const bool minMax = op.normalization == "min_max" || op.normalization == "min_max_per_channel";
    std::vector<std::vector<std::size_t>> sets;
    if (perChannel)
        for (std::size_t c = 0; c < t.size(); ++c) sets.push_back({c});
    else {
        sets.emplace_back();
        for (std::size_t c = 0; c < t.size(); ++c) sets.back().push_back(c);
    }
    const bool onBytes = held == Held::UInt8;
    // The lookup tables' clip: every per-image normalisation but min_max_per_channel's table.
    const bool clip = !(onBytes && op.normalization == "min_max_per_channel");
    for (const auto& set : sets) {
        const Spread s = spreadOf(t, h, set);
        for (std::size_t c : set)
            for (double& x : t[c]) {
                double y;
                if (onBytes) {  // the float64 table of normalize_per_image_lut
                    y = minMax ? (x - s.min) / ((s.max - s.min) + eps) : (x - s.mean) / (s.std + eps);
                } else {  // float32 throughout (normalize_per_image_opencv)
                    const float v = f32(x);
                    y = minMax ? f32(v - f32(s.min)) / f32(f32(s.max - s.min) + f32(eps))
                               : f32(v - f32(s.mean)) / f32(s.std + eps);
                }
                x = clip ? std::clamp(y, -20.0, 20.0) : y;
            }
    }
    held = onBytes ? Held::Float64 : Held::Float32;
}

void toFloat(const TailOp& op, Tables& t, Held& held, Program& program) {
    if (held == Held::Float32) return;
    if (held == Held::UInt8) {
        const float m = f32(op.maxValue);
        program.add(cpu::FloatProgram::Op::Div, {m, m, m, m});
    } else {
        program.valid = false;
    }
    for (auto& c : t)
        for (double& x : c) {
            if (held == Held::UInt8)
                x = f32(x) / f32(op.maxValue);  // to_float_lut
            else if (held == Held::Float64)
                x = f32(x);  // astype(float32)
            else
                x = f32(x / op.maxValue);  // to_float_numpy: divided in float64
        }
    held = Held::Float32;
}

void fromFloat(const TailOp& op, Tables& t, Held& held) {
    const double top = op.dtype == "uint16" ? 65535.0 : op.dtype == "uint32" ? 4294967295.0 : 255.0;
    for (auto& c : t)
        for (double& x : c) {
            const double scaled = held == Held::Float32 ? double(f32(x) * f32(op.maxValue)) : x * op.maxValue;
            x = std::clamp(std::nearbyint(scaled), 0.0, top);
        }
    held = op.dtype == "uint16" ? Held::UInt16 : op.dtype == "uint32" ? Held::UInt32 : Held::UInt8;
}

template <typename T>
void lookUpScalar(const Image& image, const Tables& t, T* out, bool chw) {
    const auto cn = static_cast<std::size_t>(image.channels);
    const std::size_t plane = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
    std::vector<std::array<T, 256>> cast(cn);
    for (std::size_t c = 0; c < cn; ++c)
        for (int v = 0; v < 256; ++v) cast[c][v] = static_cast<T>(t[c][v]);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* p = image.row(y);
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width);
        for (int x = 0; x < image.width; ++x)
            for (std::size_t c = 0; c < cn; ++c) {
                const T v = cast[c][p[static_cast<std::size_t>(x) * cn + c]];
                if (chw)
                    out[c * plane + row + static_cast<std::size_t>(x)] = v;
                else
                    out[(row + static_cast<std::size_t>(x)) * cn + c] = v;
            }
    }
}

}  // namespace

std::size_t tailTypeSize(TailType t) {
    switch (t) {
        case TailType::UInt8:
            return 1;
        case TailType::UInt16:
            return 2;
        case TailType::UInt32:
        case TailType::Float32:
            return 4;
    }
    return 1;
}

std::size_t TailImage::bytes() const {
    return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
           static_cast<std::size_t>(channels) * tailTypeSize(type);
}

std::vector<TailOp> appliedTail(const Pipeline& pipeline, const Replay& replay) {
    std::vector<TailOp> tail;
    for (const ConcreteOp& op : replay.ops) {
        if (!op.applied || op.position >= pipeline.size()) continue;
        const OpConfig& config = pipeline[op.position];
        if (config.desc().category == OpCategory::Training) tail.push_back(tailOpOf(config));
    }
    return tail;
}

bool hasTrainingTail(const Pipeline& pipeline) {
    return std::any_of(pipeline.begin(), pipeline.end(),
                       [](const OpConfig& op) { return op.desc().category == OpCategory::Training; });
}

TailImage renderTail(const Image& image, const std::vector<TailOp>& tail) {
    const auto cn = static_cast<std::size_t>(image.channels);
    Tables t(cn);
    for (auto& c : t)
        for (int v = 0; v < 256; ++v) c[v] = v;
    Held held = Held::UInt8;
    bool chw = false;
    Histograms h;
    Program program;
    for (const TailOp& op : tail) {
        switch (op.kind) {
            case TailOp::Kind::Normalize:
                if (op.normalization == "standard") {
                    normalizeStandard(op, t, held, program);
                } else {
                    if (h.empty()) h = histogramsOf(image);
                    normalizePerImage(op, t, held, h);
                    program.valid = false;
                }
                break;
            case TailOp::Kind::ToFloat:
                toFloat(op, t, held, program);
                break;
            case TailOp::Kind::FromFloat:
                fromFloat(op, t, held);
                program.valid = false;
                break;
            case TailOp::Kind::ToTensor:
                chw = true;
                break;
        }
    }
    TailImage out;
    out.width = image.width;
    out.height = image.height;
    out.channels = image.channels;
    out.chw = chw;
    out.type = held == Held::UInt16   ? TailType::UInt16
               : held == Held::UInt32 ? TailType::UInt32
               : held == Held::UInt8  ? TailType::UInt8
                                      : TailType::Float32;
    out.data = std::make_unique_for_overwrite<std::byte[]>(out.bytes());
    switch (out.type) {
        case TailType::Float32: {
            std::vector<float> flat(cn * 256);
            for (std::size_t c = 0; c < cn; ++c)
                for (int v = 0; v < 256; ++v) flat[c * 256 + static_cast<std::size_t>(v)] = f32(t[c][v]);
            auto* dst = reinterpret_cast<float*>(out.data.get());
            const std::size_t plane =
                static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
            for (int y = 0; y < image.height; ++y) {
                const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width);
                const auto pixels = static_cast<std::size_t>(image.width);
                if (program.valid && chw)  // the tables' values, computed (cpu/tail_rows.h)
                    cpu::runFloatProgramPlanar(image.row(y), pixels, image.channels, program.steps, dst + at,
                                               plane);
                else if (program.valid)
                    cpu::runFloatProgram(image.row(y), pixels, image.channels, program.steps, dst + at * cn);
                else if (chw)
                    cpu::lookUpFloatsPlanar(image.row(y), static_cast<std::size_t>(image.width),
                                            image.channels, flat.data(), dst + at, plane);
                else
                    cpu::lookUpFloats(image.row(y), static_cast<std::size_t>(image.width), image.channels,
                                      flat.data(), dst + at * cn);
            }
            break;
        }
        case TailType::UInt8:
            lookUpScalar(image, t, reinterpret_cast<std::uint8_t*>(out.data.get()), chw);
            break;
        case TailType::UInt16:
            lookUpScalar(image, t, reinterpret_cast<std::uint16_t*>(out.data.get()), chw);
            break;
        case TailType::UInt32:
            lookUpScalar(image, t, reinterpret_cast<std::uint32_t*>(out.data.get()), chw);
            break;
    }
    return out;
}

}  // namespace auglab
