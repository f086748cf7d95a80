// pad_if_needed, random_crop, center_crop, crop: Albumentations 2.0.8 PadIfNeeded, RandomCrop,
// CenterCrop and Crop (BaseCropAndPad: pad first when asked, then crop). Everything AugLab knows about the
// ops is here (core/ops/op_module.h, docs/adding-an-op.md).
//
// The padding is cv2.copyMakeBorder's (every border mode, exact: the warp's borders are OpenCV's
// borderInterpolate), the crop a window of whole pixels; both set the frame, so they may come
// anywhere (each plan stage has its own size).

#include "ops/crop_pad.h"

#include <algorithm>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "albumentations_transform_reader.h"
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

enum class Kind { PadIfNeeded, RandomCrop, CenterCrop, Crop };

// Draws (draw 0 is the gate): the random padding position, then the crop's place.
constexpr std::uint32_t kPadTopDraw = 1, kPadLeftDraw = 2, kCropYDraw = 3, kCropXDraw = 4;

const std::vector<std::string> kPositions{"center",      "top_left",     "top_right",
                                          "bottom_left", "bottom_right", "random"};

/// get_dimension_padding with a minimum size: int((min - size) / 2.0) before, the rest after.
void padOneSide(int size, int minSize, int& before, int& after) {
    before = after = 0;
    if (size >= minSize) return;
    before = static_cast<int>((minSize - size) / 2.0);
    after = minSize - size - before;
}

/// adjust_padding_by_position.
void placePadding(CropPadParams& c, const std::string& position, const OpDraws& d) {
    const int h = c.top + c.bottom, w = c.left + c.right;
    const auto set = [&](int top, int left) {
        c.top = top;
        c.bottom = h - top;
        c.left = left;
        c.right = w - left;
    };
    if (position == "top_left") {
        set(0, 0);
    } else if (position == "top_right") {
        set(0, w);
    } else if (position == "bottom_left") {
        set(h, 0);
    } else if (position == "bottom_right") {
        set(h, w);
    } else if (position == "random") {
        c.top = static_cast<int>(d.randint(kPadTopDraw, 0, h));
        c.bottom = h - c.top;
        c.left = static_cast<int>(d.randint(kPadLeftDraw, 0, w));
        c.right = w - c.left;
    }
}

const char* className(Kind kind) {
    switch (kind) {
        case Kind::PadIfNeeded:
            return "PadIfNeeded";
        case Kind::RandomCrop:
            return "RandomCrop";
        case Kind::CenterCrop:
            return "CenterCrop";
        case Kind::Crop:
            return "Crop";
    }
    return "PadIfNeeded";
}

/// Pad's boxes and keypoints: shifted by (left, top); with a reflecting border, Albumentations adds
/// the mirrored copies of a grid of images around the original (generate_reflected_bboxes and
/// _keypoints: copies flipped about the image's edges, keypoints x -> W - x with the angle negated),
/// then keeps those that touch the padded image (validate_bboxes, validate_keypoints).
void padTargets(TargetFrame& f, const CropPadParams& c) {
    const int W = f.width, H = f.height;
    const int newW = W + c.left + c.right, newH = H + c.top + c.bottom;
    if (c.border != BorderMode::Reflect && c.border != BorderMode::Reflect101) {
        for (Box& b : f.boxes) {
            b.x0 += c.left;
            b.x1 += c.left;
            b.y0 += c.top;
            b.y1 += c.top;
        }
        for (Keypoint& k : f.keypoints) {
            k.x += c.left;
            k.y += c.top;
        }
        return;
    }
    const auto ceilDiv = [](int a, int b) { return (a + b - 1) / b; };
    const int rows = 1 + ceilDiv(c.top, H) + ceilDiv(c.bottom, H);
    const int cols = 1 + ceilDiv(c.left, W) + ceilDiv(c.right, W);
    const int row0 = ceilDiv(c.top, H), col0 = ceilDiv(c.left, W);
    // Cell (r, q) holds the image mirrored horizontally when q - col0 is odd, vertically when
    // r - row0 is odd; it sits at ((q - col0) W, (r - row0) H) from the original.
    const double shiftX = c.left, shiftY = c.top;
    std::vector<Box> boxes;
    std::vector<Keypoint> keypoints;
    for (int r = 0; r < rows; ++r)
        for (int q = 0; q < cols; ++q) {
            const bool flipX = (q - col0) % 2 != 0, flipY = (r - row0) % 2 != 0;
            const double ox = double(q - col0) * W + shiftX, oy = double(r - row0) * H + shiftY;
            for (Box b : f.boxes) {
                if (flipX) b = {W - b.x1, b.y0, W - b.x0, b.y1, b.label, b.id, b.visibility};
                if (flipY) b = {b.x0, H - b.y1, b.x1, H - b.y0, b.label, b.id, b.visibility};
                b.x0 += ox;
                b.x1 += ox;
                b.y0 += oy;
                b.y1 += oy;
                if (b.x1 > 0 && b.y1 > 0 && b.x0 < newW && b.y0 < newH)
                    boxes.push_back(b);
                else
                    f.removed.push_back(b);
            }
            for (Keypoint k : f.keypoints) {
                if (flipX) {
                    k.x = W - k.x;
                    k.angle = -k.angle;
                }
                if (flipY) {
                    k.y = H - k.y;
                    k.angle = -k.angle;
                }
                k.x += ox;
                k.y += oy;
                if (k.x >= 0 && k.x < newW && k.y >= 0 && k.y < newH) keypoints.push_back(k);
            }
        }
    f.boxes = std::move(boxes);
    f.keypoints = std::move(keypoints);
}

class CropPadModule final : public OpModule {
public:
    explicit CropPadModule(Kind kind) : kind_(kind) {}

    OpDesc describe(OpId id) const override {
        const ParamDesc border = choice(
            "border", "Border", kBorderChoices, kind_ == Kind::PadIfNeeded ? "reflect_101" : "constant",
            "How the padding is filled (cv2.copyMakeBorder): constant (the fill), replicate, reflect "
            "(b a | a b c), reflect_101 (c b | a b c) or wrap.");
        const ParamDesc fillParam = fill("fill", false, "Colour of a constant border.");
        const ParamDesc positionParam = choice(
            kind_ == Kind::PadIfNeeded ? "position" : "pad_position", "Pad position", kPositions, "center",
            "Where the image sits in the padding: centred (the odd pixel after), in a corner, or at a "
            "random place (drawn per sample).");
        OpDesc d;
        if (kind_ == Kind::Crop) {
            d = describeCrop(id, positionParam, border, fillParam);
        } else if (kind_ == Kind::PadIfNeeded) {
            d = makeOp(id, "pad_if_needed", "Pad if needed", OpCategory::Geometric,
                       "Albumentations PadIfNeeded: a side shorter than `min_size` (height, width) is padded "
                       "to it (half before, rounded down, the rest after, or as `position` says), with "
                       "`border`; longer sides stay. The ops after it work at the padded size.",
                       {sizeParam("min_size", "Minimum size", 1, 16384, {1024, 1024},
                                  "Height and width the image is padded up to."),
                        positionParam, border, fillParam});
        } else {
            const bool random = kind_ == Kind::RandomCrop;
            d = makeOp(id, random ? "random_crop" : "center_crop", random ? "Random crop" : "Center crop",
                       OpCategory::Geometric,
                       random ? "Albumentations RandomCrop: a `size` (height, width) window at a uniformly "
                                "drawn place (int((H - h + 1) u)). With `pad_if_needed` an image smaller "
                                "than the window is padded first (PadIfNeeded's rules); otherwise such an "
                                "image cannot be cropped (an error, as in the library)."
                              : "Albumentations CenterCrop: the `size` (height, width) window at the centre "
                                "((H - h) // 2). With `pad_if_needed` an image smaller than the window is "
                                "padded first; otherwise such an image cannot be cropped.",
                       {sizeParam("size", "Size", 1, 16384, {256, 256}, "Height and width of the window."),
                        boolean("pad_if_needed", "Pad if needed", false,
                                "Pad an image smaller than the window (else an error)."),
                        positionParam, border, fillParam});
        }
        d.setsFrame = true;
        return d;
    }

    static OpDesc describeCrop(OpId id, ParamDesc positionParam, ParamDesc border, ParamDesc fillParam) {
        ParamDesc topLeft = sizeParam("top_left", "Top left", 0, 16384, {0, 0},
                                      "Row and column of the window's first pixel (y_min, x_min).");
        topLeft.unit = "px (y, x)";
        ParamDesc bottomRight = sizeParam("bottom_right", "Bottom right", 1, 16384, {1024, 1024},
                                          "Row and column just past the window (y_max, x_max).");
        bottomRight.unit = "px (y, x)";
        return makeOp(id, "crop", "Crop", OpCategory::Geometric,
                      "Albumentations Crop: the fixed window [y_min, y_max) x [x_min, x_max). With "
                      "`pad_if_needed` an image that ends before y_max or x_max is padded (the missing rows "
                      "split by `pad_position`, and at least the missing ones after it, as the library "
                      "does; the window stays at its coordinates in the padded image); otherwise such an "
                      "image cannot be cropped (an error, as in the library).",
                      {topLeft, bottomRight,
                       boolean("pad_if_needed", "Pad if needed", false,
                               "Pad an image that ends before the window does (else an error)."),
                       positionParam, border, fillParam});
    }

    /// Crop: the window at its coordinates; Crop._compute_min_padding / _compute_adjusted_padding
    /// when padding (the missing rows split delta // 2 before, placed by position, then at least the
    /// missing rows after).
    static CropPadParams sampleCrop(const OpConfig& op, const OpDraws& d, int width, int height) {
        CropPadParams c;
        c.border = borderFromName(op.choice("border"));
        c.fill = op.fill("fill").rgb;
        const Size2 tl = op.size("top_left"), br = op.size("bottom_right");
        const std::string name = opDesc(OpId::Crop).name;
        const auto yx = [](Size2 s) {
            return "[" + std::to_string(s.height) + ", " + std::to_string(s.width) + "]";
        };
        if (br.height <= tl.height || br.width <= tl.width)
            throw InputError(name + ": bottom_right " + yx(br) + " must lie below and right of top_left " +
                             yx(tl));
        const int missingH = std::max(0, br.height - height), missingW = std::max(0, br.width - width);
        if (!op.flag("pad_if_needed") && missingH + missingW > 0)
            throw InputError(name + ": the window up to " + yx(br) + " reaches past the " +
                             std::to_string(width) + "x" + std::to_string(height) +
                             " image (set pad_if_needed to pad it)");
        if (op.flag("pad_if_needed") && missingH + missingW > 0) {
            c.top = missingH / 2;
            c.bottom = missingH - c.top;
            c.left = missingW / 2;
            c.right = missingW - c.left;
            placePadding(c, op.choice("pad_position"), d);
            c.bottom = std::max(c.bottom, missingH);
            c.right = std::max(c.right, missingW);
            c.padded = true;
        }
        c.x = tl.width;
        c.y = tl.height;
        c.width = br.width - tl.width;
        c.height = br.height - tl.height;
        return c;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        if (kind_ == Kind::Crop) return sampleCrop(op, d, width, height);
        CropPadParams c;
        c.border = borderFromName(op.choice("border"));
        c.fill = op.fill("fill").rgb;
        const bool pads = kind_ == Kind::PadIfNeeded || op.flag("pad_if_needed");
        const Size2 want = kind_ == Kind::PadIfNeeded ? op.size("min_size") : op.size("size");
        if (!pads && (want.height > height || want.width > width))
            throw InputError(opDesc(kind_ == Kind::RandomCrop ? OpId::RandomCrop : OpId::CenterCrop).name +
                             ": the window [" + std::to_string(want.height) + ", " +
                             std::to_string(want.width) + "] is larger than the " + std::to_string(width) +
                             "x" + std::to_string(height) + " image (set pad_if_needed to pad it)");
        if (pads) {
            padOneSide(height, want.height, c.top, c.bottom);
            padOneSide(width, want.width, c.left, c.right);
            c.padded = c.top + c.bottom + c.left + c.right > 0;
            if (c.padded)
                placePadding(c, op.choice(kind_ == Kind::PadIfNeeded ? "position" : "pad_position"), d);
        }
        const int W = width + c.left + c.right, H = height + c.top + c.bottom;
        if (kind_ == Kind::PadIfNeeded) {
            c.width = W;
            c.height = H;
            return c;
        }
        c.width = std::min(want.width, W);
        c.height = std::min(want.height, H);
        if (kind_ == Kind::CenterCrop) {
            c.x = (W - c.width) / 2;
            c.y = (H - c.height) / 2;
        } else {
            c.y = static_cast<int>((H - c.height + 1) * d.uniform(kCropYDraw));
            c.x = static_cast<int>((W - c.width + 1) * d.uniform(kCropXDraw));
        }
        return c;
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const auto& c = std::get<CropPadParams>(params);
        width = c.width;
        height = c.height;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& c = std::get<CropPadParams>(params);
        j["pad"] = Json::array({c.top, c.bottom, c.left, c.right});
        j["crop"] = Json::array({c.x, c.y, c.width, c.height});  // pad_if_needed: the whole padded image
        j["border"] = borderName(c.border);
        j["fill"] = Json::array({c.fill[0], c.fill[1], c.fill[2]});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "pad", "crop", "border", "fill"});
        CropPadParams c;
        const JsonReader pad = r.member("pad");
        if (pad.arraySize() != 4) pad.fail("expected [top, bottom, left, right]");
        c.top = static_cast<int>(pad.element(0).integer(0, 1'000'000));
        c.bottom = static_cast<int>(pad.element(1).integer(0, 1'000'000));
        c.left = static_cast<int>(pad.element(2).integer(0, 1'000'000));
        c.right = static_cast<int>(pad.element(3).integer(0, 1'000'000));
        c.padded = c.top + c.bottom + c.left + c.right > 0;
        const replay_fields::Window w = replay_fields::readWindow(r.member("crop"));
        c.x = w.x, c.y = w.y, c.width = w.width, c.height = w.height;
        c.border = replay_fields::readBorder(r, "border");
        const Rgb fill = replay_fields::readRgb(r.member("fill"));
        for (std::size_t i = 0; i < 3; ++i) c.fill[i] = fill[i];
        return c;
    }

    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override {
        // The window lies in the padded frame (pad_if_needed: it is the padded frame).
        const auto& c = std::get<CropPadParams>(params);
        const int W = frameW + c.left + c.right, H = frameH + c.top + c.bottom;
        if (kind_ == Kind::PadIfNeeded && (c.x != 0 || c.y != 0 || c.width != W || c.height != H))
            o.member("crop").fail("pad_if_needed keeps the whole " + std::to_string(W) + "x" +
                                  std::to_string(H) + " padded image");
        if (c.x + c.width > W || c.y + c.height > H)
            o.member("crop").fail("the window lies outside the " + std::to_string(W) + "x" +
                                  std::to_string(H) + " padded image");
    }

    /// The window's place ("crop_x", "crop_y", in pixels of the padded image) and the random
    /// padding's ("pad_top", "pad_left"): what the draws decide.
    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& c = std::get<CropPadParams>(params);
        if (key == "crop_x") return {double(c.x)};
        if (key == "crop_y") return {double(c.y)};
        if (key == "pad_top" && c.padded) return {double(c.top)};
        if (key == "pad_left" && c.padded) return {double(c.left)};
        return {};
    }

    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& c = std::get<CropPadParams>(params);
        if (c.padded) padTargets(f, c);
        for (Box& b : f.boxes) {
            b.x0 -= c.x;
            b.x1 -= c.x;
            b.y0 -= c.y;
            b.y1 -= c.y;
        }
        for (Keypoint& k : f.keypoints) {
            k.x -= c.x;
            k.y -= c.y;
        }
        f.width = c.width;
        f.height = c.height;
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& c = std::get<CropPadParams>(params);
        const Rgb fill{std::uint8_t(c.fill[0]), std::uint8_t(c.fill[1]), std::uint8_t(c.fill[2])};
        b.window(c.left - c.x, c.top - c.y, c.width, c.height, c.border, fill);
    }

    std::vector<std::string> albumentationsClasses() const override { return {className(kind_)}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour flavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        if (op.p < 1)
            warnings.push_back(e.label() + ": p = " + formatNumber(op.p) +
                               ": the images it skips keep their own size, so a batch mixes sizes (as in "
                               "AugLab's preview); training code usually wants p = 1.");
        Json j = start(className(kind_), op.p);
        j["border_mode"] = cvBorder(op.choice("border"));
        j["fill"] = fillValue(op.fill("fill"));
        j["fill_mask"] = flavour == AlbumentationsFlavour::AlbumentationsX ? Json(nullptr) : Json(0.0);
        if (kind_ == Kind::PadIfNeeded) {
            const Size2 m = op.size("min_size");
            j["min_height"] = m.height;
            j["min_width"] = m.width;
            j["pad_height_divisor"] = nullptr;
            j["pad_width_divisor"] = nullptr;
            // A.save also writes Pad's "padding", which A.load then refuses as an argument
            // (Albumentations 2.0.8): left out, as the library reads it.
            j["position"] = op.choice("position");
        } else if (kind_ == Kind::Crop) {
            const Size2 tl = op.size("top_left"), br = op.size("bottom_right");
            j["pad_if_needed"] = op.flag("pad_if_needed");
            j["pad_position"] = op.choice("pad_position");
            j["x_max"] = br.width;
            j["x_min"] = tl.width;
            j["y_max"] = br.height;
            j["y_min"] = tl.height;
        } else {
            const Size2 s = op.size("size");
            j["height"] = s.height;
            j["pad_if_needed"] = op.flag("pad_if_needed");
            j["pad_position"] = op.choice("pad_position");
            j["width"] = s.width;
        }
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        if (kind_ == Kind::PadIfNeeded)
            return {{"p", 1.0},
                    {"min_height", 1024},
                    {"min_width", 1024},
                    {"position", "center"},
                    {"border_mode", 4},
                    {"fill", 0.0},
                    {"fill_mask", 0.0},
                    {"pad_height_divisor", nullptr},
                    {"pad_width_divisor", nullptr},
                    {"padding", 0}};
        if (kind_ == Kind::Crop)
            return {{"p", 1.0},
                    {"x_min", 0},
                    {"y_min", 0},
                    {"x_max", 1024},
                    {"y_max", 1024},
                    {"pad_if_needed", false},
                    {"pad_position", "center"},
                    {"border_mode", 0},
                    {"fill", 0.0},
                    {"fill_mask", 0.0}};
        return {{"p", 1.0},    {"pad_if_needed", false}, {"pad_position", "center"}, {"border_mode", 0},
                {"fill", 0.0}, {"fill_mask", 0.0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        if (kind_ == Kind::PadIfNeeded) {
            for (const char* key : {"pad_height_divisor", "pad_width_divisor"})
                if (const std::optional<JsonReader> v = a.find({key}); v && !v->json().is_null()) {
                    a.leaveOut(*v, std::string(key) +
                                       " (padding to a multiple) has no AugLab equivalent: AugLab pads to "
                                       "min_size.");
                    return;
                }
            const JsonReader h = a.get("min_height"), w = a.get("min_width");
            if (h.json().is_null() || w.json().is_null()) {
                a.leaveOut(h.json().is_null() ? h : w,
                           "a side without a minimum (padding to a multiple only) "
                           "has no AugLab equivalent.");
                return;
            }
            if (const std::optional<JsonReader> padding = a.find({"padding"});
                padding && !(padding->json().is_number() && padding->json().get<double>() == 0))
                a.warn(*padding,
                       "Pad's fixed padding is not used by PadIfNeeded (it pads to min_height and "
                       "min_width): ignored, as the library ignores it.");
            op.set("min_size",
                   Size2{static_cast<int>(h.integer(1, 16384)), static_cast<int>(w.integer(1, 16384))});
            op.set("position", readPosition(a.get("position"), a));
        } else if (kind_ == Kind::Crop) {
            const auto coord = [&](const char* key, std::int64_t lower) {
                return static_cast<int>(a.get(key).integer(lower, 16384));
            };
            const int x0 = coord("x_min", 0), y0 = coord("y_min", 0), x1 = coord("x_max", 1),
                      y1 = coord("y_max", 1);
            if (x1 <= x0) a.fail(a.get("x_max"), "x_max must be greater than x_min");
            if (y1 <= y0) a.fail(a.get("y_max"), "y_max must be greater than y_min");
            op.set("top_left", Size2{y0, x0});
            op.set("bottom_right", Size2{y1, x1});
            op.set("pad_if_needed", a.get("pad_if_needed").boolean());
            op.set("pad_position", readPosition(a.get("pad_position"), a));
        } else {
            const std::optional<JsonReader> height = a.find({"height"}), width = a.find({"width"});
            if (!height || !width)
                a.fail(a.get("p"), std::string(className(kind_)) + " without height and width");
            op.set("size", Size2{static_cast<int>(height->integer(1, 16384)),
                                 static_cast<int>(width->integer(1, 16384))});
            op.set("pad_if_needed", a.get("pad_if_needed").boolean());
            op.set("pad_position", readPosition(a.get("pad_position"), a));
        }
        op.set("border", std::string(borderName(a.get("border_mode", {"border_mode"}), a)));
        op.set("fill", readFill(a.get("fill", {"value"}), a, false));
        a.maskOnly("fill_mask", {"mask_value"});
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const bool pads = kind_ == Kind::PadIfNeeded || op.flag("pad_if_needed");
        const std::string position = op.choice(kind_ == Kind::PadIfNeeded ? "position" : "pad_position");
        const Fill f = op.fill("fill");
        if (kind_ == Kind::Crop) {
            cropToPython(e, x, pads, position, f);
            return;
        }
        const Size2 size = kind_ == Kind::PadIfNeeded ? op.size("min_size") : op.size("size");
        switch (x.target) {
            case PythonTarget::Torchvision: {
                x.helperUsed = true;
                const char* mode = kind_ == Kind::PadIfNeeded  ? "pad"
                                   : kind_ == Kind::RandomCrop ? "random"
                                                               : "center";
                const std::string t =
                    std::string("CropPad(mode=\"") + mode + "\", size=(" + std::to_string(size.height) +
                    ", " + std::to_string(size.width) + "), pad=" + (pads ? "True" : "False") +
                    ", position=" + pyString(position) + ", border=" + pyString(op.choice("border")) +
                    ", fill=" + pyRgb(f) + ")";
                x.lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras: {
                if (kind_ == Kind::PadIfNeeded || pads || op.p < 1) {
                    notExported(e, x,
                                L +
                                    ": Keras batches hold one image size and its crop layers resize an image "
                                    "smaller than the window instead of padding it: " +
                                    (op.p < 1 ? "a window some images skip" : "the padding") +
                                    " is not exported.");
                    return;
                }
                if (kind_ == Kind::RandomCrop)
                    x.warnings.push_back(L +
                                         ": Keras draws the window's place with its own generator (the same "
                                         "uniform distribution).");
                x.lines += std::string("    layers.") +
                           (kind_ == Kind::RandomCrop ? "RandomCrop" : "CenterCrop") + "(" +
                           std::to_string(size.height) + ", " + std::to_string(size.width) + "),\n";
                return;
            }
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.lines += "    # " + L + "\n";
                if (pads) {
                    notExported(e, x,
                                L + ": DALI's crop pads a window that leaves the image with a constant only, "
                                    "and centred as it decides: the padding is not exported.");
                    return;
                }
                if (op.p < 1)
                    x.warnings.push_back(L +
                                         ": DALI crops every image (a pipeline stage's images are cropped "
                                         "alike): p = " +
                                         formatNumber(op.p) + " becomes 1.");
                // The window's corner computed as the library computes it, then sliced out (an image
                // smaller than the window: padded with black by DALI, where AugLab refuses it).
                const std::string h = pyFloat(size.height), w = pyFloat(size.width);
                x.lines += "    shape = images.shape(dtype=types.FLOAT)\n";
                x.lines += "    height, width = shape[0], shape[1]\n";
                if (kind_ == Kind::RandomCrop) {
                    x.lines += "    top = dmath.floor((height - " + h +
                               " + 1.0) * fn.random.uniform(range=(0.0, 1.0)))\n";
                    x.lines += "    left = dmath.floor((width - " + w +
                               " + 1.0) * fn.random.uniform(range=(0.0, 1.0)))\n";
                } else {
                    x.lines += "    top = dmath.floor((height - " + h + ") / 2.0)\n";
                    x.lines += "    left = dmath.floor((width - " + w + ") / 2.0)\n";
                }
                x.lines +=
                    "    images = fn.slice(images, start=fn.cast(fn.stack(top, left), dtype=types.INT32), "
                    "shape=[" +
                    pyInt(size.height) + ", " + pyInt(size.width) +
                    "], axis_names=\"HW\", out_of_bounds_policy=\"pad\")\n";
                x.lines += "    height, width = " + h + ", " + w + "\n";
                return;
            }
        }
    }

    /// crop: the window [y0, y1) x [x0, x1) (with Crop's padding in torchvision).
    static void cropToPython(const exporting::ExportedOp& e, PythonExport& x, bool pads,
                             const std::string& position, const Fill& f) {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const Size2 tl = op.size("top_left"), br = op.size("bottom_right");
        const std::string y0 = std::to_string(tl.height), x0 = std::to_string(tl.width);
        const std::string y1 = std::to_string(br.height), x1 = std::to_string(br.width);
        switch (x.target) {
            case PythonTarget::Torchvision: {
                x.helperUsed = true;
                const std::string t =
                    "CropPad(mode=\"window\", size=None, pad=" + std::string(pads ? "True" : "False") +
                    ", position=" + pyString(position) + ", border=" + pyString(op.choice("border")) +
                    ", fill=" + pyRgb(f) + ", window=(" + y0 + ", " + x0 + ", " + y1 + ", " + x1 + "))";
                x.lines += "    " + torchvisionWithP(t, op.p) + ",\n";
                return;
            }
            case PythonTarget::Keras:
                if (pads || op.p < 1) {
                    notExported(e, x,
                                L + ": Keras batches hold one image size and have no padding crop: " +
                                    (op.p < 1 ? "a window some images skip" : "the padding") +
                                    " is not exported.");
                    return;
                }
                x.helperUsed = true;
                x.lines += "    CropWindow(" + y0 + ", " + x0 + ", " + y1 + ", " + x1 + "),\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + L + "\n";
                if (pads) {
                    notExported(
                        e, x,
                        L + ": DALI's slice pads a window that leaves the image with a constant only: "
                            "the padding is not exported.");
                    return;
                }
                if (op.p < 1)
                    x.warnings.push_back(
                        L + ": DALI crops every image (a pipeline's output size is fixed): p = " +
                        formatNumber(op.p) + " becomes 1.");
                x.lines += "    images = fn.slice(images, start=[" + y0 + ", " + x0 + "], shape=[" +
                           std::to_string(br.height - tl.height) + ", " +
                           std::to_string(br.width - tl.width) +
                           "], axis_names=\"HW\", out_of_bounds_policy=\"error\")\n";
                x.lines += "    height, width = " + pyFloat(br.height - tl.height) + ", " +
                           pyFloat(br.width - tl.width) + "\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t == PythonTarget::Keras && kind_ == Kind::Crop)
            return R"(

class CropWindow(keras.layers.Layer):
    """AugLab crop (Albumentations Crop without padding): rows y0..y1 - 1, columns x0..x1 - 1."""

    def __init__(self, y0, x0, y1, x1, **kwargs):
        super().__init__(**kwargs)
        self.window = (y0, x0, y1, x1)

    def call(self, images, training=True):
        y0, x0, y1, x1 = self.window
        if images.shape[1] is not None and (y1 > images.shape[1] or x1 > images.shape[2]):
            raise ValueError(f"the window {self.window} reaches past the {images.shape[2]}x{images.shape[1]} images")
        return images[:, y0:y1, x0:x1, :]
)";
        if (t != PythonTarget::Torchvision) return {};
        return R"(

class CropPad(torch.nn.Module):
    """AugLab pad_if_needed / random_crop / center_crop / crop (Albumentations PadIfNeeded, RandomCrop,
    CenterCrop, Crop): a side shorter than `size` padded to it when `pad` (int(missing / 2) before, or
    as `position` says), with cv2.copyMakeBorder's modes; then the window at int((H - h + 1) u)
    (random), (H - h) // 2 (center) or the whole padded image (pad). Crop ("window": y0, x0, y1, x1):
    the missing rows placed by `position`, and all of them after, then the window at its coordinates."""

    MODES = {"constant": "constant", "replicate": "edge", "reflect": "symmetric", "reflect_101": "reflect"}

    def __init__(self, mode, size, pad, position, border, fill, window=None):
        super().__init__()
        self.mode, self.size, self.pad, self.position = mode, size, pad, position
        self.border, self.fill, self.window = border, fill, window

    def place(self, ph, pw):  # rows above and columns left of the image, of ph and pw to add
        if self.position == "random":
            return int(torch.randint(ph + 1, ())), int(torch.randint(pw + 1, ()))
        if self.position == "center":
            return ph // 2, pw // 2
        return (ph if self.position.startswith("bottom") else 0), (pw if self.position.endswith("right") else 0)

    def pad_image(self, img, top, bottom, left, right):
        h, w = img.shape[-2], img.shape[-1]
        if self.border == "wrap":
            return torch.nn.functional.pad(img.unsqueeze(0).float(), (left, right, top, bottom),
                                           mode="circular")[0].to(img.dtype)
        if self.border == "constant":
            out = torch.empty((img.shape[0], h + top + bottom, w + left + right), dtype=img.dtype)
            out[:] = torch.tensor(list(self.fill) + [255] * (img.shape[0] - 3), dtype=img.dtype)[:img.shape[0], None, None]
            out[:, top:top + h, left:left + w] = img
            return out
        return v2.functional.pad(img, [left, top, right, bottom], padding_mode=self.MODES[self.border])

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2], img.shape[-1]
        if self.mode == "window":
            y0, x0, y1, x1 = self.window
            ph, pw = max(0, y1 - h), max(0, x1 - w)
            if ph + pw > 0:
                if not self.pad:
                    raise ValueError(f"the window {self.window} reaches past the {w}x{h} image")
                top, left = self.place(ph, pw)
                img = self.pad_image(img, top, ph, left, pw)
            return img[..., y0:y1, x0:x1]
        th, tw = self.size
        if not self.pad and (th > h or tw > w):
            raise ValueError(f"crop size {self.size} exceeds the image {(h, w)}")
        ph, pw = max(0, th - h), max(0, tw - w)
        if self.pad and ph + pw > 0:
            top, left = self.place(ph, pw)
            img = self.pad_image(img, top, ph - top, left, pw - left)
            h, w = h + ph, w + pw
        if self.mode == "pad":
            return img
        th, tw = min(th, h), min(tw, w)
        if self.mode == "center":
            y, x = (h - th) // 2, (w - tw) // 2
        else:
            y = int((h - th + 1) * float(torch.rand(())))
            x = int((w - tw + 1) * float(torch.rand(())))
        return img[..., y:y + th, x:x + tw]
)";
    }

private:
    static std::string readPosition(const JsonReader& r, exporting::TransformArgs& a) {
        const std::string p = r.string();
        if (std::find(kPositions.begin(), kPositions.end(), p) == kPositions.end())
            a.fail(r, "unknown position \"" + p + "\"");
        return p;
    }

    Kind kind_;
};

}  // namespace

const OpModule& padIfNeededModule() {
    static const CropPadModule module(Kind::PadIfNeeded);
    return module;
}

const OpModule& randomCropModule() {
    static const CropPadModule module(Kind::RandomCrop);
    return module;
}

const OpModule& centerCropModule() {
    static const CropPadModule module(Kind::CenterCrop);
    return module;
}

const OpModule& cropModule() {
    static const CropPadModule module(Kind::Crop);
    return module;
}

}  // namespace auglab
