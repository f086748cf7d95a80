// box_blur and median_blur: Albumentations 2.0.8 Blur (cv2.blur, a box filter) and MedianBlur
// (cv2.medianBlur), both with an odd kernel size drawn uniformly from the odd sizes of
// blur_limit (sample_odd_from_range). One module class for both, as they share everything but the
// step they lower to. Everything AugLab knows about the ops is here (core/ops/op_module.h,
// docs/adding-an-op.md).

#include "ops/kernel_blur.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace kernel_size {

ParamDesc param(const char* help) {
    ParamDesc d = params::intRange(kKey, "Kernel size", "px", 3, 99, {3, 7}, help);
    d.odd = true;
    // The slider's span for tuning (a field takes sizes up to the bound).
    d.typicalLower = 3;
    d.typicalUpper = 31;
    return d;
}

void oddEnds(const Range& r, int& low, int& high) {
    const int lo = static_cast<int>(r.min), hi = static_cast<int>(r.max);
    low = std::max(3, lo + (lo % 2 == 0 ? 1 : 0));
    high = std::max(low, std::max(3, hi + (hi % 2 == 0 ? 1 : 0)));
}

int sample(const OpDraws& d, std::uint32_t draw, const Range& r) {
    int low = 0, high = 0;
    oddEnds(r, low, high);
    return low + 2 * static_cast<int>(d.randint(draw, 0, (high - low) / 2));
}

std::string pyList(const Range& r) {
    int low = 0, high = 0;
    oddEnds(r, low, high);
    std::string s = "[";
    for (int k = low; k <= high; k += 2) s += (k == low ? "" : ", ") + std::to_string(k);
    return s + "]";
}

void readBlurLimit(exporting::TransformArgs& a, OpConfig& op) {
    const JsonReader limit = a.get("blur_limit");
    Range r = limit.json().is_number() ? Range{3, limit.number()} : exporting::pair(limit);
    r = {std::round(r.min), std::round(r.max)};
    const Range given = r;
    r = {std::max(3.0, r.min), std::max(3.0, r.max)};
    if (std::fmod(r.min, 2) == 0) r.min += 1;
    if (std::fmod(r.max, 2) == 0) r.max += 1;
    if (r.min > r.max) r.min = r.max;
    if (r != given)
        a.warn(limit, "kernel sizes [" + formatNumber(given.min) + ", " + formatNumber(given.max) +
                          "] read as [" + formatNumber(r.min) + ", " + formatNumber(r.max) +
                          "], as Albumentations adjusts them (odd, at least 3, min <= max).");
    op.set(kKey, a.clamp(limit, r, 3, 99));
}

}  // namespace kernel_size

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

/// A box of `width` pixels centred on a tap, as separable taps: each tap's share of the box (its
/// pixel's overlap with [-width/2, width/2]) over the width. A whole odd width gives width taps of
/// 1/width, the box filter itself; a display tile's scaled width gives the box it shows.
std::vector<float> boxTaps(double width) {
    const int odd = static_cast<int>(std::lround(width));
    if (std::abs(width - odd) < 1e-9 && odd % 2 == 1)
        return std::vector<float>(static_cast<std::size_t>(odd), 1.0f / static_cast<float>(odd));
    const double half = width / 2;
    const int r = static_cast<int>(std::ceil(half - 0.5));
    std::vector<float> taps;
    for (int t = -r; t <= r; ++t) {
        const double overlap = std::min(t + 0.5, half) - std::max(t - 0.5, -half);
        taps.push_back(static_cast<float>(std::max(0.0, overlap) / width));
    }
    return taps;
}

class KernelBlurModule final : public OpModule {
public:
    explicit KernelBlurModule(bool median) : median_(median) {}

    OpDesc describe(OpId id) const override {
        if (median_)
            return makeOp(
                id, "median_blur", "Median blur", OpCategory::Pixel,
                "Albumentations MedianBlur (cv2.medianBlur): each colour value becomes the median "
                "of its k x k window, k odd and drawn uniformly from the odd sizes of the range; "
                "border replicate.",
                {kernel_size::param("Window size k, odd, drawn uniformly from the odd sizes of the range.")});
        return makeOp(
            id, "box_blur", "Box blur", OpCategory::Pixel,
            "Albumentations Blur (cv2.blur): the mean of each pixel's k x k window, k odd and "
            "drawn uniformly from the odd sizes of the range; border reflect_101.",
            {kernel_size::param("Box size k, odd, drawn uniformly from the odd sizes of the range.")});
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return KernelSizeParams{kernel_size::sample(d, 1, op.range(kernel_size::kKey))};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        j[kernel_size::kKey] = std::get<KernelSizeParams>(params).ksize;
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", kernel_size::kKey});
        const JsonReader k = r.member(kernel_size::kKey);
        const int ksize = static_cast<int>(k.integer(3, 99));
        if (ksize % 2 == 0) k.fail("expected an odd kernel size");
        return KernelSizeParams{ksize};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == kernel_size::kKey) return {double(std::get<KernelSizeParams>(params).ksize)};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        // At tile scale the window shrinks with the image, so the tile looks like the
        // full-resolution output scaled down.
        const int k = std::get<KernelSizeParams>(params).ksize;
        const double s = 0.5 * (b.sx() + b.sy());
        const double width = std::abs(s - 1.0) < 1e-12 ? k : k * s;
        if (median_) {
            const int odd = 2 * static_cast<int>(std::floor(width / 2)) + 1;
            if (odd >= 3) b.pixel(MedianStep{odd});
        } else if (width > 1.0) {
            b.pixel(BlurStep{boxTaps(width)});
        }
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {median_ ? "MedianBlur" : "Blur"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        int low = 0, high = 0;
        kernel_size::oddEnds(e.op->range(kernel_size::kKey), low, high);
        Json j = start(median_ ? "MedianBlur" : "Blur", e.op->p);
        j["blur_limit"] = Json::array({low, high});
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"blur_limit", {3, 7}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        kernel_size::readBlurLimit(a, op);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string sizes = kernel_size::pyList(op.range(kernel_size::kKey));
        const std::string cls = median_ ? "MedianBlur" : "BoxBlur";
        int low = 0, high = 0;
        kernel_size::oddEnds(op.range(kernel_size::kKey), low, high);
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                if (!median_ && high / 2 >= 16)
                    x.warnings.push_back(e.label() +
                                         ": torchvision pads by reflection and raises on an image whose "
                                         "height or width is " +
                                         std::to_string(high / 2) + " px or less.");
                x.lines += "    " + torchvisionWithP(cls + "(sizes=" + sizes + ")", op.p) + ",\n";
                return;
            case PythonTarget::Keras:
                x.helperUsed = true;
                x.lines += "    " + kerasWithP(cls + "(sizes=" + sizes + ")", op.p) + ",\n";
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                if (median_) {
                    notExported(e, x,
                                e.label() + ": DALI has no median filter; left out of the DALI pipeline.");
                    return;
                }
                x.helperUsed = true;
                x.lines += "    images = _maybe(images, _box_blur(images, fn.random.choice(" + sizes + "), " +
                           std::to_string(high) + "), " + daliCoin(op.p) + ")\n";
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        switch (t) {
            case PythonTarget::Torchvision:
                return median_ ? R"(

class MedianBlur(torch.nn.Module):
    """AugLab median_blur (Albumentations MedianBlur, cv2.medianBlur): k drawn uniformly from `sizes`
    (odd), each colour value the median of its k x k window, border replicate; alpha kept. The median
    is the smallest v with more than k*k/2 window values <= v, found by bisection on 0..255 (memory of
    a few images whatever k is)."""

    def __init__(self, sizes):
        super().__init__()
        self.sizes = sizes

    def forward(self, img):  # uint8 tensor, C x H x W
        k = self.sizes[int(torch.randint(len(self.sizes), ()))]
        r, h, w = k // 2, img.shape[1], img.shape[2]
        x = torch.nn.functional.pad(img[:3].unsqueeze(0).float(), (r, r, r, r), mode="replicate")[0]
        lo, hi = torch.zeros(3, h, w), torch.full((3, h, w), 255.0)
        for _ in range(8):
            mid = torch.floor((lo + hi) / 2)
            count = torch.zeros(3, h, w)
            for dy in range(k):
                for dx in range(k):
                    count += (x[:, dy:dy + h, dx:dx + w] <= mid).float()
            enough = count > k * k // 2
            hi, lo = torch.where(enough, mid, hi), torch.where(enough, lo, mid + 1)
        out = img.clone()
        out[:3] = lo.to(torch.uint8)
        return out
)"
                               : R"(

class BoxBlur(torch.nn.Module):
    """AugLab box_blur (Albumentations Blur, cv2.blur): k drawn uniformly from `sizes` (odd), the mean
    of each pixel's k x k window, border reflect_101, rounded; alpha kept."""

    def __init__(self, sizes):
        super().__init__()
        self.sizes = sizes

    def forward(self, img):  # uint8 tensor, C x H x W
        k = self.sizes[int(torch.randint(len(self.sizes), ()))]
        r = k // 2
        x = torch.nn.functional.pad(img[:3].unsqueeze(0).float(), (r, r, r, r), mode="reflect")
        out = img.clone()
        out[:3] = torch.nn.functional.avg_pool2d(x, k, stride=1)[0].round().clamp(0, 255).to(torch.uint8)
        return out
)";
            case PythonTarget::Keras:
                return median_ ? R"(

class MedianBlur(keras.layers.Layer):
    """AugLab median_blur (Albumentations MedianBlur, cv2.medianBlur): per image k drawn uniformly from
    `sizes` (odd), each colour value the median of its k x k window, border replicate. The median is
    the smallest v with more than k*k/2 window values <= v, found by bisection on 0..255."""

    def __init__(self, sizes, **kwargs):
        super().__init__(**kwargs)
        self.sizes, self.radius = sizes, max(sizes) // 2
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops, R = keras.ops, self.radius
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        pick = keras.random.randint((n, 1, 1, 1), 0, len(self.sizes), seed=self.seed_generator)
        k = ops.take(ops.convert_to_tensor(self.sizes, "float32"), pick)
        r = (k - 1.0) / 2.0
        rows = ops.concatenate([ops.repeat(x[:, :1], R, axis=1), x, ops.repeat(x[:, -1:], R, axis=1)], axis=1)
        p = ops.concatenate([ops.repeat(rows[:, :, :1], R, axis=2), rows, ops.repeat(rows[:, :, -1:], R, axis=2)], axis=2)
        lo, hi = ops.zeros_like(x), ops.full_like(x, 255.0)
        for _ in range(8):
            mid = ops.floor((lo + hi) / 2.0)
            count = ops.zeros_like(x)
            for dy in range(2 * R + 1):
                for dx in range(2 * R + 1):
                    inside = ops.cast((abs(dy - R) <= r) & (abs(dx - R) <= r), "float32")
                    count = count + inside * ops.cast(p[:, dy:dy + h, dx:dx + w, :] <= mid, "float32")
            enough = count > ops.floor(k * k / 2.0)
            hi, lo = ops.where(enough, mid, hi), ops.where(enough, lo, mid + 1.0)
        return lo
)"
                               : R"(

class BoxBlur(keras.layers.Layer):
    """AugLab box_blur (Albumentations Blur, cv2.blur): per image k drawn uniformly from `sizes` (odd),
    the mean of each pixel's k x k window (separable taps of 1/k), border reflect_101, rounded."""

    def __init__(self, sizes, **kwargs):
        super().__init__(**kwargs)
        self.sizes, self.radius = sizes, max(sizes) // 2
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        ops, r = keras.ops, self.radius
        x = ops.cast(images, "float32")
        n, h, w = ops.shape(x)[0], ops.shape(x)[1], ops.shape(x)[2]
        pick = keras.random.randint((n, 1), 0, len(self.sizes), seed=self.seed_generator)
        k = ops.take(ops.convert_to_tensor(self.sizes, "float32"), pick)
        offsets = ops.cast(ops.arange(-r, r + 1), "float32")[None, :]
        taps = ops.cast(ops.abs(offsets) <= (k - 1.0) / 2.0, "float32") / k
        padded = ops.pad(x, [[0, 0], [r, r], [r, r], [0, 0]], mode="reflect")
        rows = sum(taps[:, t, None, None, None] * padded[:, t:t + h, :, :] for t in range(2 * r + 1))
        return ops.round(sum(taps[:, t, None, None, None] * rows[:, :, t:t + w, :] for t in range(2 * r + 1)))
)";
            case PythonTarget::TfDeotte:
                return {};
            case PythonTarget::Dali:
                return median_ ? std::string() : R"(

def _box_blur(images, k, largest):
    """AugLab box_blur (cv2.blur): the mean of each pixel's k x k window, border reflect_101; k per
    sample, as a largest x largest filter whose taps outside the k x k square are 0."""
    import numpy as np

    grid = np.abs(np.arange(-(largest // 2), largest // 2 + 1, dtype=np.float32))
    reach = types.Constant(np.maximum(grid[:, None], grid[None, :]))
    size = fn.cast(k, dtype=types.FLOAT)
    taps = fn.cast(reach <= (size - 1.0) * 0.5, dtype=types.FLOAT) / (size * size)
    return fn.filter(images, _on(images, taps), border="reflect_101")
)";
        }
        return {};
    }

private:
    bool median_;
};

}  // namespace

const OpModule& boxBlurModule() {
    static const KernelBlurModule module(false);
    return module;
}

const OpModule& medianBlurModule() {
    static const KernelBlurModule module(true);
    return module;
}

}  // namespace auglab
