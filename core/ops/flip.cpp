// horizontal_flip and vertical_flip: exact mirrors, one module class for both axes.
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/flip.h"

#include <numbers>
#include <string>
#include <vector>

#include "albumentations_common.h"
#include "export_common.h"
#include "geometry.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "plan_builder.h"
#include "targets.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;

class FlipModule final : public OpModule {
public:
    explicit FlipModule(bool horizontal) : horizontal_(horizontal) {}

    OpDesc describe(OpId id) const override {
        return horizontal_ ? params::makeOp(id, "horizontal_flip", "Horizontal flip", OpCategory::Geometric,
                                            "Mirror left to right, exactly.", {})
                           : params::makeOp(id, "vertical_flip", "Vertical flip", OpCategory::Geometric,
                                            "Mirror top to bottom, exactly.", {});
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return FlipParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return FlipParams{};
    }

    /// Albumentations' flips: boxes about the edges (x -> W - x), keypoints about the pixel centres
    /// (x -> W - 1 - x) with the angle mirrored (pi - a horizontally, -a vertically).
    bool moveTargets(const OpParams&, TargetFrame& f) const override {
        const double W = f.width, H = f.height;
        for (Box& b : f.boxes) {
            if (horizontal_)
                b = {W - b.x1, b.y0, W - b.x0, b.y1, b.label, b.id, b.visibility};
            else
                b = {b.x0, H - b.y1, b.x1, H - b.y0, b.label, b.id, b.visibility};
        }
        for (Keypoint& k : f.keypoints) {
            if (horizontal_) {
                k.x = W - 1 - k.x;
                k.angle = wrapAngle(std::numbers::pi - k.angle);
            } else {
                k.y = H - 1 - k.y;
                k.angle = wrapAngle(-k.angle);
            }
        }
        return true;
    }

    void lower(const OpParams&, PlanBuilder& b) const override {
        b.geometric(horizontal_ ? horizontalFlipMatrix(b.frameWidth()) : verticalFlipMatrix(b.frameHeight()));
    }

    std::vector<std::string> albumentationsClasses() const override {
        return {horizontal_ ? "HorizontalFlip" : "VerticalFlip"};
    }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start(horizontal_ ? "HorizontalFlip" : "VerticalFlip", e.op->p);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using exporting::pyFloat;
        const double p = e.op->p;
        const bool h = horizontal_;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.lines += std::string("    v2.Random") + (h ? "Horizontal" : "Vertical") +
                           "Flip(p=" + pyFloat(p) + "),\n";
                return;
            case PythonTarget::Keras:
                if (p == 0.5)
                    x.lines +=
                        std::string("    layers.RandomFlip(\"") + (h ? "horizontal" : "vertical") + "\"),\n";
                else
                    x.lines += std::string("    ApplyWithProbability(lambda x: keras.ops.flip(x, axis=") +
                               (h ? "-2" : "-3") + "), p=" + pyFloat(p) + "),\n";
                return;
            case PythonTarget::TfDeotte:
                x.lines += exporting::tfGated(
                    p, h ? "tf.image.flip_left_right(image)" : "tf.image.flip_up_down(image)");
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                x.lines += std::string("    images = fn.flip(images, ") + (h ? "horizontal" : "vertical") +
                           "=fn.random.coin_flip(probability=" + pyFloat(p) + "), " +
                           (h ? "vertical=0" : "horizontal=0") + ")\n";
                return;
        }
    }

private:
    bool horizontal_;
};

}  // namespace

const OpModule& horizontalFlipModule() {
    static const FlipModule module(true);
    return module;
}

const OpModule& verticalFlipModule() {
    static const FlipModule module(false);
    return module;
}

}  // namespace auglab
