// grid_distortion and optical_distortion: Albumentations 2.0.8 GridDistortion and OpticalDistortion,
// both a cv2.remap of float32 maps (BaseDistortion). The maps are the library's, computed in the
// same precision (checked against augmentations/geometric/functional.py: generate_grid,
// normalize_grid_distortion_steps, get_camera_matrix_distortion_maps, get_fisheye_distortion_maps);
// the plan gets them as a remap stage (PlanBuilder::remapStage), which every backend runs with
// cv2.remap's fixed-point positions. Boxes and keypoints move as BaseDistortion moves them
// (remapTargets in targets.h). Everything AugLab knows about the ops is here (core/ops/op_module.h,
// docs/adding-an-op.md).

#include "ops/distortion.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "cpu/colour_rows.h"
#include "error.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

const std::vector<std::string> kKeypointRemapChoices{"mask", "direct"};

const char* keypointRemapName(KeypointRemap k) {
    return k == KeypointRemap::Direct ? "direct" : "mask";
}

KeypointRemap keypointRemapFromName(const std::string& s) {
    return s == "direct" ? KeypointRemap::Direct : KeypointRemap::Mask;
}

/// np.sum of a float64 vector: numpy's pairwise summation (eight accumulators from eight items on).
double numpySum(const std::vector<double>& a) {
    const std::size_t n = a.size();
    if (n < 8) {
        double s = 0;
        for (double v : a) s += v;
        return s;
    }
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
        for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += a[i];
    return s;
}

/// np.linspace(start, stop, n) in float64, written as float32 to out[0..n).
void linspace(double start, double stop, int n, float* out) {
    if (n <= 0) return;
    if (n == 1) {
        out[0] = static_cast<float>(start);
        return;
    }
    const double div = n - 1, delta = stop - start, step = delta / div;
    for (int i = 0; i < n; ++i) {
        const double y = step == 0 ? (i / div) * delta : i * step;
        out[i] = static_cast<float>(y + start);
    }
    out[n - 1] = static_cast<float>(stop);
}

/// One axis of generate_grid: cell i spans [i * step, min(i * step + step, size)) and runs linearly
/// from the sum of the cells before it to that plus step * steps[i].
std::vector<float> gridAxis(int size, int numSteps, std::vector<double> steps, bool normalized) {
    std::vector<float> out(static_cast<std::size_t>(size), 0.0f);
    const int step = size / numSteps;
    if (step == 0) {  // the library fails here (ZeroDivisionError): the axis is left as it is
        for (int i = 0; i < size; ++i) out[std::size_t(i)] = static_cast<float>(i);
        return out;
    }
    if (normalized) {
        // normalize_grid_distortion_steps: the last cell's step scaled to its true width, then all
        // scaled so that they sum to size / floor(size / num_steps).
        const int last = std::min(size, (numSteps + 1) * step) - numSteps * step;
        steps.back() *= static_cast<double>(last) / step;
        const double t = size / std::floor(static_cast<double>(size) / numSteps);
        const double factor = t / numpySum(steps);
        for (double& s : steps) s *= factor;
    }
    double prev = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const int start = static_cast<int>(i) * step;
        const int end = std::min(start + step, size);
        const double cur = prev + step * steps[i];
        if (end > start) linspace(prev, cur, end - start, out.data() + start);
        prev = cur;
    }
    return out;
}

}  // namespace

DistortionMaps gridDistortionMaps(const GridDistortionParams& p, int width, int height) {
    const std::vector<float> xx = gridAxis(width, p.numSteps, p.stepsX, p.normalized);
    const std::vector<float> yy = gridAxis(height, p.numSteps, p.stepsY, p.normalized);
    DistortionMaps m{width, height, {}, {}};
    const std::size_t n = static_cast<std::size_t>(width) * height;
    m.x.resize(n);
    m.y.resize(n);
    for (int y = 0; y < height; ++y) {
        std::copy(xx.begin(), xx.end(), m.x.begin() + std::ptrdiff_t(y) * width);
        std::fill_n(m.y.begin() + std::ptrdiff_t(y) * width, width, yy[std::size_t(y)]);
    }
    return m;
}

DistortionMaps opticalDistortionMaps(const OpticalDistortionParams& p, int width, int height) {
    DistortionMaps m{width, height, {}, {}};
    const std::size_t n = static_cast<std::size_t>(width) * height;
    m.x.resize(n);
    m.y.resize(n);
    if (!p.fisheye) {
        // cv2.initUndistortRectifyMap with no new camera matrix: the default one keeps the focal
        // lengths and centres the principal point at ((W - 1) / 2, (H - 1) / 2); the distortion's
        // camera has it at (W / 2, H / 2). Double maths, float32 maps; k was a float32 array.
        const double k = static_cast<float>(p.k);
        const double fx = width, fy = height, u0 = width / 2.0, v0 = height / 2.0;
        const double cu = (width - 1) * 0.5, cv = (height - 1) * 0.5;
        // Each column's x once (the same division OpenCV makes per pixel, so the same double): the
        // loop below then has no division and vectorises.
        std::vector<double> xs(static_cast<std::size_t>(width));
        for (int j = 0; j < width; ++j) xs[std::size_t(j)] = (j - cu) / fx;
        for (int i = 0; i < height; ++i) {
            const double y = (i - cv) / fy;
            float* outX = m.x.data() + std::size_t(i) * width;
            float* outY = m.y.data() + std::size_t(i) * width;
            for (int j = 0; j < width; ++j) {
                const double x = xs[std::size_t(j)];
                const double r2 = x * x + y * y;
                const double kr = 1 + ((0 * r2 + k) * r2 + k) * r2;
                outX[j] = static_cast<float>(fx * (x * kr) + u0);
                outY[j] = static_cast<float>(fy * (y * kr) + v0);
            }
        }
        return m;
    }
    // get_fisheye_distortion_maps: float32 throughout (numpy's float32 ufuncs), the maximum radius in
    // double.
    const double cx = width / 2.0, cy = height / 2.0;
    const double maxRadius =
        std::sqrt(std::pow(std::max(cx, width - cx), 2) + std::pow(std::max(cy, height - cy), 2));
    const float k = static_cast<float>(p.k);
    for (int i = 0; i < height; ++i) {
        const float y = static_cast<float>(i) - static_cast<float>(cy);
        for (int j = 0; j < width; ++j) {
            const float x = static_cast<float>(j) - static_cast<float>(cx);
            const float r = std::sqrt(x * x + y * y);
            const float theta = std::atan2(y, x);
            const float rn = r / static_cast<float>(maxRadius);  // a Python float meets float32: float32
            const float rd = r * (1.0f + k * rn * rn);
            const std::size_t o = std::size_t(i) * width + j;
            m.x[o] = rd * std::cos(theta) + static_cast<float>(cx);
            m.y[o] = rd * std::sin(theta) + static_cast<float>(cy);
        }
    }
    return m;
}

std::vector<float> elasticNoise(const ElasticParams& p, int width, int height) {
    const int fields = p.sameDxDy ? 1 : 2;
    const std::size_t n = static_cast<std::size_t>(width) * height;
    std::vector<float> noise(fields * n);
    constexpr double kTwoTo32 = 4294967296.0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::array<std::uint32_t, 4> w = pixelNoiseWords(p.noiseSeed, x, y);
            for (int f = 0; f < fields; ++f) {
                const std::uint32_t a = w[std::size_t(2 * f)], b = w[std::size_t(2 * f + 1)];
                double v;
                if (p.uniform) {
                    v = -1.0 + 2.0 * (a / kTwoTo32);  // numpy's uniform(-1, 1), then float32
                } else {
                    const double u1 = (a + 1.0) / kTwoTo32, u2 = b / kTwoTo32;  // u1 in (0, 1]
                    v = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
                }
                noise[f * n + std::size_t(y) * width + x] = static_cast<float>(v);
            }
        }
    return noise;
}

namespace {

/// cv2.getGaussianKernel(ksize, sigma) for a float32 image: computed in double, stored as float.
std::vector<float> gaussianKernel(int ksize, double sigma) {
    std::vector<double> k(static_cast<std::size_t>(ksize));
    const double s = sigma > 0 ? sigma : ((ksize - 1) * 0.5 - 1) * 0.3 + 0.8;
    const double scale2 = -0.5 / (s * s);
    double sum = 0;
    for (int i = 0; i < ksize; ++i) {
        const double x = i - (ksize - 1) * 0.5;
        k[std::size_t(i)] = std::exp(scale2 * x * x);
        sum += k[std::size_t(i)];
    }
    std::vector<float> out(k.size());
    for (std::size_t i = 0; i < k.size(); ++i) out[i] = static_cast<float>(k[i] / sum);
    return out;
}

/// cv2.GaussianBlur of a float32 width x height image in place: rows, then columns, edges replicated.
/// The taps that fall past an edge all read the edge pixel: their weights are summed first, so a
/// kernel far wider than the image (a large sigma on a tile) costs the image's width, not the kernel's.
void gaussianBlurReplicate(std::vector<float>& img, int width, int height, int ksize, double sigma) {
    const std::vector<float> k = gaussianKernel(ksize, sigma);
    const int r = ksize / 2;
    // before[m]: the first m weights summed; after[m]: the last m.
    std::vector<float> before(k.size() + 1, 0.0f), after(k.size() + 1, 0.0f);
    double a = 0, b = 0;
    for (std::size_t m = 1; m <= k.size(); ++m) {
        a += k[m - 1];
        b += k[k.size() - m];
        before[m] = static_cast<float>(a);
        after[m] = static_cast<float>(b);
    }
    // out = sum over t of k[t] * in[clamp(pos + t - r)], for one axis of length len.
    const auto taps = [&](int pos, int len, int& first, int& last, float& wFirst, float& wLast) {
        const int lo = pos - r, hi = pos + r;
        first = std::max(lo, 0);
        last = std::min(hi, len - 1);
        wFirst = lo < 0 ? before[std::size_t(std::min(-lo, ksize))] : 0.0f;
        wLast = hi > len - 1 ? after[std::size_t(std::min(hi - (len - 1), ksize))] : 0.0f;
        return lo;
    };
    std::vector<float> tmp(img.size());
    // Rows, tap by tap across the whole row (vectorised by the compiler), each pixel's sum in the
    // order of the one-pixel definition: its first edge weight times the first pixel, its taps
    // inside the row in order, then its last edge weight times the last pixel. The row is read
    // padded with r zeros on both sides: a tap past an edge adds k * 0 = +0, which leaves a sum as
    // it is (its weight is in wFirst or wLast), so every pixel gets the definition's value.
    std::vector<float> padded(std::size_t(width) + 2 * std::size_t(r), 0.0f);
    std::vector<float> firstWeight(static_cast<std::size_t>(width)),
        lastWeight(static_cast<std::size_t>(width));
    for (int x = 0; x < width; ++x) {
        int first, last;
        taps(x, width, first, last, firstWeight[std::size_t(x)], lastWeight[std::size_t(x)]);
    }
    // As cpu::weightedSum's rows: the first edge terms (weight 1), the padded row at each tap's
    // offset, the last edge terms (weight 1); 1 * v is v, so the sums are those above.
    std::vector<float> firstTerms(static_cast<std::size_t>(width)),
        lastTerms(static_cast<std::size_t>(width));
    std::vector<const float*> rows(std::size_t(ksize) + 2);
    std::vector<float> weights(std::size_t(ksize) + 2, 1.0f);
    std::copy(k.begin(), k.end(), weights.begin() + 1);
    rows.front() = firstTerms.data();
    rows.back() = lastTerms.data();
    for (int t = 0; t < ksize; ++t) rows[std::size_t(t) + 1] = padded.data() + t;
    for (int y = 0; y < height; ++y) {
        const float* in = img.data() + std::size_t(y) * width;
        std::copy(in, in + width, padded.begin() + r);
        for (int x = 0; x < width; ++x) {
            firstTerms[std::size_t(x)] = firstWeight[std::size_t(x)] * in[0];
            lastTerms[std::size_t(x)] = lastWeight[std::size_t(x)] * in[width - 1];
        }
        cpu::weightedSum(rows.data(), weights.data(), ksize + 2, tmp.data() + std::size_t(y) * width,
                         static_cast<std::size_t>(width));
    }
    // Columns: each output row the weighted sum of the first row (its first edge weight), the rows
    // its taps fall on in order, and the last row (its last edge weight).
    const float* top = tmp.data();
    const float* bottom = tmp.data() + std::size_t(height - 1) * width;
    for (int y = 0; y < height; ++y) {
        int first, last;
        float wFirst, wLast;
        const int lo = taps(y, height, first, last, wFirst, wLast);
        std::size_t m = 0;
        rows[m] = top;
        weights[m++] = wFirst;
        for (int i = first; i <= last; ++i) {
            rows[m] = tmp.data() + std::size_t(i) * width;
            weights[m++] = k[std::size_t(i - lo)];
        }
        rows[m] = bottom;
        weights[m++] = wLast;
        cpu::weightedSum(rows.data(), weights.data(), static_cast<int>(m),
                         img.data() + std::size_t(y) * width, static_cast<std::size_t>(width));
    }
}

}  // namespace

DistortionMaps elasticMaps(const ElasticParams& p, int width, int height, double scale) {
    std::vector<float> fields = elasticNoise(p, width, height);
    if (!p.uniform) {
        float maxAbs = 0;
        for (float v : fields) maxAbs = std::max(maxAbs, std::abs(v));
        if (maxAbs > 1e-6f)
            for (float& v : fields) v /= maxAbs;
    }
    const double sigma = p.sigma * scale;
    // ksize (0, 0): cvRound(sigma * 4 * 2 + 1) | 1 for a float image.
    const int ksize = p.approximate ? std::max(1, static_cast<int>(std::lround(17 * scale)) | 1)
                                    : static_cast<int>(std::lround(sigma * 8 + 1)) | 1;
    const int fieldCount = p.sameDxDy ? 1 : 2;
    if (sigma > 0) gaussianBlurReplicate(fields, width, height * fieldCount, ksize, sigma);
    const float alpha = static_cast<float>(p.alpha * scale);
    for (float& v : fields) v *= alpha;
    DistortionMaps m{width, height, {}, {}};
    const std::size_t n = static_cast<std::size_t>(width) * height;
    m.x.resize(n);
    m.y.resize(n);
    const float* dy = fields.data() + (p.sameDxDy ? 0 : n);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const std::size_t o = std::size_t(y) * width + x;
            m.x[o] = static_cast<float>(x + static_cast<double>(fields[o]));
            m.y[o] = static_cast<float>(y + static_cast<double>(dy[o]));
        }
    return m;
}

namespace {

/// OpenCV interpolation constants for cv2.remap: INTER_AREA (3) is remap's linear.
const char* remapInterpolationName(const JsonReader& r, exporting::TransformArgs& a) {
    const auto v = r.integer(INT32_MIN, INT32_MAX);
    if (v == 0) return "nearest";
    if (v != 1 && v != 3)
        a.warn(r, "OpenCV interpolation " + std::to_string(v) +
                      " is not nearest (0) or linear (1, or 3, which cv2.remap runs as linear): linear.");
    return "linear";
}

/// What both ops share: the remap's settings, the targets, the exports' refusals.
template <typename Params>
class DistortionModule : public OpModule {
public:
    static std::vector<ParamDesc> remapParams() {
        return {
            choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                   "How source pixels are sampled."),
            choice("border", "Border", kBorderChoices, "constant", "What is shown outside the source image."),
            fill("fill", false, "Colour of the constant border."),
            choice("keypoint_remapping", "Keypoints", kKeypointRemapChoices, "mask",
                   "How keypoints move (Albumentations' keypoint_remapping_method): \"mask\" draws each "
                   "as a small disc, remaps it and takes its first pixel (a keypoint whose disc "
                   "vanishes is dropped); \"direct\" looks it up in an inverse map.")};
    }

    static void sampleRemap(const OpConfig& op, Params& p) {
        p.interpolation = interpolationFromName(op.choice("interpolation"));
        p.border = borderFromName(op.choice("border"));
        p.fill = rgbOf(op.fill("fill"));
        p.keypoints = keypointRemapFromName(op.choice("keypoint_remapping"));
    }

    static void writeRemap(const Params& p, Json& j) {
        j["interpolation"] = interpolationName(p.interpolation);
        j["border"] = borderName(p.border);
        j["fill"] = rgbJson(p.fill);
        j["keypoint_remapping"] = keypointRemapName(p.keypoints);
    }

    static void readRemap(const JsonReader& r, Params& p) {
        p.interpolation = readInterpolation(r, "interpolation");
        p.border = readBorder(r, "border");
        p.fill = readRgb(r.member("fill"));
        p.keypoints = keypointRemapFromName(eitherOf(r.member("keypoint_remapping"), "mask", "direct"));
    }

    /// The op's maps for a width x height image; `scale`: stage pixels per frame pixel.
    virtual DistortionMaps maps(const Params& p, int width, int height, double scale) const = 0;

    /// maps() of the last call on this thread with the same arguments, kept: a sample's plan, its
    /// boxes and keypoints, and every pack of three of its masks ask for the same full-size maps (an
    /// elastic field's smoothing takes seconds at camera sizes). Holds 8 bytes per pixel of the last
    /// frame, per thread.
    const DistortionMaps& cachedMaps(const Params& p, int width, int height, double scale) const {
        struct Entry {
            Params params;
            int width, height;
            double scale;
            DistortionMaps maps;
        };
        thread_local std::optional<Entry> last;
        if (!last || !(last->params == p) || last->width != width || last->height != height ||
            last->scale != scale)
            last = Entry{p, width, height, scale, maps(p, width, height, scale)};
        return last->maps;
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& p = std::get<Params>(params);
        const DistortionMaps& m = cachedMaps(p, f.width, f.height, 1.0);
        remapTargets(f, m.x, m.y, p.keypoints == KeypointRemap::Direct);
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<Params>(params);
        // A tile's stage gets the maps of an image of its own size (the same steps or coefficient).
        const DistortionMaps& m = cachedMaps(p, b.stageWidth(), b.stageHeight(), std::sqrt(b.sx() * b.sy()));
        b.remapStage(m.x, m.y, p.interpolation, p.border, p.fill);
    }

    static void writeAlbumentationsRemap(const OpConfig& op, exporting::AlbumentationsFlavour flavour,
                                         Json& j) {
        using namespace exporting;
        j["interpolation"] = cvInterpolation(op.choice("interpolation"));
        j["mask_interpolation"] = 0;
        j["keypoint_remapping_method"] = op.choice("keypoint_remapping");
        j["border_mode"] = cvBorder(op.choice("border"));
        j["fill"] = remapFillValue(op.fill("fill"));  // one number would paint (v, 0, 0)
        j["fill_mask"] = flavour == AlbumentationsFlavour::AlbumentationsX ? Json(nullptr) : Json(0.0);
    }

    static void readAlbumentationsRemap(exporting::TransformArgs& a, OpConfig& op) {
        using namespace exporting;
        op.set("interpolation", std::string(remapInterpolationName(a.get("interpolation"), a)));
        op.set("border", std::string(borderName(a.get("border_mode"), a)));
        op.set("fill", readRemapFill(a.get("fill", {"value"}), a));
        if (a.version().before2()) {
            op.set("keypoint_remapping", std::string("mask"));
        } else {
            op.set("keypoint_remapping", eitherOf(a.get("keypoint_remapping_method"), "mask", "direct"));
        }
        a.maskOnly("fill_mask", {"mask_value"});
        a.maskOnly("mask_interpolation");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, what());
    }

    virtual std::string what() const = 0;
};

constexpr std::uint32_t kNumStepsDraw = 1;  // draw 0 is the gate
constexpr std::uint32_t kFirstStepDraw = 2;

class GridDistortionModule final : public DistortionModule<GridDistortionParams> {
public:
    OpDesc describe(OpId id) const override {
        std::vector<ParamDesc> ps{
            intRange(
                "num_steps", "Grid cells", "cells per side", 1, 64, {5, 5},
                "Cells on each side of the grid (the library takes one number: give both ends the same)."),
            floatRange("distort_limit", "Distortion", "fraction of a cell", -1, 1, {-0.3, 0.3},
                       "Each cell's width (and height) is scaled by 1 + a value drawn from this range."),
            boolean("normalized", "Normalized", true,
                    "Scale the cells so that the grid spans the image exactly (nothing leaves it)."),
        };
        for (ParamDesc& d : remapParams()) ps.push_back(std::move(d));
        return makeOp(id, "grid_distortion", "Grid distortion", OpCategory::Geometric,
                      "Albumentations 2.0.8 GridDistortion: the image is cut into a num_steps x num_steps "
                      "grid whose columns and rows are stretched or squeezed by 1 + U(distort_limit) each "
                      "(normalized: scaled back to span the image), then remapped (cv2.remap).",
                      std::move(ps));
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        GridDistortionParams p;
        const Range n = op.range("num_steps");
        p.numSteps = static_cast<int>(d.randint(kNumStepsDraw, std::llround(n.min), std::llround(n.max)));
        p.normalized = op.flag("normalized");
        const Range limit = op.range("distort_limit");
        const std::uint32_t count = static_cast<std::uint32_t>(p.numSteps) + 1;
        for (std::uint32_t i = 0; i < count; ++i)
            p.stepsX.push_back(1 + d.uniform(kFirstStepDraw + i, limit));
        for (std::uint32_t i = 0; i < count; ++i)
            p.stepsY.push_back(1 + d.uniform(kFirstStepDraw + count + i, limit));
        sampleRemap(op, p);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<GridDistortionParams>(params);
        j["num_steps"] = p.numSteps;
        j["normalized"] = p.normalized;
        j["steps_x"] = p.stepsX;
        j["steps_y"] = p.stepsY;
        writeRemap(p, j);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "num_steps", "normalized", "steps_x", "steps_y", "interpolation",
                         "border", "fill", "keypoint_remapping"});
        GridDistortionParams p;
        p.numSteps = static_cast<int>(r.member("num_steps").integer(1, 64));
        p.normalized = r.member("normalized").boolean();
        for (const char* key : {"steps_x", "steps_y"}) {
            const JsonReader a = r.member(key);
            if (a.arraySize() != static_cast<std::size_t>(p.numSteps) + 1)
                a.fail("expected num_steps + 1 = " + std::to_string(p.numSteps + 1) + " steps");
            std::vector<double>& out = key[6] == 'x' ? p.stepsX : p.stepsY;
            for (std::size_t i = 0; i < a.arraySize(); ++i) out.push_back(a.element(i).numberIn(-100, 100));
        }
        readRemap(r, p);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<GridDistortionParams>(params);
        if (key == "num_steps") return {double(p.numSteps)};
        if (key != "distort_limit") return {};
        std::vector<double> v;
        for (double s : p.stepsX) v.push_back(s - 1);
        for (double s : p.stepsY) v.push_back(s - 1);
        return v;
    }

    DistortionMaps maps(const GridDistortionParams& p, int width, int height, double) const override {
        return gridDistortionMaps(p, width, height);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"GridDistortion"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("GridDistortion", op.p);
        const Range n = op.range("num_steps");
        if (n.min != n.max)
            warnings.push_back(e.label() + ": Albumentations takes one num_steps; [" + formatNumber(n.min) +
                               ", " + formatNumber(n.max) + "] is written as its lower end, " +
                               formatNumber(n.min) + ".");
        j["num_steps"] = static_cast<int>(n.min);
        j["distort_limit"] = pair(op.range("distort_limit"));
        j["normalized"] = op.flag("normalized");
        writeAlbumentationsRemap(op, flavour, j);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        // 1.x reflected at the border.
        return {{"p", 0.5},
                {"num_steps", 5},
                {"distort_limit", {-0.3, 0.3}},
                {"interpolation", 1},
                {"normalized", true},
                {"border_mode", v.before2() ? 4 : 0},
                {"fill", 0.0},
                {"keypoint_remapping_method", "mask"}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader n = a.get("num_steps");
        const double steps = static_cast<double>(n.integer(1, INT32_MAX));
        op.set("num_steps", a.clamp(n, Range{steps, steps}, 1, 64));
        const JsonReader limit = a.get("distort_limit");
        op.set("distort_limit", a.clamp(limit, symmetricRange(limit), -1, 1));
        op.set("normalized", a.get("normalized").boolean());
        readAlbumentationsRemap(a, op);
    }

    std::string what() const override { return "grid distortion"; }
};

constexpr std::uint32_t kCoefficientDraw = 1;  // draw 0 is the gate

class OpticalDistortionModule final : public DistortionModule<OpticalDistortionParams> {
public:
    OpDesc describe(OpId id) const override {
        std::vector<ParamDesc> ps{
            floatRange("distort_limit", "Distortion", "coefficient", -10, 10, {-0.05, 0.05},
                       "The distortion coefficient k, drawn from this range: negative bulges (barrel), "
                       "positive pinches (pincushion)."),
            choice("mode", "Model", {"camera", "fisheye"}, "camera",
                   "camera: OpenCV's lens model with k1 = k2 = k (focal lengths W and H); fisheye: the "
                   "radius scaled by 1 + k (r / r_max)^2."),
        };
        for (ParamDesc& d : remapParams()) ps.push_back(std::move(d));
        OpDesc d =
            makeOp(id, "optical_distortion", "Optical distortion", OpCategory::Geometric,
                   "Albumentations 2.0.8 OpticalDistortion: a lens distortion with coefficient k drawn "
                   "from distort_limit, as OpenCV's camera model (cv2.initUndistortRectifyMap) or a "
                   "fisheye model, then remapped (cv2.remap).",
                   std::move(ps));
        typical(d, "distort_limit", -1, 1);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        OpticalDistortionParams p;
        p.k = d.uniform(kCoefficientDraw, op.range("distort_limit"));
        p.fisheye = op.choice("mode") == "fisheye";
        sampleRemap(op, p);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<OpticalDistortionParams>(params);
        j["k"] = p.k;
        j["mode"] = p.fisheye ? "fisheye" : "camera";
        writeRemap(p, j);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject(
            {"op", "applied", "k", "mode", "interpolation", "border", "fill", "keypoint_remapping"});
        OpticalDistortionParams p;
        p.k = r.member("k").numberIn(-1000, 1000);
        p.fisheye = eitherOf(r.member("mode"), "camera", "fisheye") == "fisheye";
        readRemap(r, p);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "distort_limit") return {std::get<OpticalDistortionParams>(params).k};
        return {};
    }

    DistortionMaps maps(const OpticalDistortionParams& p, int width, int height, double) const override {
        return opticalDistortionMaps(p, width, height);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"OpticalDistortion"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("OpticalDistortion", op.p);
        j["distort_limit"] = pair(op.range("distort_limit"));
        j["mode"] = op.choice("mode");
        writeAlbumentationsRemap(op, flavour, j);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        // 1.x reflected at the border and shifted the centre by shift_limit (rounded to whole pixels).
        nlohmann::json d = {{"p", 0.5},
                            {"distort_limit", {-0.05, 0.05}},
                            {"interpolation", 1},
                            {"border_mode", v.before2() ? 4 : 0},
                            {"fill", 0.0},
                            {"mode", "camera"},
                            {"keypoint_remapping_method", "mask"}};
        if (v.before2()) d["shift_limit"] = {-0.05, 0.05};
        return d;
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader limit = a.get("distort_limit");
        op.set("distort_limit", a.clamp(limit, symmetricRange(limit), -10, 10));
        if (a.version().before2()) {
            // 1.x moved the centre by round(U(shift_limit)) pixels: no shift while |limit| < 0.5.
            const JsonReader shift = a.get("shift_limit");
            const Range s = symmetricRange(shift);
            if (std::max(std::abs(s.min), std::abs(s.max)) >= 0.5)
                a.warn(shift,
                       "1.x shifted the lens centre by round(U(shift_limit)) pixels; AugLab keeps it "
                       "at the image centre (2.0's OpticalDistortion has no shift).");
            op.set("mode", std::string("camera"));
        } else {
            op.set("mode", eitherOf(a.get("mode"), "camera", "fisheye"));
        }
        readAlbumentationsRemap(a, op);
    }

    std::string what() const override { return "lens distortion"; }
};

constexpr std::uint32_t kNoiseSeedDraw = 1;  // draw 0 is the gate

class ElasticTransformModule final : public DistortionModule<ElasticParams> {
public:
    OpDesc describe(OpId id) const override {
        std::vector<ParamDesc> ps{
            number("alpha", "Strength", "px", 0, 10000, 1,
                   "The displacement's scale: the smoothed noise (at most about 1) times alpha pixels."),
            number("sigma", "Smoothness", "px", 0, 1000, 50,
                   "Sigma of the Gaussian that smooths the noise: larger is smoother and more global."),
            boolean("approximate", "Approximate", false,
                    "Smooth with a 17 x 17 kernel (faster on large sigma)."),
            boolean("same_dxdy", "Same field for x and y", false,
                    "One noise field moves pixels along both axes alike."),
            choice("noise_distribution", "Noise", {"gaussian", "uniform"}, "gaussian",
                   "gaussian: normal noise divided by its largest magnitude; uniform: U(-1, 1)."),
        };
        for (ParamDesc& d : remapParams()) ps.push_back(std::move(d));
        OpDesc d =
            makeOp(id, "elastic_transform", "Elastic transform", OpCategory::Geometric,
                   "Albumentations 2.0.8 ElasticTransform: a random displacement field per pixel, smoothed "
                   "by a Gaussian of `sigma` and scaled by `alpha`, then remapped (cv2.remap). The noise "
                   "is AugLab's own stream (the same distribution, not numpy's numbers); a tile "
                   "draws its own at its size.",
                   std::move(ps));
        typical(d, "alpha", 0, 200);
        typical(d, "sigma", 1, 60);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        ElasticParams p;
        p.alpha = op.number("alpha");
        p.sigma = op.number("sigma");
        p.approximate = op.flag("approximate");
        p.sameDxDy = op.flag("same_dxdy");
        p.uniform = op.choice("noise_distribution") == "uniform";
        p.noiseSeed = d.bits64(kNoiseSeedDraw);
        sampleRemap(op, p);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<ElasticParams>(params);
        j["alpha"] = p.alpha;
        j["sigma"] = p.sigma;
        j["approximate"] = p.approximate;
        j["same_dxdy"] = p.sameDxDy;
        j["noise_distribution"] = p.uniform ? "uniform" : "gaussian";
        j["noise_seed"] = std::to_string(p.noiseSeed);  // a string: doubles would round it
        writeRemap(p, j);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "alpha", "sigma", "approximate", "same_dxdy", "noise_distribution",
                         "noise_seed", "interpolation", "border", "fill", "keypoint_remapping"});
        ElasticParams p;
        p.alpha = r.member("alpha").numberIn(0, 10000);
        p.sigma = r.member("sigma").numberIn(0, 1000);
        p.approximate = r.member("approximate").boolean();
        p.sameDxDy = r.member("same_dxdy").boolean();
        p.uniform = eitherOf(r.member("noise_distribution"), "gaussian", "uniform") == "uniform";
        p.noiseSeed = r.member("noise_seed").unsignedInteger64();
        readRemap(r, p);
        return p;
    }

    DistortionMaps maps(const ElasticParams& p, int width, int height, double scale) const override {
        return elasticMaps(p, width, height, scale);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ElasticTransform"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        Json j = start("ElasticTransform", op.p);
        j["alpha"] = op.number("alpha");
        j["sigma"] = op.number("sigma");
        j["approximate"] = op.flag("approximate");
        j["same_dxdy"] = op.flag("same_dxdy");
        j["noise_distribution"] = op.choice("noise_distribution");
        writeAlbumentationsRemap(op, flavour, j);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        // 1.x reflected at the border and had alpha_affine (an affine jitter, removed in 1.4).
        return {{"p", 0.5},
                {"alpha", 1.0},
                {"sigma", 50.0},
                {"interpolation", 1},
                {"approximate", false},
                {"same_dxdy", false},
                {"noise_distribution", "gaussian"},
                {"border_mode", v.before2() ? 4 : 0},
                {"fill", 0.0},
                {"keypoint_remapping_method", "mask"}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const auto scalar = [&](const char* key, double lower, double upper) {
            const JsonReader r = a.get(key);
            const double v = r.number();
            const double c = std::clamp(v, lower, upper);
            if (c != v)
                a.warn(r, std::string(key) + " " + formatNumber(v) + " limited to " + formatNumber(c) + ".");
            op.set(key, c);
        };
        scalar("alpha", 0, 10000);
        scalar("sigma", 0, 1000);
        op.set("approximate", a.get("approximate").boolean());
        op.set("same_dxdy", a.get("same_dxdy").boolean());
        if (a.version().before2()) {
            op.set("noise_distribution", std::string("gaussian"));
            if (const auto affine = a.find({"alpha_affine"}); affine && affine->number() != 0)
                a.warn(*affine,
                       "1.x's alpha_affine (an affine jitter before the elastic field) is left out: "
                       "2.0's ElasticTransform has none (use an affine op).");
        } else {
            op.set("noise_distribution", eitherOf(a.get("noise_distribution"), "gaussian", "uniform"));
        }
        readAlbumentationsRemap(a, op);
    }

    std::string what() const override { return "elastic transform with OpenCV's smoothing and remap"; }
};

}  // namespace

const OpModule& gridDistortionModule() {
    static const GridDistortionModule module;
    return module;
}

const OpModule& opticalDistortionModule() {
    static const OpticalDistortionModule module;
    return module;
}

const OpModule& elasticTransformModule() {
    static const ElasticTransformModule module;
    return module;
}

}  // namespace auglab
