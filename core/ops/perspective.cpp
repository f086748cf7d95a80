// perspective: Albumentations 2.0.x Perspective, bug-compatible (SPEC §3): each corner moves inward
// by abs(N(0, s)) mod 0.32 of the side, the moved quad is mapped onto the full frame
// (cv::getPerspectiveTransform to (0,0), (W,0), (W,H), (0,H)), and with keep_size that full-size
// result is stretched again by W / max_width, H / max_height, max_* being the longer of opposite
// edges of the quad. fit_output first shifts and grows the target so that the whole quad shows.
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).
//
// Checked against the Albumentations 2.0.8 source (augmentations/geometric/functional.py):
// generate_perspective_points, order_points, compute_perspective_params (its adjust_dimension, in
// float32 and in place), expand_transform, perspective.

#include "ops/perspective.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
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
#include "pipeline.h"
#include "plan_builder.h"
#include "sampler.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;
using Corners = std::array<std::array<float, 2>, 4>;
using CornersD = std::array<std::array<double, 2>, 4>;

/// order_points: sorted by x (a stable sort, as Python's sorted), the two left ones split by y into
/// top-left and bottom-left (ties: the second is the top), likewise the right ones; then float32.
Corners orderPoints(CornersD p) {
    std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });
    const auto [tl, bl] = p[0][1] < p[1][1] ? std::pair{p[0], p[1]} : std::pair{p[1], p[0]};
    const auto [tr, br] = p[2][1] < p[3][1] ? std::pair{p[2], p[3]} : std::pair{p[3], p[2]};
    Corners out{};
    const std::array<std::array<double, 2>, 4> ordered{tl, tr, br, bl};
    for (std::size_t i = 0; i < 4; ++i) out[i] = {float(ordered[i][0]), float(ordered[i][1])};
    return out;
}

/// compute_perspective_params' adjust_dimension: the length of edge a-b in float32; an edge shorter
/// than 2 pixels is pushed apart, component by component with numpy's masks (each re-evaluated after
/// the previous line changed a), and counts as 2.
float adjustDimension(std::array<float, 2>& a, std::array<float, 2>& b) {
    const float dx = a[0] - b[0], dy = a[1] - b[1];
    const float size = std::sqrt(dx * dx + dy * dy);
    if (size >= 2.0f) return size;
    const float step = (2.0f - size) / 2.0f;
    for (int i = 0; i < 2; ++i)
        if (a[i] > b[i]) a[i] += step;
    for (int i = 0; i < 2; ++i)
        if (a[i] > b[i]) b[i] -= step;
    for (int i = 0; i < 2; ++i)
        if (a[i] <= b[i]) a[i] -= step;
    for (int i = 0; i < 2; ++i)
        if (a[i] <= b[i]) b[i] += step;
    return 2.0f;
}

std::array<Point2, 4> frameCorners(int width, int height) {
    return {Point2{0, 0}, {double(width), 0}, {double(width), double(height)}, {0, double(height)}};
}

std::array<Point2, 4> points(const PerspectiveParams& p) {
    std::array<Point2, 4> out;
    for (std::size_t i = 0; i < 4; ++i) out[i] = {p.cornersPx[i][0], p.cornersPx[i][1]};
    return out;
}

/// expand_transform: the frame's corners through `m` (cv2.perspectiveTransform: double maths, float
/// results), shifted to start at 0 and rounded (np.around: half to even); the map onto those, and
/// their extent (int()).
Matrix3 expandTransform(const Matrix3& m, int width, int height, int& maxWidth, int& maxHeight) {
    const std::array<Point2, 4> rect = frameCorners(width, height);
    std::array<std::array<float, 2>, 4> dst{};
    for (std::size_t i = 0; i < 4; ++i) {
        const double x = rect[i].x, y = rect[i].y;
        double w = x * m(2, 0) + y * m(2, 1) + m(2, 2);
        w = std::abs(w) > 1.1920928955078125e-07 ? 1.0 / w : 0.0;  // FLT_EPSILON, as OpenCV
        dst[i] = {float((x * m(0, 0) + y * m(0, 1) + m(0, 2)) * w),
                  float((x * m(1, 0) + y * m(1, 1) + m(1, 2)) * w)};
    }
    float minX = dst[0][0], minY = dst[0][1];
    for (const auto& d : dst) minX = std::min(minX, d[0]), minY = std::min(minY, d[1]);
    std::array<Point2, 4> to;
    float maxX = 0, maxY = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const float x = std::nearbyint(dst[i][0] - minX), y = std::nearbyint(dst[i][1] - minY);
        to[i] = {x, y};
        maxX = std::max(maxX, x);
        maxY = std::max(maxY, y);
    }
    maxWidth = static_cast<int>(maxX);
    maxHeight = static_cast<int>(maxY);
    return perspectiveTransform(rect, to);
}

[[noreturn]] void noProjectiveMap(int width, int height) {
    throw InputError("perspective: the moved corners of this " + std::to_string(width) + "x" +
                     std::to_string(height) + " image leave no projective map (three on one line)");
}

/// The quad onto the frame, expanded with fit_output (whose max size then goes to maxWidth,
/// maxHeight). A sample whose corners allow no map is that sample's InputError.
Matrix3 quadMap(const PerspectiveParams& p, int width, int height, int& maxWidth, int& maxHeight) {
    try {
        const Matrix3 m = perspectiveTransform(points(p), frameCorners(width, height));
        return p.fitOutput ? expandTransform(m, width, height, maxWidth, maxHeight) : m;
    } catch (const std::domain_error&) {
        noProjectiveMap(width, height);
    }
}

/// The forward map of a sample on a width x height frame: the quad onto the frame (expanded with
/// fit_output), stretched back to the frame with keep_size.
Matrix3 forwardMap(const PerspectiveParams& p, int width, int height) {
    int mw = 0, mh = 0;
    Matrix3 m = quadMap(p, width, height, mw, mh);
    if (p.keepSize) m = Matrix3::scaling(double(width) / p.maxWidth, double(height) / p.maxHeight) * m;
    try {
        (void)m.inverse();  // the plan inverts it: a degenerate map is this sample's error, said here
    } catch (const std::domain_error&) {
        noProjectiveMap(width, height);
    }
    return m;
}

PerspectiveParams samplePerspective(const OpConfig& op, const OpDraws& d, int width, int height) {
    PerspectiveParams p;
    p.keepSize = op.flag("keep_size");
    p.fitOutput = op.flag("fit_output");
    p.interpolation = interpolationFromName(op.choice("interpolation"));
    p.border = borderFromName(op.choice("border"));
    p.fill = rgbOf(op.fill("fill"));
    // generate_perspective_points: jitter abs(N(0, s)) mod 0.32 per coordinate, in double.
    const double s = d.uniform(1, op.range("scale"));
    std::array<std::array<double, 2>, 4> j{};
    for (std::uint32_t k = 0; k < 8; ++k) j[k / 2][k % 2] = std::fmod(std::abs(s * d.normal(2 + k)), 0.32);
    j[1][0] = 1.0 - j[1][0];
    j[2][0] = 1.0 - j[2][0];
    j[2][1] = 1.0 - j[2][1];
    j[3][1] = 1.0 - j[3][1];
    CornersD moved{};
    for (std::size_t i = 0; i < 4; ++i) moved[i] = {j[i][0] * width, j[i][1] * height};
    Corners c = orderPoints(moved);
    const float top = adjustDimension(c[1], c[0]), bottom = adjustDimension(c[2], c[3]);
    const float right = adjustDimension(c[2], c[1]), left = adjustDimension(c[3], c[0]);
    p.maxWidth = static_cast<int>(std::max(top, bottom));
    p.maxHeight = static_cast<int>(std::max(right, left));
    for (std::size_t i = 0; i < 4; ++i) p.cornersPx[i] = {c[i][0], c[i][1]};
    if (p.fitOutput) quadMap(p, width, height, p.maxWidth, p.maxHeight);
    if (p.maxWidth < 1 || p.maxHeight < 1)
        throw InputError("perspective: the moved corners of this " + std::to_string(width) + "x" +
                         std::to_string(height) + " image span less than a pixel");
    return p;
}

Json albumentationsPerspective(const exporting::ExportedOp& e) {
    using namespace exporting;
    const OpConfig& op = *e.op;
    Json j = start("Perspective", op.p);
    j["border_mode"] = cvBorder(op.choice("border"));
    j["fill"] = remapFillValue(op.fill("fill"));  // one number would paint (v, 0, 0)
    j["fill_mask"] = 0.0;
    j["fit_output"] = op.flag("fit_output");
    j["interpolation"] = cvInterpolation(op.choice("interpolation"));
    j["keep_size"] = op.flag("keep_size");
    j["mask_interpolation"] = 0;
    j["scale"] = pair(op.range("scale"));
    return j;
}

void readPerspective(exporting::TransformArgs& a, OpConfig& op) {
    using namespace exporting;
    const JsonReader scale = a.get("scale");
    op.set("scale", a.clamp(scale, lowZeroRange(scale), 0, 1));
    op.set("keep_size", a.get("keep_size").boolean());
    op.set("fit_output", a.get("fit_output").boolean());
    op.set("interpolation", std::string(interpolationName(a.get("interpolation"), a)));
    op.set("border", std::string(borderName(a.get("border_mode", {"pad_mode"}), a)));
    op.set("fill", readRemapFill(a.get("fill", {"pad_val"}), a));
    a.maskOnly("fill_mask", {"mask_pad_val"});
    a.maskOnly("mask_interpolation");
}

// torchvision: the exact helper the export calls.
const char* kTorchvisionHelper = R"(

class Perspective(torch.nn.Module):
    """AugLab perspective (Albumentations 2.0 Perspective): each corner moves inward by
    abs(N(0, s)) mod 0.32 of the side, s ~ U(scale); the moved quad is mapped onto the corners
    (0, 0), (W, 0), (W, H), (0, H) and, with keep_size, stretched by W / max_width, H / max_height
    (max_*: the longer of opposite edges, float32, int()); fit_output first moves and grows the
    target so that the whole quad shows. Pixel centres at integers, as OpenCV."""

    def __init__(self, scale, keep_size=True, fit_output=False, nearest=False, border="constant", fill=(0, 0, 0)):
        super().__init__()
        self.scale, self.keep_size, self.fit_output = scale, keep_size, fit_output
        self.nearest, self.border, self.fill = nearest, border, fill

    def forward(self, img):  # uint8 tensor, C x H x W
        h, w = img.shape[-2:]
        s = torch.empty(1).uniform_(*self.scale).item()
        j = (torch.randn(4, 2, dtype=torch.float64) * s).abs().remainder(0.32)
        j[1, 0] = 1 - j[1, 0]
        j[2] = 1 - j[2]
        j[3, 1] = 1 - j[3, 1]
        # The corners keep their roles (jitters stay below 0.32): Albumentations' ordering changes nothing.
        return self.warp(img, (j * torch.tensor([w, h], dtype=torch.float64)).float())

    @staticmethod
    def _map(src, dst):
        """The projective map taking src[i] to dst[i] (cv2.getPerspectiveTransform's system)."""
        a = torch.zeros(8, 8, dtype=torch.float64)
        b = torch.zeros(8, dtype=torch.float64)
        for i in range(4):
            x, y = float(src[i][0]), float(src[i][1])
            u, v = float(dst[i][0]), float(dst[i][1])
            a[i] = torch.tensor([x, y, 1, 0, 0, 0, -x * u, -y * u], dtype=torch.float64)
            a[i + 4] = torch.tensor([0, 0, 0, x, y, 1, -x * v, -y * v], dtype=torch.float64)
            b[i], b[i + 4] = u, v
        return torch.cat([torch.linalg.solve(a, b), torch.ones(1, dtype=torch.float64)]).reshape(3, 3)

    def warp(self, img, corners):
        """The warp for given source corners (top-left, top-right, bottom-right, bottom-left)."""
        h, w = img.shape[-2:]
        c = corners.float()
        edge = lambda p, q: float(torch.sqrt(((c[p] - c[q]) ** 2).sum()))  # float32, as numpy
        max_w, max_h = int(max(edge(1, 0), edge(2, 3))), int(max(edge(2, 1), edge(3, 0)))
        frame = torch.tensor([[0, 0], [w, 0], [w, h], [0, h]], dtype=torch.float64)
        m = self._map(c.double(), frame)
        if self.fit_output:  # expand_transform: the frame's corners through m, shifted to 0, rounded
            q = torch.cat([frame, torch.ones(4, 1, dtype=torch.float64)], 1) @ m.T
            q = (q[:, :2] / q[:, 2:]).float()
            q = torch.round(q - q.min(0).values).double()
            m = self._map(frame, q)
            max_w, max_h = int(q[:, 0].max()), int(q[:, 1].max())
        out_w, out_h = (w, h) if self.keep_size else (max_w, max_h)
        if self.keep_size:
            m = torch.diag(torch.tensor([w / max_w, h / max_h, 1.0], dtype=torch.float64)) @ m
        inv = torch.linalg.inv(m)
        ys, xs = torch.meshgrid(torch.arange(out_h, dtype=torch.float64), torch.arange(out_w, dtype=torch.float64),
                                indexing="ij")
        d = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
        sx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / d
        sy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / d
        src = img.double()
        fill = torch.tensor(list(self.fill) + [0] * (img.shape[0] - 3), dtype=torch.float64)[:, None, None]

        def index(i, n):
            if self.border in ("replicate", "constant"):
                return i.clamp(0, n - 1)
            if self.border == "wrap":
                return i.remainder(n)
            if self.border == "reflect":  # (b a | a b c | c b)
                r = i.remainder(2 * n)
                return torch.where(r < n, r, 2 * n - 1 - r)
            period = max(2 * n - 2, 1)  # reflect_101: (c b | a b c | b a)
            r = i.remainder(period)
            return torch.where(r < n, r, period - r).clamp(max=n - 1)

        def taps(ix, iy):
            v = src[:, index(iy, h), index(ix, w)]
            if self.border == "constant":
                inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
                v = torch.where(inside[None], v, fill)
            return v

        if self.nearest:
            out = taps(torch.round(sx).long(), torch.round(sy).long())
        else:
            x0, y0 = torch.floor(sx), torch.floor(sy)
            fx, fy = sx - x0, sy - y0
            x0, y0 = x0.long(), y0.long()
            top = taps(x0, y0) * (1 - fx) + taps(x0 + 1, y0) * fx
            bottom = taps(x0, y0 + 1) * (1 - fx) + taps(x0 + 1, y0 + 1) * fx
            out = top * (1 - fy) + bottom * fy
        return out.round().clamp(0, 255).to(img.dtype)
)";

// Keras and DALI: the keep_size case in closed form (no linear solver in their graphs).
const char* kKerasHelper = R"(

class Perspective(keras.layers.Layer):
    """AugLab perspective (Albumentations 2.0 Perspective, keep_size): each corner moves inward by
    abs(N(0, s)) mod 0.32 of the side, s ~ U(scale) per image; the quad is mapped onto the frame and
    stretched by W / max_width, H / max_height. keras.ops.image.affine_transform reads output pixel
    p from the source at Q(diag(max_w / W^2, max_h / H^2) p), Q the unit square -> quad map
    (Heckbert's closed form): pixel centres at integers, as OpenCV."""

    def __init__(self, scale, interpolation, fill_mode, fill_value, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.interpolation, self.fill_mode, self.fill_value = scale, interpolation, fill_mode, fill_value
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops = keras.ops
        x = ops.cast(images, "float32")
        n = ops.shape(x)[0]
        h, w = ops.cast(ops.shape(x)[1], "float32"), ops.cast(ops.shape(x)[2], "float32")
        s = keras.random.uniform((n, 1), self.scale[0], self.scale[1], seed=self.seed_generator)
        j = ops.mod(ops.abs(keras.random.normal((n, 8), seed=self.seed_generator) * s), 0.32)
        cx = [j[:, 0] * w, (1 - j[:, 2]) * w, (1 - j[:, 4]) * w, j[:, 6] * w]  # tl, tr, br, bl
        cy = [j[:, 1] * h, j[:, 3] * h, (1 - j[:, 5]) * h, (1 - j[:, 7]) * h]
        return self.warp(x, cx, cy)

    def warp(self, x, cx, cy):
        """The warp for given corners: x and y of top-left, top-right, bottom-right, bottom-left."""
        ops = keras.ops
        h, w = ops.cast(ops.shape(x)[1], "float32"), ops.cast(ops.shape(x)[2], "float32")
        edge = lambda p, q: ops.sqrt((cx[p] - cx[q]) ** 2 + (cy[p] - cy[q]) ** 2)
        max_w = ops.floor(ops.maximum(edge(1, 0), edge(2, 3)))
        max_h = ops.floor(ops.maximum(edge(2, 1), edge(3, 0)))
        sx, sy = cx[0] - cx[1] + cx[2] - cx[3], cy[0] - cy[1] + cy[2] - cy[3]
        dx1, dx2, dy1, dy2 = cx[1] - cx[2], cx[3] - cx[2], cy[1] - cy[2], cy[3] - cy[2]
        den = dx1 * dy2 - dx2 * dy1
        g, k = (sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den
        a, b = cx[1] - cx[0] + g * cx[1], cx[3] - cx[0] + k * cx[3]
        d, e = cy[1] - cy[0] + g * cy[1], cy[3] - cy[0] + k * cy[3]
        kx, ky = max_w / (w * w), max_h / (h * h)
        m = ops.stack([a * kx, b * ky, cx[0], d * kx, e * ky, cy[0], g * kx, k * ky], axis=1)
        out = ops.image.affine_transform(x, m, interpolation=self.interpolation, fill_mode=self.fill_mode,
                                         fill_value=self.fill_value)
        return ops.round(out)
)";
const char* kDaliHelper = R"(

def _perspective(images, scale, border, fill, nearest, on, width, height):
    """AugLab perspective (Albumentations 2.0 Perspective, keep_size), per sample: corners moved
    inward by abs(N(0, s)) mod 0.32 of the side; output pixel p reads the source at
    Q(diag(max_w / W^2, max_h / H^2) p), Q the unit square -> quad map (Heckbert's closed form)."""
    j = []
    for _ in range(8):
        v = dmath.abs(fn.random.normal() * scale)
        j.append(v - 0.32 * dmath.floor(v / 0.32))
    cx = [j[0] * width, (1.0 - j[2]) * width, (1.0 - j[4]) * width, j[6] * width]
    cy = [j[1] * height, j[3] * height, (1.0 - j[5]) * height, (1.0 - j[7]) * height]
    return _maybe(images, _perspective_warp(images, cx, cy, border, fill, nearest, width, height), on)


def _perspective_warp(images, cx, cy, border, fill, nearest, width, height):
    """The warp for given corners: x and y of top-left, top-right, bottom-right, bottom-left."""
    edge = lambda p, q: dmath.sqrt((cx[p] - cx[q]) * (cx[p] - cx[q]) + (cy[p] - cy[q]) * (cy[p] - cy[q]))
    max_w = dmath.floor(dmath.max(edge(1, 0), edge(2, 3)))
    max_h = dmath.floor(dmath.max(edge(2, 1), edge(3, 0)))
    sx, sy = cx[0] - cx[1] + cx[2] - cx[3], cy[0] - cy[1] + cy[2] - cy[3]
    dx1, dx2, dy1, dy2 = cx[1] - cx[2], cx[3] - cx[2], cy[1] - cy[2], cy[3] - cy[2]
    den = dx1 * dy2 - dx2 * dy1
    g, k = (sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den
    kx, ky = max_w / (width * width), max_h / (height * height)
    m = fn.reshape(fn.stack((cx[1] - cx[0] + g * cx[1]) * kx, (cx[3] - cx[0] + k * cx[3]) * ky, cx[0],
                            (cy[1] - cy[0] + g * cy[1]) * kx, (cy[3] - cy[0] + k * cy[3]) * ky, cy[0],
                            g * kx, k * ky, fn.random.uniform(values=[1.0])), shape=[3, 3])
    return fn.experimental.warp_perspective(images, matrix=m, inverse_map=True, pixel_origin="center",
                                            border_mode=border, fill_value=fill,
                                            interp_type=types.INTERP_NN if nearest else types.INTERP_LINEAR)
)";

/// Why Keras and DALI cannot take this configuration (their helpers do keep_size without fit_output:
/// one output size per batch, no linear solver), or nothing.
std::string closedFormMissing(const OpConfig& op) {
    if (!op.flag("keep_size"))
        return "without keep_size every sample has its own size, which a batch cannot hold";
    if (op.flag("fit_output")) return "fit_output (the quad's frame moved and grown) is not expressed";
    return {};
}

class PerspectiveModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "perspective", "Perspective", OpCategory::Geometric,
            "Albumentations 2.0 Perspective: each corner moves inward by abs(N(0, s)) mod 0.32 of the side "
            "(s drawn from `scale`), and the moved quad is stretched onto the image; with keep_size the "
            "result "
            "is resized once more by W / max_width, H / max_height (the library's own arithmetic, kept so "
            "that "
            "the preview equals training). Without keep_size the output has that max size, and the op must "
            "come before every pixel op.",
            {
                floatRange("scale", "Corner jitter", "fraction of the side (std)", 0, 1, {0.05, 0.1},
                           "Standard deviation of the corners' jitter, drawn uniformly from this range."),
                boolean("keep_size", "Keep size", true,
                        "Resize the result back to the image's size (off: max width x max height)."),
                boolean("fit_output", "Fit output", false, "Grow the target so that the whole quad shows."),
                choice("interpolation", "Interpolation", kInterpolationChoices, "linear",
                       "How source pixels are sampled."),
                choice("border", "Border", kBorderChoices, "constant",
                       "What is shown outside the source image."),
                fill("fill", false, "Colour of the constant border."),
            });
        params::typical(d, "scale", 0, 0.3);  // the slider's span for tuning
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int width, int height) const override {
        return samplePerspective(op, d, width, height);
    }

    bool setsFrame(const OpConfig& op) const override { return !op.flag("keep_size"); }

    void frameAfter(const OpParams& params, int& width, int& height) const override {
        const auto& p = std::get<PerspectiveParams>(params);
        if (p.keepSize) return;
        width = p.maxWidth;
        height = p.maxHeight;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<PerspectiveParams>(params);
        Json corners = Json::array();
        for (const auto& c : p.cornersPx) corners.push_back(Json::array({c[0], c[1]}));
        j["corners_px"] = corners;
        j["max_size"] = Json::array({p.maxWidth, p.maxHeight});
        j["keep_size"] = p.keepSize;
        j["fit_output"] = p.fitOutput;
        j["interpolation"] = interpolationName(p.interpolation);
        j["border"] = borderName(p.border);
        j["fill"] = rgbJson(p.fill);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "corners_px", "max_size", "keep_size", "fit_output",
                         "interpolation", "border", "fill"});
        PerspectiveParams p;
        const JsonReader corners = r.member("corners_px");
        if (corners.arraySize() != 4)
            corners.fail("expected 4 corners [x, y]: top-left, top-right, bottom-right, bottom-left");
        for (std::size_t i = 0; i < 4; ++i) {
            const JsonReader c = corners.element(i);
            if (c.arraySize() != 2) c.fail("expected [x, y]");
            p.cornersPx[i] = {c.element(0).numberIn(-1e6, 1e6), c.element(1).numberIn(-1e6, 1e6)};
        }
        const JsonReader size = r.member("max_size");
        if (size.arraySize() != 2) size.fail("expected [width, height]");
        p.maxWidth = static_cast<int>(size.element(0).integer(1, 1'000'000));
        p.maxHeight = static_cast<int>(size.element(1).integer(1, 1'000'000));
        p.keepSize = r.member("keep_size").boolean();
        p.fitOutput = r.member("fit_output").boolean();
        p.interpolation = readInterpolation(r, "interpolation");
        p.border = readBorder(r, "border");
        p.fill = readRgb(r.member("fill"));
        return p;
    }

    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override {
        const auto& p = std::get<PerspectiveParams>(params);
        try {
            (void)perspectiveTransform(points(p), frameCorners(frameW, frameH));
        } catch (const std::domain_error&) {
            o.member("corners_px").fail("three corners lie on one line: no perspective maps them");
        }
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int width,
                                    int height) const override {
        // The eight corner jitters, as fractions of the side (what `scale` spreads).
        if (key != "scale") return {};
        const auto& c = std::get<PerspectiveParams>(params).cornersPx;
        const double w = width, h = height;
        return {c[0][0] / w,     c[0][1] / h,     1 - c[1][0] / w, c[1][1] / h,
                1 - c[2][0] / w, 1 - c[2][1] / h, c[3][0] / w,     1 - c[3][1] / h};
    }

    /// perspective_bboxes and perspective_keypoints: boxes' corners (as edge coordinates) and keypoints
    /// through the map, keep_size's stretch included; keypoint angles turn by atan2(m10, m00) of the
    /// quad's map (the other sign than Affine's), scales grow by its larger signed axis length and the
    /// stretch. No mirrored copies: the border does not matter to targets here.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override {
        const auto& p = std::get<PerspectiveParams>(params);
        int mw = 0, mh = 0;
        const Matrix3 m = quadMap(p, f.width, f.height, mw, mh);
        const Matrix3 forward = forwardMap(p, f.width, f.height);
        mapBoxCorners(f.boxes, forward);
        mapKeypoints(f.keypoints, forward);
        const double turn = std::atan2(m(1, 0), m(0, 0));
        const double sx = std::copysign(std::hypot(m(0, 0), m(0, 1)), m(0, 0));
        const double sy = std::copysign(std::hypot(m(1, 0), m(1, 1)), m(1, 1));
        double grow = std::max(sx, sy);
        if (p.keepSize) grow *= std::max(double(f.width) / p.maxWidth, double(f.height) / p.maxHeight);
        for (Keypoint& k : f.keypoints) {
            k.angle = wrapAngle(k.angle + turn);
            k.scale *= grow;
        }
        if (!p.keepSize) {
            f.width = p.maxWidth;
            f.height = p.maxHeight;
        }
        return true;
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<PerspectiveParams>(params);
        const Matrix3 m = forwardMap(p, b.frameWidth(), b.frameHeight());
        if (p.keepSize) {
            b.geometric(m);
        } else {
            b.newFrame(m, p.maxWidth, p.maxHeight, b.frameWidth(), b.frameHeight(), p.interpolation, false);
        }
        b.resampling(p.interpolation, p.border, p.fill);
    }

    std::vector<std::string> albumentationsClasses() const override { return {"Perspective"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return albumentationsPerspective(e);
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"scale", {0.05, 0.1}},
                {"keep_size", true},
                {"fit_output", false},
                {"interpolation", 1},
                {"border_mode", 0},
                {"fill", 0.0},
                {"fill_mask", 0.0},
                {"mask_interpolation", 0}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        readPerspective(a, op);
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return kTorchvisionHelper;
            case PythonTarget::Keras:
                return kKerasHelper;
            case PythonTarget::Dali:
                return kDaliHelper;
            case PythonTarget::TfDeotte:
                return {};
        }
        return {};
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (x.target) {
            case PythonTarget::Torchvision: {
                // torchvision's RandomPerspective draws its corners uniformly and has no keep_size
                // stretch: an exact helper instead (Albumentations' draws, OpenCV's pixel centres).
                x.helperUsed = true;
                x.lines += "    " +
                           torchvisionWithP("Perspective(scale=" + pyRange(op.range("scale")) +
                                                ", keep_size=" + (op.flag("keep_size") ? "True" : "False") +
                                                ", fit_output=" + (op.flag("fit_output") ? "True" : "False") +
                                                ", nearest=" +
                                                (op.choice("interpolation") == "nearest" ? "True" : "False") +
                                                ", border=" + pyString(op.choice("border")) +
                                                ", fill=" + pyRgb(op.fill("fill")) + ")",
                                            op.p) +
                           ",\n";
                x.warnings.push_back(
                    L +
                    ": the helper interpolates in float (AugLab in OpenCV's fixed point): within "
                    "SPEC §2, measured; its corner draws are torch's (the same distribution).");
                return;
            }
            case PythonTarget::Keras: {
                if (const std::string why = closedFormMissing(op); !why.empty()) {
                    notExported(e, x,
                                L + ": " + why +
                                    " in the Keras export: not exported (the albumentations and "
                                    "torchvision exports have it).");
                    return;
                }
                x.helperUsed = true;
                const std::string border = op.choice("border");
                std::string mode = border == "replicate"     ? "nearest"
                                   : border == "reflect_101" ? "reflect"
                                                             : border;
                if (border == "reflect_101")
                    x.warnings.push_back(
                        L +
                        ": Keras has no reflect_101 (c b | a b c); fill_mode \"reflect\" (b a | a b c) "
                        "repeats the edge pixel once.");
                const Fill f = op.fill("fill");
                if (border == "constant" && !isGray(f))
                    x.warnings.push_back(L + ": Keras fills with one value for all channels: fill " +
                                         pyRgb(f) + " becomes " + std::to_string(f.rgb[0]) + ".");
                x.warnings.push_back(
                    L +
                    ": the helper computes the map in float32 (closed form) and interpolates in "
                    "float: within SPEC §2, measured; its corner draws are Keras' (the same "
                    "distribution).");
                x.lines +=
                    "    " +
                    kerasWithP("Perspective(scale=" + pyRange(op.range("scale")) + ", interpolation=\"" +
                                   (op.choice("interpolation") == "nearest" ? "nearest" : "bilinear") +
                                   "\", fill_mode=\"" + mode + "\", fill_value=" + pyFloat(f.rgb[0]) + ")",
                               op.p) +
                    ",\n";
                return;
            }
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali: {
                x.lines += "    # " + L + "\n";
                if (const std::string why = closedFormMissing(op); !why.empty()) {
                    notExported(e, x,
                                L + ": " + why +
                                    " in the DALI export: not exported (the albumentations and "
                                    "torchvision exports have it).");
                    return;
                }
                x.helperUsed = true;
                const Fill f = op.fill("fill");
                if (op.choice("border") == "constant" && !isGray(f))
                    x.warnings.push_back(
                        L + ": DALI fills all channels with one value: " + std::to_string(f.rgb[0]) + ".");
                x.warnings.push_back(
                    L +
                    ": the map is computed in float32 (closed form) and DALI interpolates in "
                    "float: within SPEC §2, measured; the corner draws are DALI's (the same "
                    "distribution).");
                x.lines += "    images = _perspective(images, " + daliUniform(op.range("scale")) + ", " +
                           pyString(op.choice("border")) + ", " + pyFloat(f.rgb[0]) + ", " +
                           (op.choice("interpolation") == "nearest" ? "True" : "False") + ", " +
                           daliCoin(op.p) + ", width, height)\n";
                return;
            }
        }
    }
};

}  // namespace

const OpModule& perspectiveModule() {
    static const PerspectiveModule module;
    return module;
}

}  // namespace auglab
