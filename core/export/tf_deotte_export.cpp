// A TensorFlow function of the matrix-and-gather kind (the approach of Chris Deotte's "Rotation
// Augmentation GPU/TPU" notebook, written here from AugLab's own definitions): each image draws its
// parameters, builds AugLab's forward matrix M = T(c) T(t) Sh R S T(-c), inverts it, and gathers
// the source pixel of every output pixel with AugLab's border rules. It runs in tf.data and on TPU.
// The maths is AugLab's (SPEC §3), so geometry matches except float32 bilinear weights (AugLab and
// OpenCV use 1/32-pixel fixed point). Flips, brightness/contrast, noise and gray are exact too; the
// other ops are named as missing.

#include "export_common.h"

namespace auglab {

namespace {

using namespace exporting;

const char* kAffineCode = R"(

def _uniform(bounds):
    lo, hi = bounds
    return tf.random.uniform([], lo, hi, dtype=tf.float32) if lo != hi else tf.constant(lo, tf.float32)


def _trunc(x):
    """Toward zero, as AugLab truncates (TensorFlow has no truncation for floats)."""
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def affine_matrix(height, width, cfg):
    """AugLab's forward matrix (source -> output pixel, pixel centres at integers, y down)."""
    w, h = tf.cast(width, tf.float32), tf.cast(height, tf.float32)
    angle = _uniform(cfg["rotate_deg"]) * (math.pi / 180.0)  # positive: counter-clockwise on screen
    sx = _uniform(cfg["scale_x"])
    sy = sx if cfg["keep_ratio"] else _uniform(cfg["scale_y"])
    shx = tf.math.tan(-_uniform(cfg["shear_x_deg"]) * (math.pi / 180.0))
    shy = tf.math.tan(-_uniform(cfg["shear_y_deg"]) * (math.pi / 180.0))
    tx = _trunc(_uniform(cfg["translate_x_frac"]) * w)  # whole pixels, toward zero
    ty = _trunc(_uniform(cfg["translate_y_frac"]) * h)
    cx, cy = w / 2.0 - 0.5, h / 2.0 - 0.5
    one, zero = tf.constant(1.0), tf.constant(0.0)

    def mat(*v):
        return tf.reshape(tf.stack(v), [3, 3])

    c, s = tf.math.cos(angle), tf.math.sin(angle)
    m = mat(one, zero, -cx, zero, one, -cy, zero, zero, one)
    m = mat(sx, zero, zero, zero, sy, zero, zero, zero, one) @ m
    m = mat(c, s, zero, -s, c, zero, zero, zero, one) @ m
    m = mat(one, shx, zero, shy, one, zero, zero, zero, one) @ m
    m = mat(one, zero, cx + tx, zero, one, cy + ty, zero, zero, one) @ m
    return m


def _border_index(i, n, border):
    if border == "replicate" or border == "constant":
        return tf.clip_by_value(i, 0, n - 1)
    if border == "wrap":
        return tf.math.floormod(i, n)
    if border == "reflect":  # (b a | a b c | c b): the edge pixel repeats
        m = tf.math.floormod(i, 2 * n)
        return tf.where(m < n, m, 2 * n - 1 - m)
    period = tf.maximum(2 * n - 2, 1)  # reflect_101: (c b | a b c | b a)
    m = tf.math.floormod(i, period)
    return tf.minimum(tf.where(m < n, m, period - m), n - 1)


def _taps(image, xs, ys, border, fill):
    h, w = tf.shape(image)[0], tf.shape(image)[1]
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    ix, iy = _border_index(xs, w, border), _border_index(ys, h, border)
    values = tf.gather_nd(image, tf.stack([iy, ix], axis=-1))
    if border == "constant":
        values = tf.where(inside[..., None], values, fill)
    return values


def warp(image, m, cfg):
    """Output pixel p takes the source at inverse(M) p."""
    h, w = tf.shape(image)[0], tf.shape(image)[1]
    image = tf.cast(image, tf.float32)
    fill = tf.constant(cfg["fill"], tf.float32)[: image.shape[-1]]
    inv = tf.linalg.inv(m)
    ys, xs = tf.meshgrid(tf.range(h, dtype=tf.float32), tf.range(w, dtype=tf.float32), indexing="ij")
    sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    if cfg["interpolation"] == "nearest":
        return _taps(image, tf.cast(tf.round(sx), tf.int32), tf.cast(tf.round(sy), tf.int32), cfg["border"], fill)
    x0, y0 = tf.math.floor(sx), tf.math.floor(sy)
    fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
    x0, y0 = tf.cast(x0, tf.int32), tf.cast(y0, tf.int32)
    b, f = cfg["border"], fill
    top = _taps(image, x0, y0, b, f) * (1 - fx) + _taps(image, x0 + 1, y0, b, f) * fx
    bottom = _taps(image, x0, y0 + 1, b, f) * (1 - fx) + _taps(image, x0 + 1, y0 + 1, b, f) * fx
    return tf.round(top * (1 - fy) + bottom * fy)
)";

// deotte_affine: the notebook's own transform (SPEC §3), written from its definition.
const char* kDeotteCode = R"(

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

std::string cfgRange(const OpConfig& op, const char* key) { return pyRange(op.range(key)); }

std::string gate(double p) {
    return p >= 1.0 ? "" : "tf.random.uniform([]) < " + pyFloat(p);
}

/// `stmt` applied with probability p (a tf.cond so that one image's draw never affects another's).
std::string gated(double p, const std::string& expr) {
    if (p >= 1.0) return "    image = " + expr + "\n";
    return "    image = tf.cond(" + gate(p) + ", lambda: " + expr + ", lambda: image)\n";
}

}  // namespace

ExportResult exportTfDeotte(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    std::string configs, steps;
    bool usesDeotte = false;
    int n = 0;
    for (const ExportedOp& e : enabledOps(preset, "tf-deotte", w)) {
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        const std::string name = "OP" + std::to_string(n++);
        switch (op.id()) {
            case OpId::Affine:
                configs += name + " = dict(  # " + L + "\n";
                for (const char* k : {"rotate_deg", "scale_x", "scale_y", "shear_x_deg", "shear_y_deg",
                                      "translate_x_frac", "translate_y_frac"})
                    configs += std::string("    ") + k + "=" + cfgRange(op, k) + ",\n";
                configs += "    keep_ratio=" + std::string(op.flag("keep_ratio") ? "True" : "False") + ",\n";
                configs += "    interpolation=" + pyString(op.choice("interpolation")) + ",\n";
                configs += "    border=" + pyString(op.choice("border")) + ",\n";
                configs += "    fill=" + pyRgb(op.fill("fill")) + ",\n)\n";
                if (op.choice("interpolation") == "linear")
                    w.push_back(L + ": bilinear weights in float32 here, AugLab's in 1/32-pixel fixed point (a level "
                                "or two apart at strong edges).");
                steps += gated(op.p, "warp(image, affine_matrix(tf.shape(image)[0], tf.shape(image)[1], " + name + "), " + name + ")");
                break;
            case OpId::HorizontalFlip: steps += gated(op.p, "tf.image.flip_left_right(image)"); break;
            case OpId::VerticalFlip: steps += gated(op.p, "tf.image.flip_up_down(image)"); break;
            case OpId::BrightnessContrast: {
                configs += name + " = dict(brightness=" + cfgRange(op, "brightness") + ", contrast=" +
                           cfgRange(op, "contrast") + ", by_max=" + (op.flag("brightness_by_max") ? "True" : "False") +
                           ")  # " + L + "\n";
                steps += gated(op.p, "brightness_contrast(image, " + name + ")");
                break;
            }
            case OpId::GaussNoise:
                configs += name + " = dict(std=" + cfgRange(op, "std_frac") + ", mean=" + cfgRange(op, "mean_frac") +
                           ", per_channel=" + (op.flag("per_channel") ? "True" : "False") + ")  # " + L + "\n";
                steps += gated(op.p, "gauss_noise(image, " + name + ")");
                break;
            case OpId::ToGray: steps += gated(op.p, "to_gray(image)"); break;
            case OpId::DeotteAffine:
                configs += name + " = dict(rotation_std_deg=" + pyFloat(op.number("rotation_std_deg")) +
                           ", shear_std_deg=" + pyFloat(op.number("shear_std_deg")) +
                           ", zoom_std=" + pyFloat(op.number("zoom_std")) +
                           ", shift_std_px=" + pyFloat(op.number("shift_std_px")) + ")  # " + L + "\n";
                steps += gated(op.p, "deotte_transform(image, " + name + ")");
                usesDeotte = true;
                w.push_back(L + ": needs square images of a static size (as the notebook); AugLab computes the "
                            "same float32 indices, but TensorFlow's sin, cos and matrix product may round "
                            "differently, moving a pixel now and then.");
                break;
            case OpId::CoarseDropout:
            case OpId::RandomResizedCrop:
            case OpId::GridDropout:
            case OpId::HueSaturationValue:
            case OpId::GaussianBlur:
                w.push_back(L + " is not part of this matrix/gather function: not exported (use the albumentations or "
                            "torchvision export for it).");
                steps += "    # " + L + ": not exported (see the header)\n";
                break;
        }
    }
    std::string body = "import math\n\nimport tensorflow as tf\n";
    body += kAffineCode;
    if (usesDeotte) body += kDeotteCode;
    body += R"(

def brightness_contrast(image, cfg):
    alpha = 1.0 + _uniform(cfg["contrast"])
    x = tf.cast(image, tf.float32)
    beta = _uniform(cfg["brightness"]) * (255.0 if cfg["by_max"] else tf.reduce_mean(x[..., :3]))
    return tf.math.floor(tf.clip_by_value(x * alpha + beta, 0.0, 255.0))


def gauss_noise(image, cfg):
    x = tf.cast(image, tf.float32)
    shape = tf.shape(x[..., :3]) if cfg["per_channel"] else tf.concat([tf.shape(x)[:2], [1]], 0)
    noise = _trunc(tf.random.normal(shape) * _uniform(cfg["std"]) * 255.0 + _uniform(cfg["mean"]) * 255.0)
    rgb = tf.clip_by_value(x[..., :3] + noise, 0.0, 255.0)
    return tf.concat([rgb, x[..., 3:]], axis=-1)


def to_gray(image):
    x = tf.cast(image, tf.int32)
    g = (9798 * x[..., 0] + 19235 * x[..., 1] + 3735 * x[..., 2] + 16384) // 32768  # OpenCV RGB2GRAY
    return tf.cast(tf.concat([tf.stack([g, g, g], axis=-1), x[..., 3:]], axis=-1), tf.float32)


)";
    body += configs + "\n\ndef augment(image):\n    \"\"\"One RGB(A) image, H x W x C, values 0-255 (use in tf.data: ds.map(augment)).\"\"\"\n";
    body += "    image = tf.cast(image, tf.float32)\n" + steps + "    return tf.cast(tf.clip_by_value(image, 0.0, 255.0), tf.uint8)\n";
    r.text = pythonHeader(preset, "tf-deotte", w) + body;
    return r;
}

}  // namespace auglab
