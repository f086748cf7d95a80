#include "pipeline.h"

#include <stdexcept>

#include "ops/op_module.h"

namespace auglab {

OpConfig::OpConfig(const OpDesc& desc) : desc_(&desc) {
    values_.reserve(desc.params.size());
    for (const ParamDesc& p : desc.params)
        values_.push_back(p.optional ? std::nullopt : std::optional<ParamValue>(p.defaultValue));
}

OpConfig OpConfig::withDefaults(std::string_view opName) {
    const OpDesc* d = findOp(opName);
    if (!d) throw std::invalid_argument("unknown op '" + std::string(opName) + "'");
    return OpConfig(*d);
}

bool OpConfig::has(std::string_view key) const {
    const int i = desc_->paramIndex(key);
    return i >= 0 && values_[static_cast<std::size_t>(i)].has_value();
}

const ParamValue& OpConfig::value(std::string_view key) const {
    const int i = desc_->paramIndex(key);
    if (i < 0 || !values_[static_cast<std::size_t>(i)])
        throw std::out_of_range(desc_->name + " has no value for '" + std::string(key) + "'");
    return *values_[static_cast<std::size_t>(i)];
}

void OpConfig::set(std::string_view key, ParamValue v) {
    const int i = desc_->paramIndex(key);
    if (i < 0) throw std::out_of_range(desc_->name + " has no parameter '" + std::string(key) + "'");
    values_[static_cast<std::size_t>(i)] = std::move(v);
}

void OpConfig::unset(std::string_view key) {
    const int i = desc_->paramIndex(key);
    if (i < 0 || !desc_->params[static_cast<std::size_t>(i)].optional)
        throw std::out_of_range(desc_->name + "." + std::string(key) + " is not an optional parameter");
    values_[static_cast<std::size_t>(i)].reset();
}

void OpConfig::resetToDefault(std::string_view key) {
    const int i = desc_->paramIndex(key);
    if (i < 0) throw std::out_of_range(desc_->name + " has no parameter '" + std::string(key) + "'");
    const ParamDesc& pd = desc_->params[static_cast<std::size_t>(i)];
    values_[static_cast<std::size_t>(i)] =
        pd.optional ? std::nullopt : std::optional<ParamValue>(pd.defaultValue);
}

bool OpConfig::isReplaced(std::string_view key) const {
    for (const ParamAlternative& alt : desc_->alternatives)
        if (!alt.keys.empty() && has(alt.keys.front()))
            for (const std::string& k : alt.replaces)
                if (k == key) return true;
    return false;
}

bool OpConfig::operator==(const OpConfig& o) const {
    if (desc_ != o.desc_ || enabled != o.enabled || p != o.p) return false;
    for (std::size_t i = 0; i < values_.size(); ++i) {
        // Parameters that alternatives replace in both mean nothing (and are not saved): ignored.
        const std::string& key = desc_->params[i].key;
        if (isReplaced(key) && o.isReplaced(key)) continue;
        if (values_[i] != o.values_[i]) return false;
    }
    return true;
}

Preset defaultPreset() {
    Preset preset;
    preset.name = "default";
    preset.description = "Mild geometry, horizontal flip, cutout and colour jitter.";
    preset.seed = 20200224;
    OpConfig affine = OpConfig::withDefaults("affine");
    affine.set("rotate_deg", Range{-20, 20});
    affine.set("scale_x", Range{0.85, 1.15});
    affine.set("translate_x_frac", Range{-0.1, 0.1});
    affine.set("translate_y_frac", Range{-0.1, 0.1});
    affine.set("border", std::string("reflect_101"));
    preset.pipeline.push_back(affine);
    OpConfig flip = OpConfig::withDefaults("horizontal_flip");
    flip.p = 0.5;
    preset.pipeline.push_back(flip);
    OpConfig dropout = OpConfig::withDefaults("coarse_dropout");
    dropout.p = 0.5;
    preset.pipeline.push_back(dropout);
    OpConfig colour = OpConfig::withDefaults("brightness_contrast");
    colour.p = 0.5;
    preset.pipeline.push_back(colour);
    return preset;
}

bool setsFrame(const OpConfig& op) {
    return opModule(op.id()).setsFrame(op);
}

std::string opsAfterFrame() {
    std::string after = "every pixel op";
    for (const OpDesc& d : opRegistry())
        if (d.ownStage) after += " and " + d.name;
    return after;
}

int pipelineOrderError(const std::vector<OpConfig>& pipeline, std::string& why) {
    const std::string after = opsAfterFrame();
    int firstPixel = -1, frameOp = -1, firstTraining = -1;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const int at = static_cast<int>(i);
        const OpDesc& d = pipeline[i].desc();
        if (d.category == OpCategory::Training) {
            if (firstTraining < 0) firstTraining = at;
            continue;
        }
        if (firstTraining >= 0) {
            why = d.name + " must come before the training ops (pipeline[" + std::to_string(firstTraining) +
                  "] " + pipeline[static_cast<std::size_t>(firstTraining)].name() +
                  " is before it): they end the pipeline, and the preview shows the image before them";
            return at;
        }
        if (d.mustBeFirst && i > 0) {
            why =
                d.name + " must be the first op: it composes whole images, which nothing may move before it";
            return at;
        }
        if (setsFrame(pipeline[i])) {
            if (frameOp >= 0) {
                why = d.name + " may appear once (it is already pipeline[" + std::to_string(frameOp) + "])";
                return at;
            }
            if (firstPixel >= 0) {
                why = d.name + " must come before " + after + " (pipeline[" + std::to_string(firstPixel) +
                      "] " + pipeline[static_cast<std::size_t>(firstPixel)].name() +
                      " is before it): it sets the size the "
                      "later ops work at";
                return at;
            }
            frameOp = at;
        } else if ((d.category == OpCategory::Pixel || d.ownStage) && firstPixel < 0) {
            // An ownStage op's stage comes after the warp, like a pixel op's.
            firstPixel = at;
        }
    }
    return -1;
}

}  // namespace auglab
