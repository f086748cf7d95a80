// horizontal_flip and vertical_flip: exact mirrors.
// Everything AugLab knows about the ops is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/flip.h"

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

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class HorizontalFlipModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "horizontal_flip", "Horizontal flip", OpCategory::Geometric,
                          "Mirror left to right, exactly.", {});
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return FlipParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return FlipParams{};
    }

    void lower(const OpParams&, PlanBuilder& b) const override {
        b.geometric(horizontalFlipMatrix(b.frameWidth()));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"HorizontalFlip"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("HorizontalFlip", e.op->p);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                lines += "    v2.RandomHorizontalFlip(p=" + pyFloat(op.p) + "),\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                const bool h = op.id() == OpId::HorizontalFlip;
                if (op.p == 0.5)
                    lines +=
                        std::string("    layers.RandomFlip(\"") + (h ? "horizontal" : "vertical") + "\"),\n";
                else
                    lines += std::string("    ApplyWithProbability(lambda x: keras.ops.flip(x, axis=") +
                             (h ? "-2" : "-3") + "), p=" + pyFloat(op.p) + "),\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& steps = x.lines;
                steps += tfGated(op.p, "tf.image.flip_left_right(image)");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                const bool h = op.id() == OpId::HorizontalFlip;
                s += std::string("    images = fn.flip(images, ") + (h ? "horizontal" : "vertical") +
                     "=fn.random.coin_flip(probability=" + pyFloat(op.p) + "), " +
                     (h ? "vertical=0" : "horizontal=0") + ")\n";
                return;
            }
        }
    }
};

class VerticalFlipModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "vertical_flip", "Vertical flip", OpCategory::Geometric,
                          "Mirror top to bottom, exactly.", {});
        return d;
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return FlipParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return FlipParams{};
    }

    void lower(const OpParams&, PlanBuilder& b) const override {
        b.geometric(verticalFlipMatrix(b.frameHeight()));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"VerticalFlip"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("VerticalFlip", e.op->p);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const std::string L = e.label();
        switch (x.target) {
            case PythonTarget::Torchvision: {
                std::string& lines = x.lines;
                lines += "    v2.RandomVerticalFlip(p=" + pyFloat(op.p) + "),\n";
                return;
            }
            case PythonTarget::Keras: {
                std::string& lines = x.lines;
                const bool h = op.id() == OpId::HorizontalFlip;
                if (op.p == 0.5)
                    lines +=
                        std::string("    layers.RandomFlip(\"") + (h ? "horizontal" : "vertical") + "\"),\n";
                else
                    lines += std::string("    ApplyWithProbability(lambda x: keras.ops.flip(x, axis=") +
                             (h ? "-2" : "-3") + "), p=" + pyFloat(op.p) + "),\n";
                return;
            }
            case PythonTarget::TfDeotte: {
                std::string& steps = x.lines;
                steps += tfGated(op.p, "tf.image.flip_up_down(image)");
                return;
            }
            case PythonTarget::Dali: {
                std::string& s = x.lines;
                s += "    # " + L + "\n";
                const bool h = op.id() == OpId::HorizontalFlip;
                s += std::string("    images = fn.flip(images, ") + (h ? "horizontal" : "vertical") +
                     "=fn.random.coin_flip(probability=" + pyFloat(op.p) + "), " +
                     (h ? "vertical=0" : "horizontal=0") + ")\n";
                return;
            }
        }
    }
};

}  // namespace

const OpModule& horizontalFlipModule() {
    static const HorizontalFlipModule module;
    return module;
}

const OpModule& verticalFlipModule() {
    static const VerticalFlipModule module;
    return module;
}

}  // namespace auglab
