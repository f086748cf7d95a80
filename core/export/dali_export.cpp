// NVIDIA DALI pipeline code, for the GPU or, with device_id=None, the CPU: `augment(images)` builds
// the DALI graph of each op (its module's toPython), `auglab_pipeline` reads and decodes files and
// calls it. DALI conventions, from its docs and checked by running the exports
// (tests/test_export_runtimes):
// - fn.random.uniform needs lo < hi: a fixed value is drawn from values=[v]; fn.random.coin_flip
//   gives integers, cast to float for arithmetic; dmath functions need DataNodes, which every
//   parameter therefore is.
// - Arithmetic needs its operands on one device: per-sample CPU values are moved to the images'
//   device (_on).
// - Groups run per sample with DALI's conditionals (`if` on a per-sample DataNode, in a pipeline_def
//   with enable_conditionals=True; AutoGraph converts augment and every function it calls): each child
//   is a function of the images, each group an `if` on its gate around _one_of or _some_of.

#include <algorithm>

#include "export_common.h"

namespace auglab {

using namespace exporting;

namespace {

// What every op's code may call.
const char* kCommonCode = R"(import math

from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.math as dmath


def _uniform(lo, hi):
    """One float per sample from U(lo, hi); lo itself when lo == hi (DALI's range must not be empty)."""
    return fn.random.uniform(values=[lo]) if lo == hi else fn.random.uniform(range=(lo, hi))


def _coin(p):
    """1.0 with probability p, else 0.0, per sample."""
    return fn.cast(fn.random.coin_flip(probability=p), dtype=types.FLOAT)


def _on(images, x):
    """A per-sample CPU value where `images` is (arithmetic needs both on one device)."""
    return x.gpu() if images.device == "gpu" else x


def _maybe(images, changed, on):
    """`changed` where on is 1, `images` where it is 0."""
    on = _on(images, on)
    return fn.cast(changed * on + images * (1.0 - on), dtype=types.UINT8)


def _trunc(x):
    """Toward zero, as AugLab truncates (the clamp is the sign of x)."""
    return dmath.floor(dmath.abs(x)) * dmath.clamp(x * 1e9, -1.0, 1.0)
)";

// What the groups' code calls: AugLab's sampler (core/sampler.cpp) per sample, each `if` running its
// branch on the samples whose condition holds. The draws are DALI's; their distributions are
// AugLab's (TestExportDali::groupsRunAsAuglabRunsThem).
const char* kGroupCode = R"(

def _chance(p):
    """True with probability p, per sample (a group's gate)."""
    return fn.random.coin_flip(probability=p, dtype=types.BOOL)


def _one_of(images, steps, weights):
    """AugLab one_of, per sample: one of the steps, chosen with the weights (normalised)."""
    total = float(sum(weights))
    choice = fn.random.choice(len(steps), p=[w / total for w in weights])
    for i, step in enumerate(steps):
        if choice == i:
            images = step(images)
    return images


def _some_of(images, steps, n, replace, in_order):
    """AugLab some_of (in_order: the drawn steps in the list's order, a step drawn twice running twice
    in a row) and random_order (in the order drawn), per sample: n of the steps drawn uniformly, with
    or without replacement."""
    k = len(steps)
    if replace:
        picks = [fn.random.choice(k) for _ in range(n)]

        def drawn(i, j):  # the j-th draw is step i
            return picks[j] == i

    else:
        # A uniform permutation: step i's place is its rank among k uniform keys (ties broken by the
        # index); the first n places are n draws without replacement.
        n = min(n, k)
        keys = [fn.random.uniform(range=(0.0, 1.0)) for _ in range(k)]
        places = [
            sum(fn.cast(keys[m] <= keys[i] if m < i else keys[m] < keys[i], dtype=types.INT32)
                for m in range(k) if m != i)
            for i in range(k)
        ]
        if in_order:  # each step at most once: one condition per step
            for i in range(k):
                if places[i] < n:
                    images = steps[i](images)
            return images

        def drawn(i, j):
            return places[i] == j

    if in_order:  # step by step, each as often as it was drawn
        order = [(i, j) for i in range(k) for j in range(n)]
    else:  # draw by draw
        order = [(i, j) for j in range(n) for i in range(k)]
    for i, j in order:
        if drawn(i, j):
            images = steps[i](images)
    return images
)";

/// Writes a grouped preset's `augment` body: the top-level ops as without groups, each group as the
/// functions of its children (steps, defined in augment) and the statement that runs them.
class GroupWriter {
public:
    GroupWriter(const Preset& preset, PythonOps& out, std::vector<std::string>& warnings)
        : pipeline_(preset.pipeline), out_(out), warnings_(warnings) {}

    /// The statements that run group `node` (its steps' functions appended to `defs`), at augment's
    /// indentation, after a comment naming it; comments alone when nothing in it was written.
    /// `forced`: a one_of chose it.
    std::string group(const PipelineNode& node, bool forced, std::string& defs) {
        const auto g = static_cast<std::size_t>(node.group);
        const OpGroup& group = pipeline_.groups()[g];
        const bool oneOf = group.kind == GroupKind::OneOf;
        std::vector<std::string> steps;
        std::vector<double> weights;
        std::string notes;
        for (const PipelineNode& child : node.children) {
            std::string body;
            if (child.op >= 0) {
                const auto i = static_cast<std::size_t>(child.op);
                const std::optional<std::string> written =
                    childOpLines(pipeline_, i, PythonTarget::Dali, "dali", oneOf, false, out_, warnings_, n_);
                if (!written) continue;
                if (!hasPythonItem(*written)) {
                    notes += *written;  // the comment that says why it is left out
                    if (!oneOf) continue;
                    // In a one_of the child keeps its weight, as a choice that does nothing.
                    body = "    # stands in for " + pipeline_.path(i) + " " + pipeline_[i].name() +
                           " (its weight in the one_of)\n";
                } else {
                    body = *written;
                }
                weights.push_back(pipeline_[i].p);
            } else {
                const auto c = static_cast<std::size_t>(child.group);
                if (!groupEnabled(pipeline_, c, "dali", warnings_)) continue;
                body = this->group(child, oneOf, defs);
                if (!hasPythonItem(body)) {
                    notes += body;  // a group with nothing written, and why
                    if (!oneOf) continue;
                    body = "    # stands in for " + pipeline_.groupPath(c) + " (its weight in the one_of)\n";
                }
                weights.push_back(pipeline_.groups()[c].p);
            }
            const std::string name = "_step" + std::to_string(steps_++);
            defs += "    def " + name + "(images):\n" + indented(withFrame(body), "    ") +
                    "        return images\n\n";
            steps.push_back(name);
        }
        // As in the other targets, a group with nothing written is left out of its parent (in a
        // one_of, a choice that does nothing takes its weight).
        if (steps.empty()) return label(g) + notes + "    # nothing in it is exported (see the header)\n";
        std::string list;
        for (const std::string& s : steps) list += (list.empty() ? "" : ", ") + s;
        std::string run;
        switch (group.kind) {
            case GroupKind::Sequential:
                for (const std::string& s : steps) run += "    images = " + s + "(images)\n";
                break;
            case GroupKind::OneOf: {
                std::string ws;
                double total = 0;
                for (double w : weights) {
                    ws += (ws.empty() ? "" : ", ") + pyFloat(w);
                    total += w;
                }
                if (!(total > 0))  // the sampler skips it (the preset reader refuses it)
                    return label(g) + notes + "    # never runs: every weight is 0\n";
                run = "    images = _one_of(images, [" + list + "], weights=[" + ws + "])\n";
                break;
            }
            case GroupKind::SomeOf:
            case GroupKind::RandomOrder:
                run = "    images = _some_of(images, [" + list + "], n=" + std::to_string(group.n) +
                      ", replace=" + (group.replace ? "True" : "False") +
                      ", in_order=" + (group.kind == GroupKind::SomeOf ? "True" : "False") + ")\n";
                break;
        }
        // Albumentations' SomeOf and RandomOrder keep their own gate even when a OneOf chose them.
        const bool gated = (groupHasCount(group.kind) || !forced) && group.p < 1.0;
        if (gated) run = "    if _chance(" + pyFloat(group.p) + "):\n" + indented(run, "    ");
        return label(g) + notes + run;
    }

    /// The comment that names group `g`.
    std::string label(std::size_t g) const {
        return "    # " + pipeline_.groupPath(g) + " " + groupKindName(pipeline_.groups()[g].kind) + "\n";
    }

    /// An op outside every group, as in a preset without groups.
    void topLevelOp(std::size_t i) {
        const std::optional<std::string> written =
            childOpLines(pipeline_, i, PythonTarget::Dali, "dali", false, false, out_, warnings_, n_);
        if (written) out_.lines += *written;
    }

    /// Whether an op under `node` may change the image's size.
    bool setsFrame(const PipelineNode& node) const {
        if (node.op >= 0) {
            const OpConfig& op = pipeline_[static_cast<std::size_t>(node.op)];
            return op.enabled && opModule(op.id()).setsFrame(op);
        }
        return std::any_of(node.children.begin(), node.children.end(),
                           [&](const PipelineNode& c) { return setsFrame(c); });
    }

private:
    /// A step's body with its own height and width, after its leading comments, when its ops read
    /// them (an earlier step may have resized the images); not when they first set them.
    static std::string withFrame(const std::string& body) {
        const std::size_t use = std::min(body.find("height"), body.find("width"));
        if (use == std::string::npos || (use >= 4 && body.compare(use - 4, 20, "    height, width = ") == 0))
            return body;
        std::size_t at = 0;
        while (body.compare(at, 5, "    #") == 0) at = body.find('\n', at) + 1;
        return body.substr(0, at) + "    shape = images.shape(dtype=types.FLOAT)\n" +
               "    height, width = shape[0], shape[1]\n" + body.substr(at);
    }

    const Pipeline& pipeline_;
    PythonOps& out_;
    std::vector<std::string>& warnings_;
    int n_ = 0, steps_ = 0;
};

}  // namespace

namespace exporting {

PythonOps daliGroupOps(const Preset& preset, std::vector<std::string>& warnings) {
    PythonOps out;
    out.helpersUsed.assign(opModules().size(), false);
    out.groupHelperUsed = true;
    GroupWriter writer(preset, out, warnings);
    for (const PipelineNode& child : preset.pipeline.tree().children) {
        if (child.op >= 0) {
            writer.topLevelOp(static_cast<std::size_t>(child.op));
            continue;
        }
        if (!groupEnabled(preset.pipeline, static_cast<std::size_t>(child.group), "dali", warnings)) continue;
        std::string defs;
        const std::string run = writer.group(child, false, defs);
        // The group's name first, then its steps, then what runs them, set apart by blank lines.
        const std::size_t labelEnd = run.find('\n') + 1;
        out.lines +=
            (out.lines.ends_with("\n\n") ? "" : "\n") + run.substr(0, labelEnd) + defs + run.substr(labelEnd);
        if (hasPythonItem(run) && writer.setsFrame(child))
            out.lines +=
                "    shape = images.shape(dtype=types.FLOAT)  # the group may have resized the images\n"
                "    height, width = shape[0], shape[1]\n";
        out.lines += "\n";
    }
    return out;
}

}  // namespace exporting

ExportResult exportDali(const Preset& preset) {
    ExportResult r;
    const PythonOps ops = pythonOps(preset, PythonTarget::Dali, "dali", r.warnings);
    const bool groups = ops.groupHelperUsed;
    std::string body = kCommonCode + pythonHelpers(PythonTarget::Dali, ops.helpersUsed);
    if (groups) body += kGroupCode;
    body += R"(

def augment(images):
    """The preset on a batch of uint8 RGB images (HWC), on the CPU or the GPU.)";
    body += groups ? R"( Its groups are `if`
    statements on per-sample conditions: call it in a pipeline_def with enable_conditionals=True."""
)"
                   : "\"\"\"\n";
    body += R"(    shape = images.shape(dtype=types.FLOAT)
    height, width = shape[0], shape[1]
)";
    body += ops.lines + "    return images\n\n\n@pipeline_def(batch_size=64, num_threads=4, device_id=0" +
            (groups ? ", enable_conditionals=True" : "") + R"()
def auglab_pipeline(file_root, device="gpu"):
    """Reads file_root's images and labels and augments them: decoded by nvJPEG on the GPU, or, with
    device="cpu" (and device_id=None), everything on the CPU."""
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu", output_type=types.RGB)
    return augment(images), labels
)";
    noteImagesOnly(preset, "dali", r.warnings);
    r.text = pythonHeader(preset, "dali", r.warnings) + body;
    return r;
}

}  // namespace auglab
