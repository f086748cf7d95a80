// deotte_affine: the transform of Chris Deotte's notebook "Rotation Augmentation GPU/TPU".
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/deotte_affine.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "colour.h"
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
using namespace replay_fields;

/// Chris Deotte's notebook: rot = std * N, shr = std * N, h_zoom = 1 + std * N, w_zoom likewise,
/// h_shift = std * N, w_shift likewise (the notebook writes N / 10 for std 0.1).
DeotteParams sampleDeotte(const OpConfig& op, const OpDraws& d) {
    const double zoom = op.number("zoom_std"), shift = op.number("shift_std_px");
    return DeotteParams{op.number("rotation_std_deg") * d.normal(1),
                        op.number("shear_std_deg") * d.normal(2),
                        1.0 + zoom * d.normal(3),
                        1.0 + zoom * d.normal(4),
                        shift * d.normal(5),
                        shift * d.normal(6)};
}

/// numpy/Python floor division, as the notebook's -DIM//2.
int floorDiv(int a, int b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/// The float32 matrix of the notebook's get_mat: R·SH·Z·SF, each product of 3x3 float32 matrices
/// summed in index order, multiply then add.
std::array<float, 9> deotteMatrix(const DeotteParams& d) {
    using M = std::array<float, 9>;
    auto mul = [](const M& a, const M& b) {
        M c{};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                float sum = a[i * 3] * b[j];
                sum = sum + a[i * 3 + 1] * b[3 + j];
                sum = sum + a[i * 3 + 2] * b[6 + j];
                c[i * 3 + j] = sum;
            }
        return c;
    };
    const float pi = 3.14159265358979323846f;
    const float rot = pi * static_cast<float>(d.rotation_deg) / 180.0f;
    const float shr = pi * static_cast<float>(d.shear_deg) / 180.0f;
    const float c1 = std::cos(rot), s1 = std::sin(rot), c2 = std::cos(shr), s2 = std::sin(shr);
    const M rotation{c1, s1, 0, -s1, c1, 0, 0, 0, 1};
    const M shear{1, s2, 0, 0, c2, 0, 0, 0, 1};
    const M zoom{1.0f / static_cast<float>(d.height_zoom),
                 0,
                 0,
                 0,
                 1.0f / static_cast<float>(d.width_zoom),
                 0,
                 0,
                 0,
                 1};
    const M shift{1, 0, static_cast<float>(d.height_shift_px), 0, 1, static_cast<float>(d.width_shift_px), 0,
                  0, 1};
    return mul(mul(rotation, shear), mul(zoom, shift));
}

/// The gather of a dim x dim frame rendered at outW x outH: output row y shows destination row
/// floor((y + 0.5) dim / outH) of the notebook's grid (itself at full size), likewise columns.
GatherStep deotteGather(const DeotteParams& d, int dim, int outW, int outH) {
    const std::array<float, 9> m = deotteMatrix(d);
    GatherStep g;
    g.dim = dim;
    g.lo = floorDiv(-dim, 2) + dim % 2 + 1;
    g.hi = dim / 2;
    g.m02 = m[2];
    g.m12 = m[5];
    for (int y = 0; y < outH; ++y) {
        const int row =
            std::min(dim - 1, static_cast<int>((static_cast<std::int64_t>(2 * y + 1) * dim) / (2 * outH)));
        const auto X = static_cast<float>(dim / 2 - row);  // tf.range(DIM//2, -DIM//2, -1)
        g.rowA0.push_back(m[0] * X);
        g.rowA1.push_back(m[3] * X);
    }
    for (int x = 0; x < outW; ++x) {
        const int col =
            std::min(dim - 1, static_cast<int>((static_cast<std::int64_t>(2 * x + 1) * dim) / (2 * outW)));
        const auto Y = static_cast<float>(floorDiv(-dim, 2) + col);  // tf.range(-DIM//2, DIM//2)
        g.colB0.push_back(m[1] * Y);
        g.colB1.push_back(m[4] * Y);
    }
    return g;
}

/// The gather's map as a continuous affine map of pixel centres, destination (c, r) -> source: the
/// indices before their truncation (row dim/2 - s0, column dim/2 - 1 + s1).
Matrix3 deotteSourceMap(const DeotteParams& d, int dim) {
    const std::array<float, 9> m = deotteMatrix(d);
    const double h = dim / 2, fd = floorDiv(-dim, 2);
    return Matrix3{{m[4], -double(m[3]), h - 1 + m[3] * h + m[4] * fd + m[5],  //
                    -double(m[1]), m[0], h - m[0] * h - m[1] * fd - m[2],      //
                    0, 0, 1}};
}

class DeotteAffineModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "deotte_affine", "Deotte affine (TF/TPU notebook)", OpCategory::Geometric,
            "The transform of Chris Deotte's Kaggle notebook \"Rotation Augmentation GPU/TPU\": six normal "
            "draws, "
            "source = R·SH·Z·SF·destination in float32 index space, nearest neighbour, indices truncated and "
            "clamped to the edge, square images only. Positive rotation turns clockwise there. Faithful to "
            "that "
            "code, quirks included (odd sizes never read their last row and column).",
            {
                number("rotation_std_deg", "Rotation std", "deg", 0, 180, 15,
                       "Rotation = std x N(0, 1), degrees."),
                number("shear_std_deg", "Shear std", "deg", 0, 90, 5, "Shear = std x N(0, 1), degrees."),
                number("zoom_std", "Zoom std", "factor", 0, 1, 0.1,
                       "Height and width zoom = 1 + std x N(0, 1), drawn separately; the source index is "
                       "divided by it."),
                number("shift_std_px", "Shift std", "px", 0, 4096, 16,
                       "Height and width shift = std x N(0, 1) pixels, drawn separately."),
            });
        d.ownStage = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return sampleDeotte(op, d);
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& d = std::get<DeotteParams>(params);
        j["rotation_deg"] = d.rotation_deg;
        j["shear_deg"] = d.shear_deg;
        j["height_zoom"] = d.height_zoom;
        j["width_zoom"] = d.width_zoom;
        j["height_shift_px"] = d.height_shift_px;
        j["width_shift_px"] = d.width_shift_px;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "rotation_deg", "shear_deg", "height_zoom", "width_zoom",
                         "height_shift_px", "width_shift_px"});
        const double big = 1e9;
        return DeotteParams{num(r, "rotation_deg", -big, big),    num(r, "shear_deg", -big, big),
                            num(r, "height_zoom", -big, big),     num(r, "width_zoom", -big, big),
                            num(r, "height_shift_px", -big, big), num(r, "width_shift_px", -big, big)};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        // The drawn values themselves (their spread is the std the key sets).
        const auto& g = std::get<DeotteParams>(params);
        if (key == "rotation_std_deg") return {g.rotation_deg};
        if (key == "shear_std_deg") return {g.shear_deg};
        if (key == "zoom_std") return {g.height_zoom, g.width_zoom};
        if (key == "shift_std_px") return {g.height_shift_px, g.width_shift_px};
        return {};
    }

    /// Albumentations has no such transform: boxes and keypoints follow the continuous map the
    /// gather truncates (within a pixel of it), as Affine's would with an edge-repeating border.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        if (f.width != f.height || f.width < 2) return true;
        const auto& d = std::get<DeotteParams>(params);
        Matrix3 forward;
        try {
            forward = deotteSourceMap(d, f.width).inverse();
        } catch (const std::domain_error&) {
            return true;  // a zoom of 0 maps everything onto one pixel: nothing to follow
        }
        affineTargets(f, forward, BorderMode::Replicate,
                      std::max(std::abs(d.width_zoom), std::abs(d.height_zoom)));
        return true;
    }

    /// A stage of its own (its nearest, truncated indices do not fuse with a matrix).
    void lower(const OpParams& params, PlanBuilder& b) const override {
        const int dim = b.frameWidth();
        if (dim != b.frameHeight())
            throw InputError("deotte_affine works on square images only; this one is " + std::to_string(dim) +
                             "x" + std::to_string(b.frameHeight()));
        // The notebook's clip range is empty for a 1x1 image (it would gather out of bounds): left as it is.
        if (dim < 2) return;
        b.gatherStage(std::make_shared<GatherStep>(
            deotteGather(std::get<DeotteParams>(params), dim, b.stageWidth(), b.stageHeight())));
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        warnings.push_back(e.label() +
                           ": Albumentations has no transform for Chris Deotte's notebook (normal "
                           "draws, truncated indices): left out of the Compose and kept in the \"auglab\" "
                           "section, so importing the file restores it; the tf-deotte export has it.");
        return nullptr;
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        auto& w = x.warnings;
        switch (x.target) {
            case PythonTarget::Torchvision: {
                notExported(
                    e, x,
                    L + ": Chris Deotte's notebook transform (normal draws, truncated indices) has no "
                        "torchvision "
                        "equivalent: not exported (the tf-deotte export has it).");
                return;
            }
            case PythonTarget::Keras: {
                notExported(
                    e, x,
                    L + ": Chris Deotte's notebook transform (normal draws, truncated indices) has no Keras "
                        "equivalent: not exported (the tf-deotte export has it).");
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& configs = x.configs;
                std::string& steps = x.lines;
                const std::string name = "OP" + std::to_string(x.index);
                configs += name + " = dict(rotation_std_deg=" + pyFloat(op.number("rotation_std_deg")) +
                           ", shear_std_deg=" + pyFloat(op.number("shear_std_deg")) +
                           ", zoom_std=" + pyFloat(op.number("zoom_std")) +
                           ", shift_std_px=" + pyFloat(op.number("shift_std_px")) + ")  # " + L + "\n";
                steps += tfGated(op.p, "deotte_transform(image, " + name + ")");
                x.helperUsed = true;
                w.push_back(L +
                            ": needs square images of a static size (as the notebook); AugLab computes the "
                            "same float32 indices, but TensorFlow's sin, cos and matrix product may round "
                            "differently, moving a pixel now and then.");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                notExported(
                    e, x,
                    L + ": Chris Deotte's notebook transform is not exported to DALI (the tf-deotte export "
                        "has it).");
                return;
            }
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return {};
            case PythonTarget::Keras:
                return {};
            case PythonTarget::TfDeotte:
                return R"(

def deotte_transform(image, cfg):
    """Chris Deotte's "Rotation Augmentation GPU/TPU" transform of a square image: six normal draws,
    source index = R SH Z SF destination index in float32, truncated, clipped, nearest neighbour
    (positive rotation turns clockwise)."""
    dim = image.shape[0]
    xdim = dim % 2
    rot = cfg["rotation_std_deg"] * tf.random.normal([1], dtype=tf.float32)
    shr = cfg["shear_std_deg"] * tf.random.normal([1], dtype=tf.float32)
    h_zoom = 1.0 + cfg["zoom_std"] * tf.random.normal([1], dtype=tf.float32)
    w_zoom = 1.0 + cfg["zoom_std"] * tf.random.normal([1], dtype=tf.float32)
    h_shift = cfg["shift_std_px"] * tf.random.normal([1], dtype=tf.float32)
    w_shift = cfg["shift_std_px"] * tf.random.normal([1], dtype=tf.float32)
    rot = math.pi * rot / 180.0
    shr = math.pi * shr / 180.0
    one, zero = tf.constant([1.0]), tf.constant([0.0])

    def mat(*v):
        return tf.reshape(tf.concat(v, axis=0), [3, 3])

    c1, s1, c2, s2 = tf.math.cos(rot), tf.math.sin(rot), tf.math.cos(shr), tf.math.sin(shr)
    rs = mat(c1, s1, zero, -s1, c1, zero, zero, zero, one) @ mat(one, s2, zero, zero, c2, zero, zero, zero, one)
    zs = mat(one / h_zoom, zero, zero, zero, one / w_zoom, zero, zero, zero, one) @ mat(
        one, zero, h_shift, zero, one, w_shift, zero, zero, one)
    m = rs @ zs
    x = tf.repeat(tf.range(dim // 2, -dim // 2, -1), dim)
    y = tf.tile(tf.range(-dim // 2, dim // 2), [dim])
    idx = tf.stack([x, y, tf.ones([dim * dim], dtype=tf.int32)])
    idx2 = tf.cast(m @ tf.cast(idx, tf.float32), tf.int32)
    idx2 = tf.clip_by_value(idx2, -dim // 2 + xdim + 1, dim // 2)
    idx3 = tf.stack([dim // 2 - idx2[0], dim // 2 - 1 + idx2[1]])
    return tf.reshape(tf.gather_nd(image, tf.transpose(idx3)), [dim, dim, image.shape[-1]])
)";
            case PythonTarget::Dali:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& deotteAffineModule() {
    static const DeotteAffineModule module;
    return module;
}

}  // namespace auglab
