// no_op: Albumentations 2.0.8's NoOp. It changes nothing, but its p counts: in a one_of it is the
// weight of "leave the image alone", the way real pipelines write OneOf([Blur(), MotionBlur(), NoOp()]).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/no_op.h"

#include <string>
#include <vector>

#include "albumentations_common.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;

class NoOpModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        return params::makeOp(
            id, "no_op", "No op", OpCategory::Geometric,
            "Leaves the image, boxes, keypoints and masks as they are (Albumentations' NoOp). "
            "In a one_of, its p is the weight of changing nothing.",
            {});
    }

    OpParams sample(const OpConfig&, const OpDraws&, int, int) const override { return NoOpParams{}; }

    void writeReplay(const OpParams&, Json&) const override {}

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied"});
        return NoOpParams{};
    }

    void lower(const OpParams&, PlanBuilder&) const override {}

    std::vector<std::string> albumentationsClasses() const override { return {"NoOp"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        return exporting::start("NoOp", e.op->p);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.lines += "    v2.Identity(),\n";
                return;
            case PythonTarget::Keras:
                x.lines += "    layers.Identity(),\n";
                return;
            case PythonTarget::TfDeotte:
                x.lines += "    # " + e.label() + ": nothing to do\n";
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + ": nothing to do\n";
                return;
        }
    }
};

}  // namespace

const OpModule& noOpModule() {
    static const NoOpModule module;
    return module;
}

}  // namespace auglab
