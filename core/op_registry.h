#pragma once
// The description of every op: its keys, units, kinds, bounds, defaults and help, as each op's
// module (core/ops/) gives it. The preset parser, the preset schema, the GUI controls and the
// exporters all read it; nothing else lists an op's parameters.

#include <string>
#include <string_view>
#include <vector>

#include "op_types.h"
#include "ops/op_list.h"

namespace auglab {

/// Geometric ops move pixels and fuse into one warp; pixel ops change values in place. Training ops
/// (normalisation, conversion to float or to a tensor) belong to the training code's tail: kept in
/// presets and exports, never previewed (the grid shows the image before them), last in a pipeline.
enum class OpCategory { Geometric, Pixel, Training };

enum class ParamKind {
    FloatRange,  ///< [min, max] of real numbers
    IntRange,    ///< [min, max] of integers, inclusive
    Float,       ///< one real number
    Bool,
    Choice,  ///< one of `choices`
    Fill,    ///< [r, g, b] (or a random mode when allowed)
    Size,    ///< [height, width] in pixels, integers in [lower, upper]
    Triple,  ///< [r, g, b], three real numbers in [lower, upper] (per channel)
};

struct ParamDesc {
    std::string key;
    std::string label;
    std::string unit;  ///< "deg", "px", "fraction of width", ... for display
    ParamKind kind = ParamKind::FloatRange;
    double lower = 0.0;  ///< smallest allowed value (numbers and range ends)
    double upper = 0.0;  ///< largest allowed value
    ParamValue defaultValue;
    std::vector<std::string> choices;
    bool allowsRandomFill = false;
    /// Optional parameters are absent unless the preset gives them (e.g. hole sizes in pixels,
    /// which replace the fractional ones).
    bool optional = false;
    /// Shown on a logarithmic slider (positive ranges where ratios matter, e.g. an aspect ratio).
    bool logScale = false;
    /// The span the editor's slider shows, for tuning: the values most users explore, inside
    /// [lower, upper] (both 0: the bounds). A value typed outside it widens the slider to include it;
    /// the number fields take anything within the bounds.
    double typicalLower = 0.0, typicalUpper = 0.0;
    /// Pixel sizes: the slider's upper end is this fraction of the current image's longer side
    /// (0: typicalUpper applies).
    double typicalImageFraction = 0.0;
    std::string help;
    /// Integer ranges of odd values only (kernel sizes): the parser refuses an even end, the editor
    /// steps by two.
    bool odd = false;
    /// A single number (ParamKind::Float) that takes whole values only (a count, a width in pixels):
    /// the parser refuses a fraction, the schema says integer, the editor shows no decimals.
    bool integer = false;
    /// A flag of the same op that makes this parameter meaningless while it is on (greyed out in the
    /// editor), e.g. a y scale while the aspect ratio is kept.
    std::string unusedWhenFlag;
};

/// Optional parameters that, given together, replace others (hole sizes in pixels instead of
/// fractions): both or neither, and never with the ones they replace.
struct ParamAlternative {
    std::vector<std::string> keys;      ///< given together or not at all
    std::vector<std::string> replaces;  ///< meaningless (not saved, greyed out) while `keys` are given
    std::string bothOrNeither;          ///< the error when only some of `keys` are given
    std::string notBoth;                ///< the error when `replaces` are given too
};

struct OpDesc {
    OpId id;
    std::string name;   ///< key used in presets (snake_case)
    std::string label;  ///< for people, e.g. "Coarse dropout (cutout)"
    OpCategory category;
    std::string help;
    std::vector<ParamDesc> params;
    std::vector<ParamAlternative> alternatives;
    /// The op replaces the frame (the image every later op works on) by an image of another size:
    /// at most once per pipeline, before every pixel op and every ownStage op.
    bool setsFrame = false;
    /// The op renders as a stage of its own (it does not fuse with the warp), like a pixel op.
    bool ownStage = false;
    /// The op mixes in a partner image (PartnerPool): with one image loaded the partner is the
    /// image itself, and the GUI says why the effect is invisible.
    bool usesPartner = false;
    /// The op must be the pipeline's first: it composes whole images (nothing may move them before).
    bool mustBeFirst = false;
    /// The op's plan step runs on the host on the GPU backends too (a codec call: host_steps.h); they
    /// read the image back, run it and upload the result. `auglab-cli info` and the cost meter say so.
    bool runsOnHost = false;
    /// With runsOnHost or runsOnHostGl: only the samples with this parameter value run on the host
    /// ("key value"); the others stay on the GPU.
    const char* runsOnHostWhen = nullptr;
    /// Only the GL backend runs the step on the host: its per-pixel maths needs float64, which GLSL
    /// 3.30 does not have (the CUDA backend runs it on the device).
    bool runsOnHostGl = false;

    const ParamDesc* param(std::string_view key) const;
    int paramIndex(std::string_view key) const;  ///< -1 when unknown
};

/// All ops, in the order the GUI lists them.
const std::vector<OpDesc>& opRegistry();
/// nullptr when unknown.
const OpDesc* findOp(std::string_view name);
const OpDesc& opDesc(OpId id);

/// Human-readable names of the enum choices shared by several ops.
inline const std::vector<std::string> kInterpolationChoices{"nearest", "linear"};
inline const std::vector<std::string> kBorderChoices{"constant", "replicate", "reflect", "reflect_101",
                                                     "wrap"};

}  // namespace auglab
