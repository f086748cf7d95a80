// random_rotate90, transpose and d4: Albumentations 2.0.8 RandomRotate90 (np.rot90 by a drawn k),
// Transpose (rows and columns swapped) and D4 (one of the square's 8 symmetries, drawn). Everything AugLab
// knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).
//
// Both move whole pixels (exact on every backend) and, on a non-square image, swap its sides: they
// set the frame (each plan stage has its own size, so they may come anywhere).

#include "ops/rotate90.h"

#include <numbers>
#include <string>
#include <vector>

#include "albumentations_common.h"
#include "albumentations_transform_reader.h"
#include "export_common.h"
#include "geometry.h"
#include "ops/flip.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;

/// The draw of the number of quarter turns (draw 0 is the gate).
constexpr std::uint32_t kFactorDraw = 1;

/// Pixel (x, y) of a W x H image to its place after k quarter turns counter-clockwise (np.rot90):
/// k = 1: (y, W - 1 - x); 2: (W - 1 - x, H - 1 - y); 3: (H - 1 - y, x).
Matrix3 quarterTurns(int k, int W, int H) {
    switch (k) {
        case 1:
            return {{0, 1, 0, -1, 0, W - 1.0, 0, 0, 1}};
        case 2:
            return {{-1, 0, W - 1.0, 0, -1, H - 1.0, 0, 0, 1}};
        case 3:
            return {{0, -1, H - 1.0, 1, 0, 0, 0, 0, 1}};
        default:
            return Matrix3::identity();
    }
}

class RandomRotate90Module final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = params::makeOp(
            id, "random_rotate90", "Random rotate 90", OpCategory::Geometric,
            "Albumentations RandomRotate90: k quarter turns counter-clockwise (np.rot90), k drawn uniformly "
            "from 0, 1, 2, 3, so a quarter of the applied samples stay as they are. Exact; a non-square "
            "image's sides swap on odd k.",
            {});
        d.setsFrame = true;
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws& d, int, int) const override {
        return Rot90Params{static_cast<int>(d.randint(kFactorDraw, 0, 3))};
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        if (std::get<Rot90Params>(params).factor % 2 == 1) std::swap(width, height);
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        j["factor"] = std::get<Rot90Params>(params).factor;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "factor"});
        return Rot90Params{static_cast<int>(r.member("factor").integer(0, 3))};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "factor") return {double(std::get<Rot90Params>(params).factor)};
        return {};
    }

    /// bboxes_rot90 on normalised boxes (in pixels: the same with W and H), keypoints_rot90 with the
    /// angle turned by -k pi/2 and wrapped to [0, 2 pi).
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const int k = std::get<Rot90Params>(params).factor;
        if (k == 0) return true;
        const double W = f.width, H = f.height;
        for (Box& b : f.boxes) {
            const Box o = b;
            if (k == 1) {
                b.x0 = o.y0;
                b.y0 = W - o.x1;
                b.x1 = o.y1;
                b.y1 = W - o.x0;
            } else if (k == 2) {
                b.x0 = W - o.x1;
                b.y0 = H - o.y1;
                b.x1 = W - o.x0;
                b.y1 = H - o.y0;
            } else {
                b.x0 = H - o.y1;
                b.y0 = o.x0;
                b.x1 = H - o.y0;
                b.y1 = o.x1;
            }
        }
        for (Keypoint& p : f.keypoints) {
            const double x = p.x, y = p.y;
            if (k == 1) {
                p.x = y;
                p.y = W - 1 - x;
                p.angle = wrapAngle(p.angle - std::numbers::pi / 2);
            } else if (k == 2) {
                p.x = W - 1 - x;
                p.y = H - 1 - y;
                p.angle = wrapAngle(p.angle - std::numbers::pi);
            } else {
                p.x = H - 1 - y;
                p.y = x;
                p.angle = wrapAngle(p.angle + std::numbers::pi / 2);
            }
        }
        if (k % 2 == 1) std::swap(f.width, f.height);
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const int k = std::get<Rot90Params>(params).factor;
        if (k == 0) return;
        const int W = b.frameWidth(), H = b.frameHeight();
        const bool odd = k % 2 == 1;
        b.wholePixelFrame(quarterTurns(k, W, H), odd ? H : W, odd ? W : H, odd);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomRotate90"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("RandomRotate90", e.op->p);
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        return {{"p", v.before2() ? 0.5 : 1.0}};
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const double p = e.op->p;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("RandomRotate90()", p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.warnings.push_back(e.label() +
                                     ": a Keras batch holds one shape: the quarter turns are drawn per "
                                     "image, so the images must be square.");
                x.lines += "    " + kerasWithP("RandomRotate90()", p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                x.lines +=
                    "    images = fn.rotate(images, angle=fn.random.uniform(values=[0.0, 90.0, 180.0, "
                    "270.0]) * " +
                    daliCoin(p) + ", keep_size=False, interp_type=types.INTERP_NN)\n";
                x.lines += "    shape = images.shape(dtype=types.FLOAT)\n";
                x.lines += "    height, width = shape[0], shape[1]\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class RandomRotate90(torch.nn.Module):
    """AugLab random_rotate90 (Albumentations RandomRotate90): k quarter turns counter-clockwise, as
    np.rot90, k drawn uniformly from 0..3."""

    def forward(self, img):  # C x H x W
        return torch.rot90(img, int(torch.randint(4, ())), dims=(-2, -1))
)";
            case PythonTarget::Keras:
                return R"(

class RandomRotate90(keras.layers.Layer):
    """AugLab random_rotate90 (Albumentations RandomRotate90): k quarter turns counter-clockwise, as
    np.rot90, k drawn uniformly from 0..3 per image (square images: a batch holds one shape)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        x = keras.ops.cast(images, "float32")
        t = keras.ops.transpose(x, (0, 2, 1, 3))
        turns = [x, keras.ops.flip(t, axis=1), keras.ops.flip(keras.ops.flip(x, axis=1), axis=2),
                 keras.ops.flip(t, axis=2)]
        k = keras.random.randint((keras.ops.shape(images)[0], 1, 1, 1), 0, 4, seed=self.seed_generator)
        out = turns[0]
        for i in range(1, 4):
            out = keras.ops.where(k == i, turns[i], out)
        return out
)";
            default:
                return {};
        }
    }
};

class TransposeModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = params::makeOp(id, "transpose", "Transpose", OpCategory::Geometric,
                                  "Albumentations Transpose: rows and columns swapped (a mirror about the "
                                  "main diagonal). Exact; a non-square image's sides swap.",
                                  {});
        d.setsFrame = true;
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return FlipParams{}; }

    void frameAfter(const OpParams&, int& width, int& height) const override { std::swap(width, height); }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return FlipParams{};
    }

    /// bboxes_transpose (x and y swapped), keypoints_transpose (angle a -> pi/2 - a for a <= pi,
    /// else 3 pi/2 - a, then wrapped to [0, 2 pi)).
    bool moveTargets(const OpParams&, TargetFrame& f) const override {
        for (Box& b : f.boxes) {
            std::swap(b.x0, b.y0);
            std::swap(b.x1, b.y1);
        }
        for (Keypoint& k : f.keypoints) {
            std::swap(k.x, k.y);
            k.angle = wrapAngle(k.angle <= std::numbers::pi ? std::numbers::pi / 2 - k.angle
                                                            : 3 * std::numbers::pi / 2 - k.angle);
        }
        std::swap(f.width, f.height);
        return true;
    }

    void lower(const OpParams&, PlanBuilder& b) const override {
        b.wholePixelFrame(Matrix3{{0, 1, 0, 1, 0, 0, 0, 0, 1}}, b.frameHeight(), b.frameWidth(), true);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Transpose"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("Transpose", e.op->p);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const double p = e.op->p;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("Transpose()", p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.warnings.push_back(e.label() +
                                     ": a Keras batch holds one shape: transposed per image, so the "
                                     "images must be square.");
                x.lines += "    ApplyWithProbability(lambda x: keras.ops.transpose(x, (0, 2, 1, 3)), p=" +
                           pyFloat(p) + "),\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                // A quarter turn counter-clockwise, then a vertical flip: the transpose.
                x.lines += "    # " + e.label() + "\n";
                x.lines += "    on = fn.random.coin_flip(probability=" + pyFloat(p) + ")\n";
                x.lines +=
                    "    images = fn.rotate(images, angle=90.0 * on, keep_size=False, "
                    "interp_type=types.INTERP_NN)\n";
                x.lines += "    images = fn.flip(images, horizontal=0, vertical=on)\n";
                x.lines += "    shape = images.shape(dtype=types.FLOAT)\n";
                x.lines += "    height, width = shape[0], shape[1]\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        return R"(

class Transpose(torch.nn.Module):
    """AugLab transpose (Albumentations Transpose): rows and columns swapped."""

    def forward(self, img):  # C x H x W
        return img.transpose(-2, -1).contiguous()
)";
    }
};

/// D4's group elements, in the library's order (d4_group_elements).
constexpr const char* kD4Elements[8] = {"e", "r90", "r180", "r270", "v", "hvt", "h", "t"};

/// The element as quarter turns then a transpose (hvt: rot90 by 2, then transposed), or a flip.
struct D4Steps {
    int turns = 0;
    bool transpose = false;
    int flip = 0;  ///< 1: horizontal, 2: vertical
};

D4Steps d4Steps(int element) {
    switch (element) {
        case 1:
            return {1, false, 0};
        case 2:
            return {2, false, 0};
        case 3:
            return {3, false, 0};
        case 4:
            return {0, false, 2};
        case 5:
            return {2, true, 0};
        case 6:
            return {0, false, 1};
        case 7:
            return {0, true, 0};
        default:
            return {};
    }
}

class D4Module final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = params::makeOp(
            id, "d4", "D4 (square symmetries)", OpCategory::Geometric,
            "Albumentations D4: one of the 8 symmetries of a square drawn uniformly (identity, quarter "
            "turns by 90, 180 and 270 degrees, vertical and horizontal flips, the transpose and the "
            "anti-diagonal reflection). Exact; a non-square image's sides swap on half of them.",
            {});
        d.setsFrame = true;
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws& d, int, int) const override {
        return Rot90Params{static_cast<int>(d.randint(kFactorDraw, 0, 7))};
    }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const D4Steps s = d4Steps(std::get<Rot90Params>(params).factor);
        if ((s.turns % 2 == 1) != s.transpose) std::swap(width, height);
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        j["element"] = kD4Elements[std::get<Rot90Params>(params).factor];
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "element"});
        const JsonReader e = r.member("element");
        const std::string name = e.string();
        for (int i = 0; i < 8; ++i)
            if (name == kD4Elements[i]) return Rot90Params{i};
        e.fail("unknown element \"" + name + "\" (e, r90, r180, r270, v, hvt, h, t)");
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "element") return {double(std::get<Rot90Params>(params).factor)};
        return {};
    }

    /// bboxes_d4 / keypoints_d4: the quarter turns', flips' and transpose's own rules, in that order.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const D4Steps s = d4Steps(std::get<Rot90Params>(params).factor);
        if (s.turns > 0) randomRotate90Module().moveTargets(Rot90Params{s.turns}, f);
        if (s.flip == 1) horizontalFlipModule().moveTargets(FlipParams{}, f);
        if (s.flip == 2) verticalFlipModule().moveTargets(FlipParams{}, f);
        if (s.transpose) transposeModule().moveTargets(FlipParams{}, f);
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const D4Steps s = d4Steps(std::get<Rot90Params>(params).factor);
        if (s.turns > 0) randomRotate90Module().lower(Rot90Params{s.turns}, b);
        if (s.flip == 1) horizontalFlipModule().lower(FlipParams{}, b);
        if (s.flip == 2) verticalFlipModule().lower(FlipParams{}, b);
        if (s.transpose) transposeModule().lower(FlipParams{}, b);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"D4"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("D4", e.op->p);
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 1.0}};
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const double p = e.op->p;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("D4()", p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.warnings.push_back(
                    e.label() +
                    ": a Keras batch holds one shape: the symmetry is drawn per image, so the "
                    "images must be square.");
                x.lines += "    " + kerasWithP("D4()", p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                // k quarter turns, then a horizontal flip or not: each of the 8 symmetries once, so
                // uniform draws of both are a uniform draw of the group.
                x.lines += "    # " + e.label() + "\n";
                x.lines += "    on = fn.random.coin_flip(probability=" + pyFloat(p) + ")\n";
                x.lines +=
                    "    images = fn.rotate(images, angle=fn.random.uniform(values=[0.0, 90.0, 180.0, "
                    "270.0]) * fn.cast(on, dtype=types.FLOAT), keep_size=False, "
                    "interp_type=types.INTERP_NN)\n";
                x.lines +=
                    "    images = fn.flip(images, horizontal=fn.random.coin_flip() * on, vertical=0)\n";
                x.lines += "    shape = images.shape(dtype=types.FLOAT)\n";
                x.lines += "    height, width = shape[0], shape[1]\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class D4(torch.nn.Module):
    """AugLab d4 (Albumentations D4): one of the square's 8 symmetries, drawn uniformly: e, r90, r180,
    r270 (np.rot90), v, hvt (r180 then transposed), h, t (transposed)."""

    def forward(self, img):  # C x H x W
        g = int(torch.randint(8, ()))
        if g in (1, 2, 3):
            return torch.rot90(img, g, dims=(-2, -1))
        if g == 4:
            return img.flip(-2)
        if g == 5:
            return torch.rot90(img, 2, dims=(-2, -1)).transpose(-2, -1).contiguous()
        if g == 6:
            return img.flip(-1)
        if g == 7:
            return img.transpose(-2, -1).contiguous()
        return img
)";
            case PythonTarget::Keras:
                return R"(

class D4(keras.layers.Layer):
    """AugLab d4 (Albumentations D4): one of the square's 8 symmetries per image, drawn uniformly
    (square images: a batch holds one shape)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        t = ops.transpose(x, (0, 2, 1, 3))
        r180 = ops.flip(ops.flip(x, axis=1), axis=2)
        # e, r90, r180, r270, v, hvt, h, t as np.rot90 and the library make them
        elements = [x, ops.flip(t, axis=1), r180, ops.flip(t, axis=2), ops.flip(x, axis=1),
                    ops.transpose(r180, (0, 2, 1, 3)), ops.flip(x, axis=2), t]
        g = keras.random.randint((ops.shape(images)[0], 1, 1, 1), 0, 8, seed=self.seed_generator)
        out = elements[0]
        for i in range(1, 8):
            out = ops.where(g == i, elements[i], out)
        return ops.cast(out, images.dtype)
)";
            default:
                return {};
        }
    }
};

}  // namespace

const OpModule& d4Module() {
    static const D4Module module;
    return module;
}

const OpModule& randomRotate90Module() {
    static const RandomRotate90Module module;
    return module;
}

const OpModule& transposeModule() {
    static const TransposeModule module;
    return module;
}

}  // namespace auglab
