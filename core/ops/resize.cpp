// resize, longest_max_size, smallest_max_size, random_scale: Albumentations 2.0.8 Resize,
// LongestMaxSize, SmallestMaxSize and RandomScale. Everything AugLab knows about the ops is here
// (core/ops/op_module.h, docs/adding-an-op.md).
//
// Each replaces the frame by the frame resized (cv2.resize: pixel centres aligned, edges repeated);
// a resize to the frame's own size leaves it as it is, as fgeometric.resize does. They may come
// anywhere in a pipeline: the ops before a resize work at the size before it (each plan stage has
// its own size).

#include "ops/resize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "error.h"
#include "export_common.h"
#include "geometry.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

enum class Kind { Resize, LongestMaxSize, SmallestMaxSize, RandomScale };

/// The draw of longest_max_size / smallest_max_size's side length, of random_scale's factor (draw 0
/// is the gate).
constexpr std::uint32_t kMaxSizeDraw = 1, kScaleDraw = 1;

/// A side computed in double as an int; one past what an int holds becomes INT_MAX (the sampler
/// then refuses the frame as over the pixel limit) instead of an undefined conversion.
int sideOf(double v) {
    return v >= 2147483647.0 ? std::numeric_limits<int>::max() : static_cast<int>(v);
}

/// fgeometric.scale: each side int(side * scale) (truncated).
void scaledOutput(double scale, int width, int height, int& outW, int& outH) {
    outW = sideOf(width * scale);
    outH = sideOf(height * scale);
}

/// Albumentations' MaxSizeTransform: scale = m / the longer (shorter) side in double, each side
/// max(1, round(side * scale)) with Python's round (half to even).
void maxSizeOutput(Kind kind, int maxSize, int width, int height, int& outW, int& outH) {
    const double side = kind == Kind::LongestMaxSize ? std::max(width, height) : std::min(width, height);
    const double scale = maxSize / side;
    outW = sideOf(std::max(1.0, std::nearbyint(width * scale)));
    outH = sideOf(std::max(1.0, std::nearbyint(height * scale)));
}

const char* className(Kind kind) {
    switch (kind) {
        case Kind::Resize:
            return "Resize";
        case Kind::LongestMaxSize:
            return "LongestMaxSize";
        case Kind::SmallestMaxSize:
            return "SmallestMaxSize";
        case Kind::RandomScale:
            return "RandomScale";
    }
    return "Resize";
}

/// The side lengths a max-size op draws from, as a Python list.
std::string pySizes(const Range& r) {
    const auto lo = static_cast<long>(r.min), hi = static_cast<long>(r.max);
    if (lo == hi) return "[" + std::to_string(lo) + "]";
    return "list(range(" + std::to_string(lo) + ", " + std::to_string(hi + 1) + "))";
}

class ResizeModule final : public OpModule {
public:
    explicit ResizeModule(Kind kind) : kind_(kind) {}

    OpDesc describe(OpId id) const override {
        const ParamDesc interpolation =
            choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                   "How the image is resampled (cv2.resize: linear, or nearest, which picks floor(x * "
                   "old / new)).");
        OpDesc d;
        if (kind_ == Kind::RandomScale) {
            d = makeOp(id, "random_scale", "Random scale", OpCategory::Geometric,
                       "Albumentations RandomScale: the image resized by a factor 1 + U(scale_limit), aspect "
                       "ratio kept, each side int(side * factor) (truncated), as cv2.resize does. The ops "
                       "after it work at that size.",
                       {floatRange("scale_limit", "Scale change", "fraction", -0.99, 10, {-0.1, 0.1},
                                   "The factor minus 1, drawn uniformly: -0.1 to 0.1 scales by 0.9 to 1.1."),
                        interpolation});
            typical(d, "scale_limit", -0.5, 1);
        } else if (kind_ == Kind::Resize) {
            d = makeOp(
                id, "resize", "Resize", OpCategory::Geometric,
                "Albumentations Resize: the image resized to `size` (height, width), aspect ratio not "
                "kept, as cv2.resize does. The ops after it work at that size; the ops before it at "
                "the size before it.",
                {sizeParam("size", "Size", 1, 16384, {256, 256}, "Height and width of the output in pixels."),
                 interpolation});
        } else {
            const bool longest = kind_ == Kind::LongestMaxSize;
            d = makeOp(
                id, longest ? "longest_max_size" : "smallest_max_size",
                longest ? "Longest max size" : "Smallest max size", OpCategory::Geometric,
                std::string("Albumentations ") + className(kind_) +
                    ": the image scaled, aspect ratio kept, so that its " + (longest ? "longer" : "shorter") +
                    " side becomes `max_size` px (drawn uniformly from the range's integers); each side "
                    "is round(side * scale). The ops after it work at that size.",
                {intRange("max_size", "Max size", "px", 1, 16384, {1024, 1024},
                          std::string("Length of the ") + (longest ? "longer" : "shorter") +
                              " side after the resize; a range draws one of its integers uniformly."),
                 interpolation});
            typical(d, "max_size", 32, 2048, true);
        }
        d.setsFrame = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        ResizeParams r;
        r.interpolation = interpolationFromName(op.choice("interpolation"));
        if (kind_ == Kind::Resize) {
            const Size2 size = op.size("size");
            r.outWidth = size.width;
            r.outHeight = size.height;
            return r;
        }
        if (kind_ == Kind::RandomScale) {
            const Range l = op.range("scale_limit");
            r.scale = d.uniform(kScaleDraw, l.min, l.max) + 1.0;
            scaledOutput(r.scale, width, height, r.outWidth, r.outHeight);
            if (r.outWidth < 1 || r.outHeight < 1)
                throw InputError(opDesc(OpId::RandomScale).name + ": the " + std::to_string(width) + "x" +
                                 std::to_string(height) + " image scaled by " + formatNumber(r.scale) +
                                 " has no pixels left (a side of 0)");
            return r;
        }
        const Range m = op.range("max_size");
        r.maxSize =
            static_cast<int>(m.min == m.max ? m.min
                                            : d.randint(kMaxSizeDraw, static_cast<std::int64_t>(m.min),
                                                        static_cast<std::int64_t>(m.max)));
        maxSizeOutput(kind_, r.maxSize, width, height, r.outWidth, r.outHeight);
        return r;
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const auto& r = std::get<ResizeParams>(params);
        width = r.outWidth;
        height = r.outHeight;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& r = std::get<ResizeParams>(params);
        if (kind_ == Kind::RandomScale) j["scale"] = r.scale;
        if (kind_ == Kind::LongestMaxSize || kind_ == Kind::SmallestMaxSize) j["max_size"] = r.maxSize;
        j["size"] = Json::array({r.outHeight, r.outWidth});
        j["interpolation"] = interpolationName(r.interpolation);
    }

    OpParams readReplay(const JsonReader& r) const override {
        if (kind_ == Kind::Resize)
            r.requireObject({"op", "applied", "size", "interpolation"});
        else if (kind_ == Kind::RandomScale)
            r.requireObject({"op", "applied", "scale", "size", "interpolation"});
        else
            r.requireObject({"op", "applied", "max_size", "size", "interpolation"});
        ResizeParams p;
        if (kind_ == Kind::RandomScale) p.scale = replay_fields::num(r, "scale", 0.01, 11);
        if (kind_ == Kind::LongestMaxSize || kind_ == Kind::SmallestMaxSize)
            p.maxSize = static_cast<int>(r.member("max_size").integer(1, 16384));
        const JsonReader size = r.member("size");
        if (size.arraySize() != 2) size.fail("expected [height, width]");
        p.outHeight = static_cast<int>(size.element(0).integer(1, 16384 * 16));
        p.outWidth = static_cast<int>(size.element(1).integer(1, 16384 * 16));
        p.interpolation = replay_fields::readInterpolation(r, "interpolation");
        return p;
    }

    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override {
        const auto& p = std::get<ResizeParams>(params);
        if (kind_ == Kind::Resize) return;
        int w = 0, h = 0;
        if (kind_ == Kind::RandomScale)
            scaledOutput(p.scale, frameW, frameH, w, h);
        else
            maxSizeOutput(kind_, p.maxSize, frameW, frameH, w, h);
        if (w != p.outWidth || h != p.outHeight)
            o.member("size").fail("a " + std::to_string(frameW) + "x" + std::to_string(frameH) +
                                  " image with " +
                                  (kind_ == Kind::RandomScale ? "scale " + formatNumber(p.scale)
                                                              : "max_size " + std::to_string(p.maxSize)) +
                                  " becomes [" + std::to_string(h) + ", " + std::to_string(w) + "], not [" +
                                  std::to_string(p.outHeight) + ", " + std::to_string(p.outWidth) + "]");
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "max_size" && (kind_ == Kind::LongestMaxSize || kind_ == Kind::SmallestMaxSize))
            return {double(std::get<ResizeParams>(params).maxSize)};
        if (key == "scale_limit" && kind_ == Kind::RandomScale)
            return {std::get<ResizeParams>(params).scale - 1.0};
        return {};
    }

    /// Boxes are normalised in Albumentations, so they keep their place (pixels scale with the image);
    /// keypoints scale by new / old per axis (Resize) or by maxSize / side on both (keypoints_scale
    /// with the transform's scale), their scales by the larger factor.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& p = std::get<ResizeParams>(params);
        const double bx = double(p.outWidth) / f.width, by = double(p.outHeight) / f.height;
        for (Box& b : f.boxes) {
            b.x0 *= bx;
            b.x1 *= bx;
            b.y0 *= by;
            b.y1 *= by;
        }
        double kx = bx, ky = by;
        if (kind_ == Kind::RandomScale) {
            kx = ky = p.scale;
        } else if (kind_ != Kind::Resize) {
            const double side =
                kind_ == Kind::LongestMaxSize ? std::max(f.width, f.height) : std::min(f.width, f.height);
            kx = ky = p.maxSize / side;
        }
        for (Keypoint& k : f.keypoints) {
            k.x *= kx;
            k.y *= ky;
            k.scale *= std::max(kx, ky);
        }
        f.width = p.outWidth;
        f.height = p.outHeight;
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<ResizeParams>(params);
        const int w = b.frameWidth(), h = b.frameHeight();
        if (p.outWidth == w && p.outHeight == h) return;  // fgeometric.resize returns the image itself
        b.newFrame(resizeMatrix(w, h, p.outWidth, p.outHeight), p.outWidth, p.outHeight, w, h,
                   p.interpolation);
    }

    std::vector<std::string> albumentationsClasses() const override { return {className(kind_)}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        if (op.p < 1)
            warnings.push_back(e.label() + ": p = " + formatNumber(op.p) +
                               ": the images it skips keep their own size, so a batch mixes sizes (as in "
                               "AugLab's preview); training code usually wants p = 1.");
        Json j = start(className(kind_), op.p);
        j["area_for_downscale"] = nullptr;
        if (kind_ == Kind::RandomScale) {
            j["interpolation"] = cvInterpolation(op.choice("interpolation"));
            j["mask_interpolation"] = 0;
            j["scale_limit"] = pair(op.range("scale_limit"));
            return j;
        }
        if (kind_ == Kind::Resize) j["height"] = op.size("size").height;
        j["interpolation"] = cvInterpolation(op.choice("interpolation"));
        j["mask_interpolation"] = 0;
        if (kind_ == Kind::Resize) {
            j["width"] = op.size("size").width;
        } else {
            const Range m = op.range("max_size");
            if (m.min == m.max) {
                j["max_size"] = static_cast<int>(m.min);
            } else {
                Json sizes = Json::array();
                for (auto v = static_cast<int>(m.min); v <= static_cast<int>(m.max); ++v) sizes.push_back(v);
                j["max_size"] = sizes;  // py_random.choice over every integer of the range
            }
            j["max_size_hw"] = nullptr;
        }
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        if (kind_ == Kind::RandomScale)
            return v.before2()
                       ? nlohmann::json{{"p", 0.5}, {"scale_limit", {-0.1, 0.1}}, {"interpolation", 1}}
                       : nlohmann::json{{"p", 0.5},
                                        {"scale_limit", {-0.1, 0.1}},
                                        {"interpolation", 1},
                                        {"mask_interpolation", 0},
                                        {"area_for_downscale", nullptr}};
        if (kind_ == Kind::Resize)
            return v.before2() ? nlohmann::json{{"p", 1.0}, {"interpolation", 1}}
                               : nlohmann::json{{"p", 1.0},
                                                {"interpolation", 1},
                                                {"mask_interpolation", 0},
                                                {"area_for_downscale", nullptr}};
        return v.before2()
                   ? nlohmann::json{{"p", 1.0}, {"max_size", 1024}, {"interpolation", 1}}
                   : nlohmann::json{
                         {"p", 1.0},           {"max_size", nullptr},     {"max_size_hw", nullptr},
                         {"interpolation", 1}, {"mask_interpolation", 0}, {"area_for_downscale", nullptr}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        if (kind_ == Kind::RandomScale) {
            // to_tuple: a single number v means (-v, v).
            const JsonReader l = a.get("scale_limit");
            op.set("scale_limit", a.clamp(l, symmetricRange(l), -0.99, 10));
        } else if (kind_ == Kind::Resize) {
            const std::optional<JsonReader> height = a.find({"height"}), width = a.find({"width"});
            if (!height || !width) a.fail(a.get("p"), "Resize without height and width");
            op.set("size", Size2{static_cast<int>(height->integer(1, 16384)),
                                 static_cast<int>(width->integer(1, 16384))});
        } else {
            if (const std::optional<JsonReader> hw = a.find({"max_size_hw"}); hw && !hw->json().is_null()) {
                a.leaveOut(*hw,
                           "max_size_hw (a box to fit in) has no AugLab equivalent: AugLab scales to one "
                           "side length (max_size).");
                return;
            }
            const JsonReader m = a.get("max_size");
            if (m.json().is_null()) a.fail(m, std::string(className(kind_)) + " without max_size");
            if (m.json().is_number()) {
                const auto v = static_cast<double>(m.integer(1, 16384));
                op.set("max_size", Range{v, v});
            } else {
                // A list: AugLab draws from a range of integers, so the list must be one.
                std::vector<std::int64_t> values;
                for (std::size_t i = 0, n = m.arraySize(); i < n; ++i)
                    values.push_back(m.element(i).integer(1, 16384));
                if (values.empty()) a.fail(m, "an empty list of sizes");
                std::sort(values.begin(), values.end());
                values.erase(std::unique(values.begin(), values.end()), values.end());
                if (values.back() - values.front() + 1 != static_cast<std::int64_t>(values.size())) {
                    a.leaveOut(m,
                               "a list of sizes that is not every integer of a range: AugLab draws "
                               "max_size uniformly from a range's integers.");
                    return;
                }
                op.set("max_size", Range{double(values.front()), double(values.back())});
            }
        }
        op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
        if (const std::optional<JsonReader> area = a.find({"area_for_downscale"});
            area && !area->json().is_null())
            a.warn(*area,
                   "INTER_AREA for downscaling cannot be expressed: resized with the interpolation given.");
        a.maskOnly("mask_interpolation");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const bool nearest = op.choice("interpolation") == "nearest";
        const Size2 size = kind_ == Kind::Resize ? op.size("size") : Size2{};
        const Range m = kind_ == Kind::Resize || kind_ == Kind::RandomScale ? Range{} : op.range("max_size");
        const bool longest = kind_ == Kind::LongestMaxSize;
        if (kind_ == Kind::RandomScale) {
            scaleToPython(e, x, nearest);
            return;
        }
        switch (x.target) {
            case PythonTarget::Torchvision: {
                const std::string interp =
                    std::string("v2.InterpolationMode.") + (nearest ? "NEAREST" : "BILINEAR");
                std::string t;
                if (kind_ == Kind::Resize) {
                    t = "v2.Resize(size=(" + std::to_string(size.height) + ", " + std::to_string(size.width) +
                        "), interpolation=" + interp + ", antialias=False)";
                } else {
                    x.helperUsed = true;
                    t = "MaxSizeResize(sizes=" + pySizes(m) + ", longest=" + (longest ? "True" : "False") +
                        ", interpolation=" + interp + ")";
                }
                x.lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras: {
                if (kind_ != Kind::Resize) {
                    notExported(e, x,
                                L + ": Keras resizes a whole batch to one size (layers.Resizing): the size "
                                    "that depends on each image's sides is not exported; resize to a fixed "
                                    "size instead.");
                    return;
                }
                if (op.p < 1) {
                    notExported(e, x,
                                L + ": p = " + formatNumber(op.p) +
                                    ": Keras batches hold one image size, so a resize that some images skip "
                                    "is not exported.");
                    return;
                }
                x.lines += "    layers.Resizing(" + std::to_string(size.height) + ", " +
                           std::to_string(size.width) + ", interpolation=\"" +
                           (nearest ? "nearest" : "bilinear") + "\"),\n";
                return;
            }
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                if (op.p < 1)
                    x.warnings.push_back(L +
                                         ": DALI resizes every image (a batch's images of one pipeline "
                                         "stage share no per-sample skip of a resize): p = " +
                                         formatNumber(op.p) + " becomes 1.");
                const std::string interp = std::string("types.") + (nearest ? "INTERP_NN" : "INTERP_LINEAR");
                if (nearest)
                    x.warnings.push_back(L +
                                         ": DALI's nearest resize takes the pixel under each output "
                                         "pixel's centre; cv2.resize takes floor(x * old / new): a pixel "
                                         "apart in places.");
                if (kind_ == Kind::Resize) {
                    s += "    images = fn.resize(images, resize_x=" + pyFloat(size.width) +
                         ", resize_y=" + pyFloat(size.height) + ", interp_type=" + interp +
                         ", antialias=False)\n";
                    s += "    height, width = " + pyFloat(size.height) + ", " + pyFloat(size.width) + "\n";
                    return;
                }
                // Each side's size as the library rounds it (DALI's resize_longer would scale both axes
                // by one factor; cv2.resize maps each axis by its own ratio of sizes).
                x.warnings.push_back(L +
                                     ": a side of exactly n + 0.5 pixels rounds up here (Python's round "
                                     "takes the even neighbour).");
                std::string sizes = pyFloat(m.min);
                if (m.min != m.max) {
                    sizes = "fn.random.uniform(values=[";
                    for (auto v = static_cast<int>(m.min); v <= static_cast<int>(m.max); ++v) {
                        if (v > static_cast<int>(m.min)) sizes += ", ";
                        sizes += pyFloat(v);
                    }
                    sizes += "])";
                }
                s += "    shape = images.shape(dtype=types.FLOAT)  # DataNodes (a resize before may have set "
                     "numbers)\n";
                s += "    height, width = shape[0], shape[1]\n";
                s += "    scale = " + sizes + " / dmath." + (longest ? "max" : "min") + "(height, width)\n";
                s += "    images = fn.resize(images, resize_x=dmath.max(1.0, dmath.floor(width * scale + "
                     "0.5)), "
                     "resize_y=dmath.max(1.0, dmath.floor(height * scale + 0.5)), interp_type=" +
                     interp + ", antialias=False)\n";
                s += "    shape = images.shape(dtype=types.FLOAT)\n";
                s += "    height, width = shape[0], shape[1]\n";
                return;
            }
        }
    }

    static void scaleToPython(const exporting::ExportedOp& e, PythonExport& x, bool nearest) {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const Range l = op.range("scale_limit");
        switch (x.target) {
            case PythonTarget::Torchvision: {
                x.helperUsed = true;
                if (nearest)
                    x.warnings.push_back(
                        L +
                        ": torchvision's nearest resize picks the source row and column with a "
                        "float32 ratio, cv2.resize with a double one: a row or column apart in "
                        "places at some sizes.");
                const std::string t = "RandomScale(limit=" + pyRange(l) +
                                      ", interpolation=v2.InterpolationMode." +
                                      (nearest ? "NEAREST" : "BILINEAR") + ")";
                x.lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras:
                notExported(
                    e, x,
                    L + ": Keras resizes a whole batch to one size (layers.Resizing): a size drawn per "
                        "image is not exported.");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                if (nearest)
                    x.warnings.push_back(
                        L +
                        ": DALI's nearest resize takes the pixel under each output pixel's "
                        "centre; cv2.resize takes floor(x * old / new): a pixel apart in places.");
                // A skipped image gets the factor 1: DALI's resize to the same size leaves it as it is.
                s += "    scale = 1.0 + " + daliUniform(l) + " * " + daliCoin(op.p) + "\n";
                s += "    shape = images.shape(dtype=types.FLOAT)\n";
                s += "    height, width = shape[0], shape[1]\n";
                s += "    images = fn.resize(images, resize_x=dmath.floor(width * scale), "
                     "resize_y=dmath.floor(height * "
                     "scale), interp_type=types." +
                     std::string(nearest ? "INTERP_NN" : "INTERP_LINEAR") + ", antialias=False)\n";
                s += "    shape = images.shape(dtype=types.FLOAT)\n";
                s += "    height, width = shape[0], shape[1]\n";
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision || kind_ == Kind::Resize) return {};
        if (kind_ == Kind::RandomScale)
            return R"(

class RandomScale(torch.nn.Module):
    """AugLab random_scale (Albumentations RandomScale): factor s = 1 + U(limit), each side int(side * s),
    resized without antialiasing, as cv2.resize (the image itself when the size stays)."""

    def __init__(self, limit, interpolation):
        super().__init__()
        self.limit, self.interpolation = limit, interpolation

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2], img.shape[-1]
        s = 1.0 + float(torch.empty((), dtype=torch.float64).uniform_(*self.limit)) if self.limit[0] != self.limit[1] \
            else 1.0 + self.limit[0]
        size = [int(h * s), int(w * s)]
        if size == [h, w]:
            return img
        return v2.functional.resize(img, size, interpolation=self.interpolation, antialias=False)
)";
        return R"(

class MaxSizeResize(torch.nn.Module):
    """AugLab longest_max_size / smallest_max_size (Albumentations LongestMaxSize / SmallestMaxSize):
    a side length m drawn uniformly from `sizes`, scale = m / the longer (or shorter) side, each side
    max(1, round(side * scale)) with Python's round; resized without antialiasing, as cv2.resize."""

    def __init__(self, sizes, longest, interpolation):
        super().__init__()
        self.sizes, self.longest, self.interpolation = sizes, longest, interpolation

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2], img.shape[-1]
        m = self.sizes[int(torch.randint(len(self.sizes), ()))]
        scale = m / (max(h, w) if self.longest else min(h, w))
        size = [max(1, round(h * scale)), max(1, round(w * scale))]
        if size == [h, w]:
            return img
        return v2.functional.resize(img, size, interpolation=self.interpolation, antialias=False)
)";
    }

private:
    Kind kind_;
};

}  // namespace

const OpModule& resizeModule() {
    static const ResizeModule module(Kind::Resize);
    return module;
}

const OpModule& longestMaxSizeModule() {
    static const ResizeModule module(Kind::LongestMaxSize);
    return module;
}

const OpModule& smallestMaxSizeModule() {
    static const ResizeModule module(Kind::SmallestMaxSize);
    return module;
}

const OpModule& randomScaleModule() {
    static const ResizeModule module(Kind::RandomScale);
    return module;
}

}  // namespace auglab
