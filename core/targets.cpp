// Boxes, keypoints and masks through a sample's ops (targets.h). The filtering follows
// Albumentations 2.0.8 (core/bbox_utils.py filter_bboxes, core/keypoints_utils.py
// filter_keypoints, core/composition.py's processors): the per-op geometry is each op module's
// (OpModule::moveTargets).

#include "targets.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <utility>

#include "cpu_backend.h"
#include "error.h"
#include "geometry.h"
#include "ops/op_module.h"
#include "partners.h"
#include "plan.h"
#include "plan_builder.h"
#include "source_levels.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kBeforeOps = std::numeric_limits<std::size_t>::max();

const char* const kBoxFormats[] = {"pascal_voc", "coco", "yolo", "albumentations"};
const char* const kKeypointFormats[] = {"xy", "yx", "xya", "xys", "xyas", "xysa"};

std::vector<std::string> readNames(const JsonReader& r) {
    std::vector<std::string> out;
    const std::size_t n = r.arraySize();
    for (std::size_t i = 0; i < n; ++i) {
        std::string s = r.element(i).string();
        if (s.empty()) r.element(i).fail("a label field needs a name");
        if (std::find(out.begin(), out.end(), s) != out.end())
            r.element(i).fail("\"" + s + "\" is listed twice");
        out.push_back(std::move(s));
    }
    return out;
}

/// filter_bboxes' test of one box (pixel edges) in a width x height frame: clips it in place and
/// returns why it goes, or nothing. `visibility` gets clipped area / area.
std::optional<DropRule> filterBox(Box& b, int width, int height, const BoxRules& rules, double& visibility) {
    constexpr double eps = 1e-7;
    const double area = (b.x1 - b.x0) * (b.y1 - b.y0);
    Box c = b;
    c.x0 = std::clamp(c.x0, 0.0, static_cast<double>(width));
    c.x1 = std::clamp(c.x1, 0.0, static_cast<double>(width));
    c.y0 = std::clamp(c.y0, 0.0, static_cast<double>(height));
    c.y1 = std::clamp(c.y1, 0.0, static_cast<double>(height));
    const double cw = c.x1 - c.x0, ch = c.y1 - c.y0;
    const double clippedArea = cw * ch;
    visibility = area > 0 ? clippedArea / (area + eps) : 0;
    b = c;
    if (!(area >= eps)) return DropRule::Outside;
    if (!(clippedArea >= rules.minArea - eps))
        return clippedArea < eps ? DropRule::Outside : DropRule::MinArea;
    if (!(clippedArea / (area + eps) >= rules.minVisibility)) return DropRule::MinVisibility;
    if (!(cw >= rules.minWidth - eps)) return DropRule::MinWidth;
    if (!(ch >= rules.minHeight - eps)) return DropRule::MinHeight;
    if (rules.maxAcceptRatio) {
        const double ratio = std::max(cw / (ch + eps), ch / (cw + eps));
        if (!(ratio <= *rules.maxAcceptRatio)) return DropRule::AspectRatio;
    }
    return std::nullopt;
}

bool keypointInside(const Keypoint& k, int width, int height) {
    return k.x >= 0 && k.x < width && k.y >= 0 && k.y < height;
}

bool inHole(double x, double y, const Hole& h) {
    return x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + h.h;
}

}  // namespace

const char* boxFormatName(BoxFormat f) {
    return kBoxFormats[static_cast<int>(f)];
}

const char* dropRuleName(DropRule r) {
    switch (r) {
        case DropRule::Invalid:
            return "invalid";
        case DropRule::Outside:
            return "outside the image";
        case DropRule::MinArea:
            return "min_area";
        case DropRule::MinVisibility:
            return "min_visibility";
        case DropRule::MinWidth:
            return "min_width";
        case DropRule::MinHeight:
            return "min_height";
        case DropRule::AspectRatio:
            return "max_accept_ratio";
        case DropRule::Hole:
            return "covered by a hole";
    }
    return "?";
}

Json targetSettingsToJson(const TargetSettings& s) {
    Json j;
    Json b;
    b["format"] = boxFormatName(s.boxes.format);
    b["label_fields"] = s.boxes.labelFields;
    b["min_area"] = s.boxes.minArea;
    b["min_visibility"] = s.boxes.minVisibility;
    b["min_width"] = s.boxes.minWidth;
    b["min_height"] = s.boxes.minHeight;
    b["max_accept_ratio"] = s.boxes.maxAcceptRatio ? Json(*s.boxes.maxAcceptRatio) : Json(nullptr);
    b["clip"] = s.boxes.clip;
    b["filter_invalid_bboxes"] = s.boxes.filterInvalid;
    b["check_each_transform"] = s.boxes.checkEachTransform;
    j["boxes"] = b;
    Json k;
    k["format"] = s.keypoints.format;
    k["label_fields"] = s.keypoints.labelFields;
    k["remove_invisible"] = s.keypoints.removeInvisible;
    k["angle_in_degrees"] = s.keypoints.angleInDegrees;
    k["check_each_transform"] = s.keypoints.checkEachTransform;
    j["keypoints"] = k;
    j["mask_fill"] = s.maskFill;
    return j;
}

TargetSettings readTargetSettings(const JsonReader& r) {
    r.requireObject({"boxes", "keypoints", "mask_fill"});
    TargetSettings s;
    if (r.has("boxes")) {
        const JsonReader b = r.member("boxes");
        b.requireObject({"format", "label_fields", "min_area", "min_visibility", "min_width", "min_height",
                         "max_accept_ratio", "clip", "filter_invalid_bboxes", "check_each_transform"});
        BoxRules& o = s.boxes;
        if (b.has("format")) {
            const JsonReader f = b.member("format");
            const std::string name = f.string();
            const auto* it = std::find(std::begin(kBoxFormats), std::end(kBoxFormats), name);
            if (it == std::end(kBoxFormats))
                f.fail("unknown box format \"" + name +
                       "\" (expected pascal_voc, coco, yolo or albumentations)");
            o.format = static_cast<BoxFormat>(it - std::begin(kBoxFormats));
        }
        if (b.has("label_fields")) o.labelFields = readNames(b.member("label_fields"));
        if (b.has("min_area")) o.minArea = b.member("min_area").numberIn(0, 1e12);
        if (b.has("min_visibility")) o.minVisibility = b.member("min_visibility").numberIn(0, 1);
        if (b.has("min_width")) o.minWidth = b.member("min_width").numberIn(0, 1e6);
        if (b.has("min_height")) o.minHeight = b.member("min_height").numberIn(0, 1e6);
        if (b.has("max_accept_ratio") && !b.member("max_accept_ratio").json().is_null())
            o.maxAcceptRatio = b.member("max_accept_ratio").numberIn(1, 1e6);
        if (b.has("clip")) o.clip = b.member("clip").boolean();
        if (b.has("filter_invalid_bboxes")) o.filterInvalid = b.member("filter_invalid_bboxes").boolean();
        if (b.has("check_each_transform")) o.checkEachTransform = b.member("check_each_transform").boolean();
    }
    if (r.has("keypoints")) {
        const JsonReader k = r.member("keypoints");
        k.requireObject(
            {"format", "label_fields", "remove_invisible", "angle_in_degrees", "check_each_transform"});
        KeypointRules& o = s.keypoints;
        if (k.has("format")) {
            const JsonReader f = k.member("format");
            o.format = f.string();
            if (std::find(std::begin(kKeypointFormats), std::end(kKeypointFormats), o.format) ==
                std::end(kKeypointFormats))
                f.fail("unknown keypoint format \"" + o.format +
                       "\" (expected xy, yx, xya, xys, xyas or xysa)");
        }
        if (k.has("label_fields")) o.labelFields = readNames(k.member("label_fields"));
        if (k.has("remove_invisible")) o.removeInvisible = k.member("remove_invisible").boolean();
        if (k.has("angle_in_degrees")) o.angleInDegrees = k.member("angle_in_degrees").boolean();
        if (k.has("check_each_transform")) o.checkEachTransform = k.member("check_each_transform").boolean();
    }
    if (r.has("mask_fill")) s.maskFill = static_cast<int>(r.member("mask_fill").integer(0, 255));
    return s;
}

Json targetSettingsSchema() {
    auto number = [](double lo, double hi, const char* d) {
        Json s;
        s["description"] = d;
        s["type"] = "number";
        s["minimum"] = lo;
        s["maximum"] = hi;
        return s;
    };
    auto flag = [](const char* d) {
        Json s;
        s["description"] = d;
        s["type"] = "boolean";
        return s;
    };
    Json names;
    names["type"] = "array";
    names["items"] = {{"type", "string"}, {"minLength", 1}};
    names["uniqueItems"] = true;
    Json b;
    b["description"] = "Albumentations 2.0.8 BboxParams: which boxes survive the transforms.";
    b["type"] = "object";
    b["additionalProperties"] = false;
    Json bp;
    bp["format"] = {{"description", "How the training code writes boxes (exported as bbox_params.format)."},
                    {"enum", Json::array({"pascal_voc", "coco", "yolo", "albumentations"})}};
    bp["label_fields"] = names;
    bp["min_area"] = number(0, 1e12, "Boxes whose clipped area in pixels is smaller are dropped.");
    bp["min_visibility"] =
        number(0, 1, "Boxes with a smaller share of their area inside the image are dropped.");
    bp["min_width"] = number(0, 1e6, "Boxes narrower than this (pixels, clipped) are dropped.");
    bp["min_height"] = number(0, 1e6, "Boxes lower than this (pixels, clipped) are dropped.");
    Json ratio = number(1, 1e6, "Boxes with a larger max(w/h, h/w) are dropped; null: no limit.");
    ratio["type"] = Json::array({"number", "null"});
    bp["max_accept_ratio"] = ratio;
    bp["clip"] = flag("Clip boxes to the image before the first transform.");
    bp["filter_invalid_bboxes"] = flag("Drop invalid input boxes instead of failing.");
    bp["check_each_transform"] = flag("Filter after every transform, not only at the end.");
    b["properties"] = bp;
    Json k;
    k["description"] = "Albumentations 2.0.8 KeypointParams.";
    k["type"] = "object";
    k["additionalProperties"] = false;
    Json kp;
    kp["format"] = {{"enum", Json::array({"xy", "yx", "xya", "xys", "xyas", "xysa"})}};
    kp["label_fields"] = names;
    kp["remove_invisible"] = flag("Drop keypoints that leave the image.");
    kp["angle_in_degrees"] = flag("Angles are in degrees in the training code.");
    kp["check_each_transform"] = flag("Filter after every transform, not only at the end.");
    k["properties"] = kp;
    Json s;
    s["description"] =
        "Boxes, keypoints and masks: how they follow the pixels (absent: a preset for images alone).";
    s["type"] = "object";
    s["additionalProperties"] = false;
    Json p;
    p["boxes"] = b;
    p["keypoints"] = k;
    Json fill;
    fill["description"] = "Mask value outside the image (fill_mask).";
    fill["type"] = "integer";
    fill["minimum"] = 0;
    fill["maximum"] = 255;
    p["mask_fill"] = fill;
    s["properties"] = p;
    return s;
}

double wrapAngle(double a) {
    const double twoPi = 2 * std::numbers::pi;
    double r = std::fmod(a, twoPi);
    if (r < 0) r += twoPi;
    return r >= twoPi ? 0.0 : r;
}

void mapBoxCorners(std::vector<Box>& boxes, const Matrix3& m) {
    for (Box& b : boxes) {
        const double xs[4] = {b.x0, b.x1, b.x1, b.x0};
        const double ys[4] = {b.y0, b.y0, b.y1, b.y1};
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int i = 0; i < 4; ++i) {
            const double w = m(2, 0) * xs[i] + m(2, 1) * ys[i] + m(2, 2);
            const double x = (m(0, 0) * xs[i] + m(0, 1) * ys[i] + m(0, 2)) / w;
            const double y = (m(1, 0) * xs[i] + m(1, 1) * ys[i] + m(1, 2)) / w;
            x0 = std::min(x0, x);
            x1 = std::max(x1, x);
            y0 = std::min(y0, y);
            y1 = std::max(y1, y);
        }
        b.x0 = x0;
        b.y0 = y0;
        b.x1 = x1;
        b.y1 = y1;
    }
}

void mapKeypoints(std::vector<Keypoint>& keypoints, const Matrix3& m) {
    for (Keypoint& k : keypoints) {
        const double w = m(2, 0) * k.x + m(2, 1) * k.y + m(2, 2);
        const double x = (m(0, 0) * k.x + m(0, 1) * k.y + m(0, 2)) / w;
        const double y = (m(1, 0) * k.x + m(1, 1) * k.y + m(1, 2)) / w;
        k.x = x;
        k.y = y;
    }
}

namespace {

/// np.allclose(m, I): |m - I| <= 1e-8 + 1e-5 |I| everywhere.
bool allcloseIdentity(const Matrix3& m) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            const double id = r == c ? 1.0 : 0.0;
            if (!(std::abs(m(r, c) - id) <= 1e-8 + 1e-5 * id)) return false;
        }
    return true;
}

/// calculate_affine_transform_padding and get_pad_grid_dimensions: the grid of mirrored copies of the
/// image a reflecting border shows, `rows` x `cols` with the image at (row0, col0).
struct ReflectGrid {
    int rows = 1, cols = 1, row0 = 0, col0 = 0;
};

ReflectGrid reflectGrid(const Matrix3& m, int width, int height) {
    const double W = width, H = height;
    const double cx[4] = {0, W, W, 0}, cy[4] = {0, 0, H, H};
    double minX = 0, minY = 0, maxX = W, maxY = H;  // the image's own corners are part of the union
    for (int i = 0; i < 4; ++i) {
        const double x = m(0, 0) * cx[i] + m(0, 1) * cy[i] + m(0, 2);
        const double y = m(1, 0) * cx[i] + m(1, 1) * cy[i] + m(1, 2);
        minX = std::min(minX, x);
        maxX = std::max(maxX, x);
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
    }
    const Matrix3 inv = m.inverse();
    const double bx[4] = {minX, maxX, maxX, minX}, by[4] = {minY, minY, maxY, maxY};
    double iminX = INFINITY, iminY = INFINITY, imaxX = -INFINITY, imaxY = -INFINITY;
    for (int i = 0; i < 4; ++i) {
        const double x = inv(0, 0) * bx[i] + inv(0, 1) * by[i] + inv(0, 2);
        const double y = inv(1, 0) * bx[i] + inv(1, 1) * by[i] + inv(1, 2);
        iminX = std::min(iminX, x);
        imaxX = std::max(imaxX, x);
        iminY = std::min(iminY, y);
        imaxY = std::max(imaxY, y);
    }
    const double padLeft = std::max(0.0, std::ceil(-iminX)), padRight = std::max(0.0, std::ceil(imaxX - W));
    const double padTop = std::max(0.0, std::ceil(-iminY)), padBottom = std::max(0.0, std::ceil(imaxY - H));
    ReflectGrid g;
    g.row0 = static_cast<int>(std::ceil(padTop / H));
    g.col0 = static_cast<int>(std::ceil(padLeft / W));
    g.rows = 1 + g.row0 + static_cast<int>(std::ceil(padBottom / H));
    g.cols = 1 + g.col0 + static_cast<int>(std::ceil(padRight / W));
    return g;
}

bool odd(int v) {
    return ((v % 2) + 2) % 2 == 1;
}

}  // namespace

void affineTargets(TargetFrame& f, const Matrix3& image, BorderMode border, double keypointScale) {
    affineTargets(f, image, Matrix3::translation(0.5, 0.5) * image * Matrix3::translation(-0.5, -0.5), border,
                  keypointScale);
}

void affineTargets(TargetFrame& f, const Matrix3& image, const Matrix3& boxMatrix, BorderMode border,
                   double keypointScale) {
    const bool reflect = border == BorderMode::Reflect || border == BorderMode::Reflect101;
    const double W = f.width, H = f.height;
    if (!allcloseIdentity(boxMatrix) && !f.boxes.empty()) {
        std::vector<Box> boxes;
        if (reflect) {
            const ReflectGrid g = reflectGrid(boxMatrix, f.width, f.height);
            for (int r = 0; r < g.rows; ++r)
                for (int c = 0; c < g.cols; ++c) {
                    const int dr = r - g.row0, dc = c - g.col0;
                    for (Box b : f.boxes) {
                        if (odd(dc)) b = {W - b.x1, b.y0, W - b.x0, b.y1, b.label, b.id, b.visibility};
                        if (odd(dr)) b = {b.x0, H - b.y1, b.x1, H - b.y0, b.label, b.id, b.visibility};
                        b.x0 += dc * W;
                        b.x1 += dc * W;
                        b.y0 += dr * H;
                        b.y1 += dr * H;
                        boxes.push_back(b);
                    }
                }
        } else {
            boxes = f.boxes;
        }
        mapBoxCorners(boxes, boxMatrix);
        // validate_bboxes: boxes wholly outside the output go at once (mirrored copies mostly).
        f.boxes.clear();
        for (const Box& b : boxes) {
            if (b.x1 > 0 && b.y1 > 0 && b.x0 < W && b.y0 < H)
                f.boxes.push_back(b);
            else if (!reflect)
                f.removed.push_back(b);
        }
    }
    if (!allcloseIdentity(image) && !f.keypoints.empty()) {
        if (reflect) {
            const ReflectGrid g = reflectGrid(image, f.width, f.height);
            std::vector<Keypoint> all;
            for (int r = 0; r < g.rows; ++r)
                for (int c = 0; c < g.cols; ++c) {
                    const int dr = r - g.row0, dc = c - g.col0;
                    for (Keypoint k : f.keypoints) {
                        if (odd(dc)) {
                            k.x = W - k.x;
                            k.angle = -k.angle;
                        }
                        if (odd(dr)) {
                            k.y = H - k.y;
                            k.angle = -k.angle;
                        }
                        k.x += dc * W;
                        k.y += dr * H;
                        all.push_back(k);
                    }
                }
            f.keypoints = std::move(all);
        }
        mapKeypoints(f.keypoints, image);
        const double turn = std::atan2(-image(1, 0), image(0, 0));
        for (Keypoint& k : f.keypoints) {
            k.angle = wrapAngle(k.angle + turn);
            k.scale *= keypointScale;
        }
    }
}

namespace {

/// filter_bboxes_by_holes: boxes (whole pixels, truncated) that keep too little outside the holes go;
/// the others shrink to the bounding box of their uncovered pixels.
void filterBoxesByHoles(TargetFrame& f, const BoxRules& rules, std::size_t op,
                        std::vector<DroppedBox>& dropped) {
    if (f.boxes.empty()) return;
    const int W = f.width, H = f.height;
    std::vector<std::uint8_t> covered(static_cast<std::size_t>(W) * H, 0);
    for (const Hole& h : f.holes)
        for (int y = std::max(0, h.y); y < std::min(H, h.y + h.h); ++y)
            for (int x = std::max(0, h.x); x < std::min(W, h.x + h.w); ++x)
                covered[static_cast<std::size_t>(y) * W + x] = 1;
    std::vector<Box> kept;
    for (const Box& b : f.boxes) {
        // astype(int) truncates toward zero; the filter before clipped the boxes to the frame.
        const int x0 = static_cast<int>(b.x0), y0 = static_cast<int>(b.y0);
        const int x1 = std::min(W, static_cast<int>(b.x1)), y1 = std::min(H, static_cast<int>(b.y1));
        const double area = double(static_cast<int>(b.x1) - x0) * double(static_cast<int>(b.y1) - y0);
        long inter = 0;
        int vx0 = INT_MAX, vy0 = INT_MAX, vx1 = -1, vy1 = -1;
        for (int y = std::max(0, y0); y < y1; ++y)
            for (int x = std::max(0, x0); x < x1; ++x) {
                if (covered[static_cast<std::size_t>(y) * W + x]) {
                    ++inter;
                } else {
                    vx0 = std::min(vx0, x);
                    vx1 = std::max(vx1, x);
                    vy0 = std::min(vy0, y);
                    vy1 = std::max(vy1, y);
                }
            }
        const double remaining = area - double(inter);
        const double vis = remaining / area;  // NaN for an empty box: dropped below
        if (!(remaining >= rules.minArea) || !(vis >= rules.minVisibility) || !(remaining > 0) || vx1 < 0) {
            dropped.push_back({b, DropRule::Hole, op, W, H});
            continue;
        }
        Box n = b;
        n.x0 = vx0;
        n.y0 = vy0;
        n.x1 = vx1 + 1;
        n.y1 = vy1 + 1;
        n.visibility = b.visibility * std::min(1.0, vis);
        kept.push_back(n);
    }
    f.boxes = std::move(kept);
}

}  // namespace

void prepareTargets(const Targets& targets, int width, int height, const TargetSettings& rules,
                    TargetFrame& f, std::vector<DroppedBox>* dropped) {
    const BoxRules& br = rules.boxes;
    const double W = width, H = height;
    // Before the first op, as BboxProcessor's preprocess: clip, drop the invalid ones, then check.
    for (const Box& in : targets.boxes) {
        Box b = in;
        b.visibility = 1;
        // Albumentations holds the boxes normalised in float32 until the first transform: an edge on a
        // whole pixel may come back a hair below it (2 / 200 -> 1.99999996), which matters where a
        // dropout truncates boxes to pixels.
        auto f32 = [](double v, double size) {
            return double(static_cast<float>(static_cast<float>(v) / static_cast<float>(size))) * size;
        };
        b.x0 = f32(b.x0, W);
        b.x1 = f32(b.x1, W);
        b.y0 = f32(b.y0, H);
        b.y1 = f32(b.y1, H);
        if (br.clip) {
            b.x0 = std::clamp(b.x0, 0.0, W);
            b.x1 = std::clamp(b.x1, 0.0, W);
            b.y0 = std::clamp(b.y0, 0.0, H);
            b.y1 = std::clamp(b.y1, 0.0, H);
        }
        if (br.filterInvalid) {
            double v = 0;
            if (filterBox(b, width, height, BoxRules{}, v)) {
                if (dropped) dropped->push_back({in, DropRule::Invalid, kBeforeOps, width, height});
                continue;
            }
        }
        // check_bboxes: inside the image (np.isclose's tolerance on the normalised values), x_max > x_min.
        auto inRange = [](double v, double size) {
            const double n = v / size;
            return (n >= 0 && n <= 1) || std::abs(n) <= 1e-8 || std::abs(n - 1) <= 1e-8 + 1e-5;
        };
        std::string why;
        if (!inRange(b.x0, W) || !inRange(b.x1, W) || !inRange(b.y0, H) || !inRange(b.y1, H))
            why = "lies outside the " + std::to_string(width) + "x" + std::to_string(height) +
                  " image (set the preset's targets.boxes.clip or filter_invalid_bboxes to accept it)";
        else if (!(b.x1 > b.x0) || !(b.y1 > b.y0))
            why = "has no area (x_max must exceed x_min and y_max y_min)";
        if (!why.empty())
            throw InputError("box " + std::to_string(in.id) + " [" + formatNumber(in.x0) + ", " +
                             formatNumber(in.y0) + ", " + formatNumber(in.x1) + ", " + formatNumber(in.y1) +
                             "] " + why);
        f.boxes.push_back(b);
    }
    for (const Keypoint& k : targets.keypoints) {
        if (rules.keypoints.removeInvisible && !keypointInside(k, width, height))
            throw InputError("keypoint " + std::to_string(k.id) + " (" + formatNumber(k.x) + ", " +
                             formatNumber(k.y) + ") lies outside the " + std::to_string(width) + "x" +
                             std::to_string(height) +
                             " image (Albumentations refuses it with remove_invisible)");
        Keypoint c = k;
        c.angle = wrapAngle(k.angle);
        f.keypoints.push_back(c);
    }
}

void mosaicTargets(const MosaicParams& m, TargetFrame& f) {
    // The largest cell (the sample's own image) first, then the others row-major (the library's
    // dict order).
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < m.cells.size(); ++i)
        if (m.cells[i].primary)
            order.insert(order.begin(), i);
        else
            order.push_back(i);
    std::vector<Box> boxes;
    std::vector<Keypoint> keypoints;
    for (const std::size_t i : order) {
        const MosaicCell& cell = m.cells[i];
        TargetFrame item;
        if (cell.primary) {
            item.boxes = f.boxes;
            item.keypoints = f.keypoints;
            item.width = f.width;
            item.height = f.height;
        } else {
            const std::optional<PartnerLabels> p = f.partners ? f.partners(cell.partner) : std::nullopt;
            if (!p || !p->targets) continue;  // a partner without labels brings none
            item.width = p->width;
            item.height = p->height;
            prepareTargets(*p->targets, p->width, p->height, f.rules ? *f.rules : TargetSettings{}, item);
            f.boxesBrought += item.boxes.size();
            f.keypointsBrought += item.keypoints.size();
            // Its objects are not the sample's: ids apart, so writers do not give them its fields.
            const int base = 1000000 * static_cast<int>(i + 1);
            for (Box& b : item.boxes) b.id += base;
            for (Keypoint& k : item.keypoints)
                if (k.owner >= 0) k.owner += base;
        }
        const MosaicPlacement place = mosaicPlacement(m, cell, item.width, item.height);
        // Boxes are normalised, so the resize scales them by the rounded size; keypoints by the scale.
        const double bx = double(place.resizedW) / item.width, by = double(place.resizedH) / item.height;
        const double x0 = cell.rect.x, y0 = cell.rect.y, x1 = x0 + cell.rect.w, y1 = y0 + cell.rect.h;
        for (Box b : item.boxes) {
            b.x0 = b.x0 * bx + place.offsetX;
            b.x1 = b.x1 * bx + place.offsetX;
            b.y0 = b.y0 * by + place.offsetY;
            b.y1 = b.y1 * by + place.offsetY;
            const double area = (b.x1 - b.x0) * (b.y1 - b.y0);
            // The nested Compose clips to the cell and drops what is left without area.
            b.x0 = std::clamp(b.x0, x0, x1);
            b.x1 = std::clamp(b.x1, x0, x1);
            b.y0 = std::clamp(b.y0, y0, y1);
            b.y1 = std::clamp(b.y1, y0, y1);
            const double kept = (b.x1 - b.x0) * (b.y1 - b.y0);
            if (!(kept > 0)) continue;
            b.visibility *= std::min(1.0, kept / area);
            boxes.push_back(b);
        }
        for (Keypoint k : item.keypoints) {
            // The nested Compose checks keypoints after each of its transforms: first in the resized
            // image (scaled by the scale, not by the rounded size, so one on the last row may leave
            // it), then in the cell.
            const double rx = k.x * place.scale, ry = k.y * place.scale;
            if (!(rx >= 0 && rx < place.resizedW && ry >= 0 && ry < place.resizedH)) continue;
            k.x = rx + place.offsetX;
            k.y = ry + place.offsetY;
            k.scale *= place.scale;
            if (k.x >= x0 && k.x < x1 && k.y >= y0 && k.y < y1) keypoints.push_back(k);
        }
    }
    f.boxes = std::move(boxes);
    f.keypoints = std::move(keypoints);
    f.width = m.targetW;
    f.height = m.targetH;
}

void remapTargets(TargetFrame& f, const std::vector<float>& mapX, const std::vector<float>& mapY,
                  bool directKeypoints) {
    const int W = f.width, H = f.height;
    const std::size_t n = static_cast<std::size_t>(W) * H;
    if (mapX.size() != n || mapY.size() != n) throw RuntimeError("remapTargets: maps of the wrong size");
    // cv2.remap with INTER_NEAREST: the source pixel of every output pixel (cvRound, saturated to a
    // short), -1 where it falls outside (the constant border, 0).
    std::vector<int> source(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        const auto round = [](float v) {
            return std::isnan(v) ? -32768L
                                 : std::clamp<long>(std::lrint(std::clamp(v, -1e9f, 1e9f)), -32768, 32767);
        };
        const long sx = round(mapX[i]), sy = round(mapY[i]);
        if (sx >= 0 && sx < W && sy >= 0 && sy < H) source[i] = static_cast<int>(sy * W + sx);
    }
    // Boxes: bboxes_to_mask, the remap, mask_to_bboxes.
    for (Box& b : f.boxes) {
        const auto edge = [](double v, int size) {
            return static_cast<int>(std::clamp(std::nearbyint(v), 0.0, static_cast<double>(size - 1)));
        };
        const int x0 = edge(b.x0, W), x1 = edge(b.x1, W), y0 = edge(b.y0, H), y1 = edge(b.y1, H);
        int minX = INT_MAX, maxX = -1, minY = INT_MAX, maxY = -1;
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const int s = source[std::size_t(y) * W + x];
                if (s < 0) continue;
                const int sx = s % W, sy = s / W;
                if (sx < x0 || sx > x1 || sy < y0 || sy > y1) continue;
                minX = std::min(minX, x), maxX = std::max(maxX, x);
                minY = std::min(minY, y), maxY = std::max(maxY, y);
            }
        if (maxX < 0) continue;  // vanished: the library keeps the box where it was
        b.x0 = minX, b.x1 = maxX, b.y0 = minY, b.y1 = maxY;
    }
    if (f.keypoints.empty()) return;
    if (directKeypoints) {
        // generate_inverse_distortion_map, float32 as numpy computes it: each source pixel claims the
        // (up to) four pixels around where it lands, unless one claimed earlier is nearer by the
        // library's measure (which compares with the stored source position) or is 0 (empty).
        std::vector<float> invX(n, 0.0f), invY(n, 0.0f);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const float dx = mapX[std::size_t(y) * W + x], dy = mapY[std::size_t(y) * W + x];
                if (!(dx >= 0 && dx < float(W) && dy >= 0 && dy < float(H))) continue;
                const int fx = static_cast<int>(std::floor(dx)), fy = static_cast<int>(std::floor(dy));
                const int cx = std::min(fx + 1, W - 1), cy = std::min(fy + 1, H - 1);
                for (int ny = fy; ny <= cy; ++ny)
                    for (int nx = fx; nx <= cx; ++nx) {
                        const std::size_t o = std::size_t(ny) * W + nx;
                        if (invX[o] == 0.0f ||
                            std::abs(float(nx) - dx) + std::abs(float(ny) - dy) <
                                std::abs(float(nx) - invX[o]) + std::abs(float(ny) - invY[o])) {
                            invX[o] = float(x);
                            invY[o] = float(y);
                        }
                    }
            }
        for (Keypoint& k : f.keypoints) {
            const int xi = static_cast<int>(std::clamp(k.x, 0.0, double(W - 1)));
            const int yi = static_cast<int>(std::clamp(k.y, 0.0, double(H - 1)));
            const std::size_t o = std::size_t(yi) * W + xi;
            k.x = std::clamp(double(invX[o]), 0.0, double(W - 1));
            k.y = std::clamp(double(invY[o]), 0.0, double(H - 1));
        }
        return;
    }
    // remap_keypoints_via_mask: an int16 image of keypoint numbers (from 1), remapped.
    std::vector<std::int16_t> numbers(n, 0);
    for (std::size_t i = 0; i < f.keypoints.size(); ++i) {
        const double rx = std::nearbyint(f.keypoints[i].x), ry = std::nearbyint(f.keypoints[i].y);
        if (!(rx >= 0 && rx < W && ry >= 0 && ry < H)) continue;
        const int x = static_cast<int>(rx), y = static_cast<int>(ry);
        const auto number = static_cast<std::int16_t>(static_cast<std::uint16_t>(i + 1));
        for (const auto& [ox, oy] : {std::pair{0, -1}, {-1, 0}, {0, 0}, {1, 0}, {0, 1}})
            if (x + ox >= 0 && x + ox < W && y + oy >= 0 && y + oy < H)
                numbers[std::size_t(y + oy) * W + (x + ox)] = number;
    }
    std::vector<std::size_t> first(f.keypoints.size() + 1, SIZE_MAX);
    for (std::size_t i = 0; i < n; ++i) {
        if (source[i] < 0) continue;
        const std::int16_t v = numbers[std::size_t(source[i])];
        if (v > 0 && static_cast<std::size_t>(v) <= f.keypoints.size() && first[std::size_t(v)] == SIZE_MAX)
            first[std::size_t(v)] = i;
    }
    std::vector<Keypoint> kept;
    for (std::size_t i = 0; i < f.keypoints.size(); ++i) {
        Keypoint k = f.keypoints[i];
        const std::size_t at = first[i + 1];
        if (at == SIZE_MAX) {
            f.removedKeypoints.push_back(k);
            continue;
        }
        k.x = static_cast<double>(at % std::size_t(W));
        k.y = static_cast<double>(at / std::size_t(W));
        kept.push_back(k);
    }
    f.keypoints = std::move(kept);
}

MovedTargets moveTargets(const Replay& replay, const TargetSettings& rules, const Targets& targets,
                         const PartnerLabelsFn& partners) {
    MovedTargets out;
    TargetFrame f;
    f.width = replay.imageWidth;
    f.height = replay.imageHeight;
    f.rules = &rules;
    f.partners = partners;
    const BoxRules& br = rules.boxes;
    prepareTargets(targets, f.width, f.height, rules, f, &out.droppedBoxes);

    auto filterBoxes = [&](std::size_t op) {
        std::size_t keep = 0;
        for (std::size_t i = 0; i < f.boxes.size(); ++i) {
            Box b = f.boxes[i];
            double v = 0;
            if (const auto rule = filterBox(b, f.width, f.height, br, v)) {
                out.droppedBoxes.push_back({f.boxes[i], *rule, op, f.width, f.height});
                continue;
            }
            b.visibility = f.boxes[i].visibility * std::min(1.0, v);
            f.boxes[keep++] = b;
        }
        f.boxes.resize(keep);
    };
    auto filterKeypoints = [&](std::size_t op) {
        if (!rules.keypoints.removeInvisible) return;
        std::erase_if(f.keypoints, [&](const Keypoint& k) {
            if (keypointInside(k, f.width, f.height)) return false;
            out.droppedKeypoints.push_back({k, DropRule::Outside, op});
            return true;
        });
    };

    // Compose filters after every transform (applied or not) when check_each_transform, and once more
    // at the end (postprocess).
    std::size_t last = kBeforeOps;
    for (std::size_t i = 0; i < replay.ops.size(); ++i) {
        const ConcreteOp& op = replay.ops[i];
        if (op.applied) {
            f.holes.clear();
            f.removed.clear();
            f.removedKeypoints.clear();
            if (opModule(op.id).moveTargets(op.params, f)) last = i;
            for (const Box& b : f.removed)
                out.droppedBoxes.push_back({b, DropRule::Outside, i, f.width, f.height});
            for (const Keypoint& k : f.removedKeypoints)
                out.droppedKeypoints.push_back({k, DropRule::Outside, i});
            if (!f.holes.empty()) {
                filterBoxesByHoles(f, br, i, out.droppedBoxes);
                if (rules.keypoints.removeInvisible)
                    std::erase_if(f.keypoints, [&](const Keypoint& k) {
                        for (const Hole& h : f.holes)
                            if (inHole(k.x, k.y, h)) {
                                out.droppedKeypoints.push_back({k, DropRule::Hole, i});
                                return true;
                            }
                        return false;
                    });
            }
        }
        if (br.checkEachTransform) filterBoxes(i);
        if (rules.keypoints.checkEachTransform) filterKeypoints(i);
    }
    filterBoxes(last);
    filterKeypoints(last);
    out.width = f.width;
    out.height = f.height;
    out.boxesIn = targets.boxes.size() + f.boxesBrought;
    out.keypointsIn = targets.keypoints.size() + f.keypointsBrought;
    out.boxes = std::move(f.boxes);
    out.keypoints = std::move(f.keypoints);
    return out;
}

std::vector<Mask> moveMasks(const Replay& replay, const std::vector<Mask>& masks, int outWidth, int outHeight,
                            int maskFill, const PartnerLabelsFn& partners) {
    if (outWidth <= 0 || outHeight <= 0) throw InputError("output size must be positive");
    const int w = replay.imageWidth, h = replay.imageHeight;
    for (std::size_t i = 0; i < masks.size(); ++i)
        if (masks[i].width != w || masks[i].height != h)
            throw InputError("mask " + std::to_string(i) + " is " + std::to_string(masks[i].width) + "x" +
                             std::to_string(masks[i].height) + ", but its image is " + std::to_string(w) +
                             "x" + std::to_string(h));
    // One op at a time, as Albumentations applies them: nearest neighbour twice is not nearest
    // neighbour of the composed map (a crop's resize then a rotation would pick other pixels).
    return movePackedMasks(masks, [&](Image packed, std::size_t first) {
        auto step = [&](const ConcreteOp* op, int toW, int toH) {
            PlanBuilder b = PlanBuilder::forMasks(packed.width, packed.height, toW, toH, maskFill, 0, toW, toH);
            if (op) opModule(op->id).lower(op->params, b);
            const Plan plan = b.finish();
            if (plan.stages.size() == 1 && plan.stages[0].warp.copy) return;
            SourceLevels source(std::move(packed));
            packed = executePlanCpu(source, plan, RowLoop{});
        };
        for (const ConcreteOp& op : replay.ops) {
            if (!op.applied || opDesc(op.id).category != OpCategory::Geometric) continue;
            if (const auto* grid = std::get_if<MosaicParams>(&op.params)) {
                // The grid's cells: this image's masks and the partners' masks of the same numbers.
                std::vector<Image> partnerPacks;
                partnerPacks.reserve(grid->cells.size());
                const Rgb fill{std::uint8_t(maskFill), std::uint8_t(maskFill), std::uint8_t(maskFill)};
                packed =
                    composeGrid(*grid, grid->targetW, grid->targetH, 3, true, fill, [&](const MosaicCell& c) {
                        if (c.primary) return GridSource{&packed, 0, packed.width, packed.height};
                        const std::optional<PartnerLabels> p = partners ? partners(c.partner) : std::nullopt;
                        if (!p || !p->targets || p->targets->masks.size() <= first) return GridSource{};
                        partnerPacks.push_back(packMasks(p->targets->masks, first));
                        return GridSource{&partnerPacks.back(), 0, p->width, p->height};
                    });
                continue;
            }
            int nw = packed.width, nh = packed.height;
            opModule(op.id).frameAfter(op.params, nw, nh);
            step(&op, nw, nh);
        }
        if (packed.width != outWidth || packed.height != outHeight) step(nullptr, outWidth, outHeight);
        return packed;
    });
}

Image packMasks(const std::vector<Mask>& masks, std::size_t first) {
    const int w = masks[first].width, h = masks[first].height;
    Image packed(w, h, 3);
    for (int y = 0; y < h; ++y) {
        std::uint8_t* row = packed.row(y);
        for (std::size_t c = 0; c < 3 && first + c < masks.size(); ++c) {
            if (masks[first + c].width != w || masks[first + c].height != h) continue;
            const std::uint8_t* src = masks[first + c].values.data() + static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) row[x * 3 + static_cast<int>(c)] = src[x];
        }
    }
    return packed;
}

std::vector<Mask> movePackedMasks(const std::vector<Mask>& masks,
                                  const std::function<Image(Image, std::size_t first)>& move) {
    std::vector<Mask> out(masks.size());
    if (masks.empty()) return out;
    for (std::size_t first = 0; first < masks.size(); first += 3) {
        Image packed = packMasks(masks, first);
        const Image moved = move(std::move(packed), first);
        for (std::size_t c = 0; c < 3 && first + c < masks.size(); ++c) {
            Mask& m = out[first + c];
            m.width = moved.width;
            m.height = moved.height;
            m.owner = masks[first + c].owner;
            m.values.resize(static_cast<std::size_t>(m.width) * m.height);
            for (int y = 0; y < m.height; ++y) {
                const std::uint8_t* row = moved.row(y);
                for (int x = 0; x < m.width; ++x)
                    m.values[static_cast<std::size_t>(y) * m.width + x] = row[x * 3 + static_cast<int>(c)];
            }
        }
    }
    return out;
}

}  // namespace auglab
