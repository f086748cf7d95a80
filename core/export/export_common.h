#pragma once
// Pieces shared by the exporters: which ops are exported, how each is named in messages, and
// Python literals and file headers for the code generators.

#include <optional>
#include <string>
#include <vector>

#include "exporter.h"
#include "json_reader.h"  // formatNumber
#include "ops/op_module.h"

namespace auglab::exporting {

/// An op of the preset together with its position, for messages ("pipeline[2] <op name>").
struct ExportedOp {
    std::size_t index;
    const OpConfig* op;
    std::string path;  ///< the op's JSON path in the preset (Pipeline::path)
    std::string label() const;
};

/// Albumentations' class for a group kind: OneOf, SomeOf, Sequential, RandomOrder.
const char* albumentationsGroupClass(GroupKind kind);

/// The enabled ops, in order. Each disabled op adds a warning (`target` names the library): a
/// disabled op never runs, so leaving it out keeps the meaning.
std::vector<ExportedOp> enabledOps(const Preset& preset, const std::string& target,
                                   std::vector<std::string>& warnings);

// Python literals. Floats use the shortest text that reads back as the same double ("0.1",
// "-15.0"), so generated code carries the preset's numbers exactly.
std::string pyFloat(double v);
std::string pyInt(double v);  ///< a whole number written without a decimal point
std::string pyString(const std::string& s);
std::string pyRange(const Range& r);     ///< "(min, max)" as floats
std::string pyIntRange(const Range& r);  ///< "(min, max)" as ints
std::string pyRgb(const Fill& f);        ///< "(r, g, b)" as ints (constant fills only)

/// Warns, when the preset has a targets section, that `target`'s file moves images only.
void noteImagesOnly(const Preset& preset, const std::string& target, std::vector<std::string>& warnings);

/// The comment block that opens a generated Python file: where it came from, and every warning as
/// a bullet, so the file itself says what the target cannot express.
std::string pythonHeader(const Preset& preset, const std::string& target,
                         const std::vector<std::string>& warnings);

/// True when every channel of a constant fill has the same value (targets with a scalar fill).
bool isGray(const Fill& f);

// Target idioms the op modules write with.
/// torchvision: `t` applied with probability p (v2.RandomApply unless p is 1).
inline std::string torchvisionWithP(const std::string& t, double p) {
    if (p >= 1.0) return t;
    return "v2.RandomApply([" + t + "], p=" + pyFloat(p) + ")";
}
/// Keras: `layer` applied to each image with probability p (the file's ApplyWithProbability).
inline std::string kerasWithP(const std::string& layer, double p) {
    if (p >= 1.0) return layer;
    return "ApplyWithProbability(" + layer + ", p=" + pyFloat(p) + ")";
}
/// tf-deotte: the statement `image = expr`, applied with probability p (a tf.cond, so that one
/// image's draw never affects another's).
inline std::string tfGated(double p, const std::string& expr) {
    if (p >= 1.0) return "    image = " + expr + "\n";
    return "    image = tf.cond(tf.random.uniform([]) < " + pyFloat(p) + ", lambda: " + expr +
           ", lambda: image)\n";
}
/// DALI: one draw per sample from the range (a DataNode even for a fixed value).
inline std::string daliUniform(const Range& r) {
    return "_uniform(" + pyFloat(r.min) + ", " + pyFloat(r.max) + ")";
}
/// DALI: 1.0 when the op runs, else 0.0, per sample.
inline std::string daliCoin(double p) {
    return p >= 1.0 ? "_uniform(1.0, 1.0)" : "_coin(" + pyFloat(p) + ")";
}

/// The op is left out of a generated Python file: `warning` joins the warnings (and the file's
/// header), and a comment marks the op's place in the pipeline.
void notExported(const ExportedOp& e, PythonExport& x, const std::string& warning);
/// The tf-deotte function has no place for the op (it is a matrix/gather function).
void notInTfDeotte(const ExportedOp& e, PythonExport& x);
/// A kernel op drawn per image that only the torchvision export writes (`call`, a helper class of
/// the module, with `torchNote` as its warning): Keras, DALI and tf-deotte leave it out, saying that
/// they cannot draw `what` per image.
void torchvisionOnlyKernelOp(const ExportedOp& e, PythonExport& x, const std::string& call,
                             const std::string& torchNote, const std::string& what);
/// An op only the albumentations export has: tf-deotte's refusal there, elsewhere "TARGET has no
/// WHAT: not exported (the albumentations export has it)".
void onlyInAlbumentations(const ExportedOp& e, PythonExport& x, const std::string& what);

/// Whether generated list items (`lines`) hold an item, not only comments.
bool hasPythonItem(const std::string& lines);

/// Each op module's helper code for `target` (OpModule::pythonHelper), in the registration list's
/// order: those the module always emits, and those of the ops in `used` (indexed by OpId). Each
/// top-level block (a class or function, two blank lines before it) is written once, so that modules
/// can share a base class (torchvisionFilter2DHelper).
std::string pythonHelpers(PythonTarget target, const std::vector<bool>& used);

/// torchvision's Filter2D base class: forward() correlates the colour channels with the k x k
/// kernel its subclass's kernel() draws, as cv2.filter2D does on uint8 (border reflect_101 for any
/// image size, rounded, clipped; alpha kept). For the helpers of kernel ops to begin with.
std::string torchvisionFilter2DHelper();

/// Runs every enabled op's OpModule::toPython for `target`: the ops' lines and configs in pipeline
/// order, the warnings (disabled ops first) in `warnings`, and which modules' helpers are used.
/// Groups are written by every target: torchvision and Keras as nested list items (groupNodes),
/// tf-deotte as functions of the image (deotteGroup), DALI as conditionals (daliGroupOps).
struct PythonOps {
    std::string lines, configs;
    std::vector<bool> helpersUsed;
    /// The lines use the file's group code (torchvisionGroupHelper, kerasGroupHelper, DALI's _one_of and
    /// _some_of).
    bool groupHelperUsed = false;
};
/// torchvision's SomeOf class (some_of and random_order groups).
std::string torchvisionGroupHelper();
/// Keras's OneOf and SomeOf layers (one_of, some_of and random_order groups).
std::string kerasGroupHelper();
PythonOps pythonOps(const Preset& preset, PythonTarget target, const std::string& targetName,
                    std::vector<std::string>& warnings);
/// DALI's part of pythonOps for a preset with groups (dali_export.cpp).
PythonOps daliGroupOps(const Preset& preset, std::vector<std::string>& warnings);

// What the group writers share.
/// Each line of `lines` indented by `by` more spaces.
std::string indented(const std::string& lines, const std::string& by);
/// A group's child op written for `target` (p = 1 when `forced`: a one_of's choice already decided):
/// its lines (a comment alone when the target cannot write it), or nothing when it is disabled (with
/// the warning). Ops of whole batches go to out.configs where `configsAllowed`, else are an error.
/// `n` counts the ops written (PythonExport::index).
std::optional<std::string> childOpLines(const Pipeline& pipeline, std::size_t i, PythonTarget target,
                                        const std::string& targetName, bool forced, bool configsAllowed,
                                        PythonOps& out, std::vector<std::string>& warnings, int& n);
/// Whether group `g` runs; a disabled one is reported.
bool groupEnabled(const Pipeline& pipeline, std::size_t g, const std::string& targetName,
                  std::vector<std::string>& warnings);

}  // namespace auglab::exporting
