#pragma once
// An op module holds everything AugLab knows about one op (docs/adding-an-op.md): its description
// (keys, units, bounds, defaults, help, editor hints), how its parameters are drawn, its replay
// record (written, and read back strictly), how it lowers to plan steps, and its mapping to and
// from every export target with the warnings where a target cannot express it. The generic code
// (sampler, replay, plan, exporters, importer) asks the module of each op; nothing else names an
// op. Kernels are per backend and per plan step, not per op: an op that lowers to existing steps
// needs no kernel.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_reader.h"
#include "pipeline.h"
#include "replay.h"

namespace auglab {

class OpDraws;
class PlanBuilder;
struct TargetFrame;

namespace exporting {
struct ExportedOp;
class TransformArgs;
struct LibraryVersion;
enum class AlbumentationsFlavour;
}  // namespace exporting

/// The generated Python targets.
enum class PythonTarget { Torchvision, Keras, TfDeotte, Dali };

/// The target's name in warnings ("torchvision", "Keras", "tf-deotte", "DALI").
inline const char* pythonTargetName(PythonTarget t) {
    switch (t) {
        case PythonTarget::Torchvision: return "torchvision";
        case PythonTarget::Keras: return "Keras";
        case PythonTarget::TfDeotte: return "tf-deotte";
        case PythonTarget::Dali: return "DALI";
    }
    return "";
}

/// What one op adds to a generated Python file.
struct PythonExport {
    explicit PythonExport(PythonTarget t, std::vector<std::string>& w) : target(t), warnings(w) {}
    PythonTarget target;
    std::vector<std::string>& warnings;  ///< what the target cannot express, one sentence each
    std::string lines;        ///< the op's part of the pipeline (torchvision/Keras list items, statements)
    std::string configs;      ///< tf-deotte: module-level settings the statements refer to
    int index = 0;            ///< the op's position among the exported ops (tf-deotte names OP0, OP1, ...)
    bool helperUsed = false;  ///< set when the lines call the module's helper code (pythonHelper)
};

class OpModule {
public:
    virtual ~OpModule() = default;

    /// The op's description (its id is given: the registration list's position).
    virtual OpDesc describe(OpId id) const = 0;

    /// Draws the op's parameters for a width x height image (draw 0 is the gate, already drawn).
    virtual OpParams sample(const OpConfig& op, const OpDraws& draws, int width, int height) const = 0;
    /// The size of the image the next ops work on, after this op (a crop changes it).
    virtual void frameAfter(const OpParams&, int& /*width*/, int& /*height*/) const {}
    /// Whether this configuration of the op replaces the frame (OpDesc::setsFrame, or a setting
    /// that changes the image's size): the order rules of pipelineOrderError apply.
    virtual bool setsFrame(const OpConfig& op) const { return op.desc().setsFrame; }

    /// The replay record's members (beside "op" and "applied").
    virtual void writeReplay(const OpParams& params, nlohmann::ordered_json& j) const = 0;
    /// Reads them back strictly (every member checked, errors with the JSON path).
    virtual OpParams readReplay(const JsonReader& r) const = 0;
    /// Checks that what was read fits the image the op works on (frameW x frameH).
    virtual void checkReplay(const OpParams&, const JsonReader&, int /*frameW*/, int /*frameH*/) const {}
    /// The values drawn for preset key `key`, in its units (replay.h drawnValues).
    virtual std::vector<double> drawnValues(const OpParams&, std::string_view /*key*/, int /*width*/,
                                            int /*height*/) const {
        return {};
    }

    /// Adds the op's plan steps.
    virtual void lower(const OpParams& params, PlanBuilder& b) const = 0;

    /// Moves the sample's boxes and keypoints as the op moves its pixels, as Albumentations 2.0.8's
    /// transform does (targets.h), and sets the frame to the op's output; a dropout op gives its holes.
    /// False when the op leaves them where they are (pixel ops, the default): no filter runs then.
    virtual bool moveTargets(const OpParams&, TargetFrame&) const { return false; }

    /// The Albumentations classes `readAlbumentations` maps (short names, without "albumentations.").
    virtual std::vector<std::string> albumentationsClasses() const { return {}; }
    /// The Albumentations transform (every argument written), or null when it has none (the op is
    /// then kept in the file's "auglab" section; the module adds the warning).
    virtual nlohmann::ordered_json albumentationsTransform(const exporting::ExportedOp& e,
                                                           exporting::AlbumentationsFlavour flavour,
                                                           std::vector<std::string>& warnings) const = 0;
    /// The defaults of class `cls` in the library version that wrote a file (A.load uses p = 0.5).
    virtual nlohmann::json albumentationsDefaults(const std::string& /*cls*/,
                                                  const exporting::LibraryVersion&) const {
        return {{"p", 0.5}};
    }
    /// Sets `op` (which has its defaults and p) from a transform of one of albumentationsClasses().
    virtual void readAlbumentations(exporting::TransformArgs&, OpConfig&) const {}

    /// Adds the op to a generated Python file.
    virtual void toPython(const exporting::ExportedOp& e, PythonExport& x) const = 0;
    /// Code the op's lines call (a helper class or function), emitted once per file in the
    /// registration list's order: when pythonHelperAlways, or when an op set helperUsed.
    virtual std::string pythonHelper(PythonTarget) const { return {}; }
    virtual bool pythonHelperAlways(PythonTarget) const { return false; }
};

/// The module of op `id`.
inline const OpModule& opModule(OpId id) {
    return *opModules()[static_cast<std::size_t>(id)];
}

}  // namespace auglab
