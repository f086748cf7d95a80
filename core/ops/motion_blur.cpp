// motion_blur: Albumentations 2.0.8 MotionBlur. A line of ksize points through the kernel's centre at
// an angle, stretched backward or forward by the direction bias and moved by a random shift, is
// rounded onto a ksize x ksize grid; the kernel is 1/n on its n distinct pixels, applied as
// cv2.filter2D (a ConvolveStep). Everything AugLab knows about the op is here (core/ops/op_module.h,
// docs/adding-an-op.md).

#include "ops/motion_blur.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/kernel_blur.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

/// The line's points in kernel coordinates (x, y), before rounding: create_motion_kernel's
/// np.linspace(t_start, t_end, ksize) along (cos, sin) of the angle, from the centre, plus the shift.
std::vector<std::pair<double, double>> linePoints(const MotionBlurParams& p) {
    const int k = p.ksize, length = k / 2;
    const double centre = k / 2;
    const double direction = std::clamp(p.direction, -1.0, 1.0);
    const double radians = p.angle * (std::numbers::pi / 180.0);  // np.deg2rad
    const double dx = std::cos(radians), dy = std::sin(radians);
    double t0 = -length, t1 = length;
    if (direction < 0)
        t1 = length * (1 - std::abs(direction));
    else if (direction > 0)
        t0 = -length * (1 - direction);
    const double step = (t1 - t0) / (k - 1);
    std::vector<std::pair<double, double>> points;
    for (int i = 0; i < k; ++i) {
        const double t = i == k - 1 ? t1 : i * step + t0;  // np.linspace sets the end exactly
        points.emplace_back(centre + dx * t + p.shift_x, centre + dy * t + p.shift_y);
    }
    return points;
}

}  // namespace

std::vector<std::uint8_t> motionKernel(const MotionBlurParams& p) {
    const int k = p.ksize;
    std::vector<std::uint8_t> kernel(static_cast<std::size_t>(k) * k, 0);
    for (const auto& [x, y] : linePoints(p)) {
        // np.round (half to even), then clipped to the kernel.
        const int xi = static_cast<int>(std::clamp(std::nearbyint(x), 0.0, double(k - 1)));
        const int yi = static_cast<int>(std::clamp(std::nearbyint(y), 0.0, double(k - 1)));
        kernel[static_cast<std::size_t>(yi) * k + xi] = 1;
    }
    return kernel;
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

/// The normalised kernel as a ConvolveStep: 1/n (float32, as the library divides) on n pixels.
ConvolveStep convolveStep(int k, const std::vector<std::uint8_t>& mask) {
    const auto n = std::count(mask.begin(), mask.end(), std::uint8_t{1});
    ConvolveStep c{k, std::vector<float>(mask.size(), 0.0f)};
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i]) c.kernel[i] = 1.0f / static_cast<float>(n);
    return c;
}

class MotionBlurModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "motion_blur", "Motion blur", OpCategory::Pixel,
            "Albumentations MotionBlur: the mean along a line of k pixels (k odd, drawn from the odd sizes) "
            "at a random angle, stretched backward or forward by the direction, optionally shifted off "
            "the centre; cv2.filter2D, border reflect_101.",
            {
                kernel_size::param(
                    "Kernel size k, odd, drawn uniformly from the odd sizes of the range; the line "
                    "has k points."),
                floatRange("angle", "Angle", "deg", 0, 360, {0, 360},
                           "Direction of the line, counter-clockwise from the x axis, drawn uniformly."),
                floatRange("direction", "Direction bias", "", -1, 1, {-1, 1},
                           "-1: the line runs backward from the centre only, 0: both ways, 1: forward "
                           "only; drawn uniformly."),
                boolean("allow_shifted", "Shift off centre", true,
                        "Move the line by up to a quarter of k in x and y, drawn uniformly."),
            });
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        MotionBlurParams p;
        p.ksize = kernel_size::sample(d, 1, op.range(kernel_size::kKey));
        p.angle = d.uniform(3, op.range("angle"));
        p.direction = d.uniform(4, op.range("direction"));
        // Drawn whether or not shifts are allowed, so that the streams stay stable.
        const double length = p.ksize / 2;
        const double ux = d.uniform(5, -1, 1), uy = d.uniform(6, -1, 1);
        if (op.flag("allow_shifted")) {
            p.shift_x = ux * length / 2;
            p.shift_y = uy * length / 2;
        }
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<MotionBlurParams>(params);
        j[kernel_size::kKey] = p.ksize;
        j["angle"] = p.angle;
        j["direction"] = p.direction;
        j["shift"] = Json::array({p.shift_x, p.shift_y});
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", kernel_size::kKey, "angle", "direction", "shift"});
        MotionBlurParams p;
        const JsonReader k = r.member(kernel_size::kKey);
        p.ksize = static_cast<int>(k.integer(3, 99));
        if (p.ksize % 2 == 0) k.fail("expected an odd kernel size");
        p.angle = replay_fields::num(r, "angle", 0, 360);
        p.direction = replay_fields::num(r, "direction", -1, 1);
        const JsonReader s = r.member("shift");
        if (s.arraySize() != 2) s.fail("expected [x, y] in pixels");
        const double most = (p.ksize / 2) / 2.0;
        p.shift_x = s.element(0).numberIn(-most, most);
        p.shift_y = s.element(1).numberIn(-most, most);
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<MotionBlurParams>(params);
        if (key == kernel_size::kKey) return {double(p.ksize)};
        if (key == "angle") return {p.angle};
        if (key == "direction") return {p.direction};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<MotionBlurParams>(params);
        const double s = 0.5 * (b.sx() + b.sy());
        if (std::abs(s - 1.0) < 1e-12) {
            b.pixel(convolveStep(p.ksize, motionKernel(p)));
            return;
        }
        // A display tile: the line's points scaled about the kernel's centre onto a grid of the scaled
        // size, so that the tile looks like the full-resolution output scaled down.
        const int k = 2 * static_cast<int>(std::floor(p.ksize * s / 2)) + 1;
        if (k < 3) return;
        std::vector<std::uint8_t> mask(static_cast<std::size_t>(k) * k, 0);
        const double from = p.ksize / 2, to = k / 2;
        for (const auto& [x, y] : linePoints(p)) {
            const int xi =
                static_cast<int>(std::clamp(std::nearbyint(to + (x - from) * s), 0.0, double(k - 1)));
            const int yi =
                static_cast<int>(std::clamp(std::nearbyint(to + (y - from) * s), 0.0, double(k - 1)));
            mask[static_cast<std::size_t>(yi) * k + xi] = 1;
        }
        b.pixel(convolveStep(k, mask));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"MotionBlur"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        int low = 0, high = 0;
        kernel_size::oddEnds(op.range(kernel_size::kKey), low, high);
        Json j = start("MotionBlur", op.p);
        j["allow_shifted"] = op.flag("allow_shifted");
        j["angle_range"] = pair(op.range("angle"));
        j["blur_limit"] = Json::array({low, high});
        j["direction_range"] = pair(op.range("direction"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5},
                {"blur_limit", {3, 7}},
                {"allow_shifted", true},
                {"angle_range", {0.0, 360.0}},
                {"direction_range", {-1.0, 1.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        kernel_size::readBlurLimit(a, op);
        op.set("allow_shifted", a.get("allow_shifted").boolean());
        const JsonReader angle = a.get("angle_range");
        op.set("angle", a.clamp(angle, pair(angle), 0, 360));
        const JsonReader direction = a.get("direction_range");
        op.set("direction", a.clamp(direction, pair(direction), -1, 1));
        if (a.version().before2() && !a.find({"angle_range"}))
            a.warn(a.get("blur_limit"),
                   "Albumentations before 1.4.22 drew motion kernels as a line between two random points "
                   "(no angle or direction); read with 2.0.8's kernel and its default angle and "
                   "direction ranges.");
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string args = "sizes=" + kernel_size::pyList(op.range(kernel_size::kKey)) +
                                 ", angle=" + pyRange(op.range("angle")) +
                                 ", direction=" + pyRange(op.range("direction")) +
                                 ", allow_shifted=" + (op.flag("allow_shifted") ? "True" : "False");
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " + torchvisionWithP("MotionBlur(" + args + ")", op.p) + ",\n";
                x.warnings.push_back(e.label() +
                                     ": torch sums the kernel's taps in its own order (OpenCV fuses "
                                     "each multiply-add in row order): a sum exactly on a half may round "
                                     "a level apart (none in the measured cases).");
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP("MotionBlur(" + args + ")", op.p) + ",\n";
                x.warnings.push_back(e.label() +
                                     ": the layer sums the kernel's taps in its own order (OpenCV fuses "
                                     "each multiply-add in row order): a sum exactly on a half may round "
                                     "a level apart (none in the measured cases).");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                notExported(e, x,
                            e.label() +
                                ": DALI cannot draw a motion kernel per sample in its graph; left out of the "
                                "DALI pipeline.");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return R"(

class MotionBlur(torch.nn.Module):
    """AugLab motion_blur (Albumentations 2.0.8 MotionBlur): k from `sizes`, the angle, the direction
    bias and (allow_shifted) a shift of up to k // 4 drawn uniformly; the line's k points rounded onto
    a k x k kernel, 1/n on its n pixels, correlated with the image (border reflect_101), rounded."""

    def __init__(self, sizes, angle, direction, allow_shifted):
        super().__init__()
        self.sizes, self.angle, self.direction, self.allow_shifted = sizes, angle, direction, allow_shifted

    @staticmethod
    def _uniform(lo, hi):
        return lo + (hi - lo) * float(torch.rand(()))

    def kernel(self):
        import math

        k = self.sizes[int(torch.randint(len(self.sizes), ()))]
        angle, direction = self._uniform(*self.angle), min(max(self._uniform(*self.direction), -1.0), 1.0)
        length, centre = k // 2, k // 2
        t0, t1 = float(-length), float(length)
        if direction < 0:
            t1 = length * (1 - abs(direction))
        elif direction > 0:
            t0 = -length * (1 - direction)
        step = (t1 - t0) / (k - 1)
        ts = [i * step + t0 for i in range(k - 1)] + [t1]
        ux, uy = self._uniform(-1.0, 1.0), self._uniform(-1.0, 1.0)
        sx, sy = (ux * length / 2, uy * length / 2) if self.allow_shifted else (0.0, 0.0)
        dx, dy = math.cos(angle * (math.pi / 180.0)), math.sin(angle * (math.pi / 180.0))
        kernel = torch.zeros(k, k)
        for t in ts:
            x = min(max(round(centre + dx * t + sx), 0), k - 1)
            y = min(max(round(centre + dy * t + sy), 0), k - 1)
            kernel[y, x] = 1.0
        return kernel / kernel.sum()

    def forward(self, img):  # uint8 tensor, C x H x W
        kernel = self.kernel()
        r = kernel.shape[0] // 2
        x = torch.nn.functional.pad(img[:3].unsqueeze(1).float(), (r, r, r, r), mode="reflect")
        out = img.clone()
        out[:3] = torch.nn.functional.conv2d(x, kernel[None, None])[:, 0].round().clamp(0, 255).to(torch.uint8)
        return out
)";
            case PythonTarget::Keras:
                return R"(

class MotionBlur(keras.layers.Layer):
    """AugLab motion_blur (Albumentations 2.0.8 MotionBlur): per image k from `sizes`, the angle, the
    direction bias and (allow_shifted) a shift of up to k // 4 drawn uniformly; the line's k points
    rounded onto a k x k kernel, 1/n on its n pixels, correlated with the image (border
    reflect_101), rounded."""

    def __init__(self, sizes, angle, direction, allow_shifted, **kwargs):
        super().__init__(**kwargs)
        self.sizes, self.angle, self.direction, self.allow_shifted = sizes, angle, direction, allow_shifted
        self.radius = max(sizes) // 2
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        import math

        if not training:
            return images
        ops, R = keras.ops, self.radius
        big = 2 * R + 1
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        seed = self.seed_generator
        pick = keras.random.randint((n, 1), 0, len(self.sizes), seed=seed)
        k = ops.take(ops.convert_to_tensor(self.sizes, "float32"), pick)  # n x 1
        angle = keras.random.uniform((n, 1), *self.angle, seed=seed) if self.angle[0] < self.angle[1] else ops.full((n, 1), self.angle[0])
        direction = keras.random.uniform((n, 1), *self.direction, seed=seed) if self.direction[0] < self.direction[1] else ops.full((n, 1), self.direction[0])
        ux = keras.random.uniform((n, 1), -1.0, 1.0, seed=seed)
        uy = keras.random.uniform((n, 1), -1.0, 1.0, seed=seed)
        length = ops.floor(k / 2.0)
        t0 = ops.where(direction > 0, -length * (1.0 - direction), -length)
        t1 = ops.where(direction < 0, length * (1.0 - ops.abs(direction)), length)
        i = ops.cast(ops.arange(big), "float32")[None, :]
        t = ops.where(ops.equal(i, k - 1.0), t1, i * ((t1 - t0) / (k - 1.0)) + t0)
        on = ops.cast(i < k, "float32")
        shift = 1.0 if self.allow_shifted else 0.0
        radians = angle * (math.pi / 180.0)
        px = ops.clip(ops.round(length + ops.cos(radians) * t + shift * ux * length / 2.0), 0.0, k - 1.0) + (R - length)
        py = ops.clip(ops.round(length + ops.sin(radians) * t + shift * uy * length / 2.0), 0.0, k - 1.0) + (R - length)
        cells = ops.cast(ops.arange(big), "float32")
        hit = (ops.cast(ops.equal(py[:, :, None, None], cells[None, None, :, None]), "float32")
               * ops.cast(ops.equal(px[:, :, None, None], cells[None, None, None, :]), "float32")
               * on[:, :, None, None])
        kernel = ops.minimum(ops.sum(hit, axis=1), 1.0)  # n x big x big
        kernel = kernel / ops.sum(kernel, axis=(1, 2), keepdims=True)
        padded = ops.pad(x, [[0, 0], [R, R], [R, R], [0, 0]], mode="reflect")
        acc = sum(kernel[:, a, b, None, None, None] * padded[:, a:a + h, b:b + w, :] for a in range(big) for b in range(big))
        return ops.clip(ops.round(acc), 0.0, 255.0)
)";
            case PythonTarget::TfDeotte:
            case PythonTarget::Dali:
                return {};
        }
        return {};
    }
};

}  // namespace

const OpModule& motionBlurModule() {
    static const MotionBlurModule module;
    return module;
}

}  // namespace auglab
