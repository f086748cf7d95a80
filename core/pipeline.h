#pragma once
// A pipeline is an ordered list of configured ops; a preset is a named pipeline with a seed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "op_registry.h"
#include "targets.h"

namespace auglab {

/// One op of a pipeline with its parameter values, stored in the order of its OpDesc::params.
/// Absent optional parameters are std::nullopt; every other parameter always has a value.
class OpConfig {
public:
    /// An op with every parameter at its default.
    explicit OpConfig(const OpDesc& desc);
    static OpConfig withDefaults(std::string_view opName);  ///< throws std::invalid_argument

    const OpDesc& desc() const { return *desc_; }
    OpId id() const { return desc_->id; }
    const std::string& name() const { return desc_->name; }

    bool enabled = true;
    double p = 1.0;  ///< probability the op applies, in [0, 1]

    bool has(std::string_view key) const;
    const ParamValue& value(std::string_view key) const;  ///< throws std::out_of_range if absent
    void set(std::string_view key, ParamValue v);
    void unset(std::string_view key);  ///< optional parameters only
    void resetToDefault(std::string_view key);

    // Typed accessors; the registry guarantees the kinds.
    Range range(std::string_view key) const { return std::get<Range>(value(key)); }
    double number(std::string_view key) const { return std::get<double>(value(key)); }
    bool flag(std::string_view key) const { return std::get<bool>(value(key)); }
    const std::string& choice(std::string_view key) const { return std::get<std::string>(value(key)); }
    const Fill& fill(std::string_view key) const { return std::get<Fill>(value(key)); }
    Size2 size(std::string_view key) const { return std::get<Size2>(value(key)); }
    Triple triple(std::string_view key) const { return std::get<Triple>(value(key)); }

    const std::vector<std::optional<ParamValue>>& values() const { return values_; }
    /// True when `key` means nothing now: optional parameters that replace it are given (hole sizes in
    /// pixels replace the fractions). Such values are not saved and not compared.
    bool isReplaced(std::string_view key) const;

    bool operator==(const OpConfig& o) const;

private:
    const OpDesc* desc_;
    std::vector<std::optional<ParamValue>> values_;
};

/// The first op of `pipeline` that breaks the order rules, or -1, with `why` set: an op that sets the
/// frame (OpDesc::setsFrame) appears at most once and before every pixel op and ownStage op (it sets
/// the size every later op works at, and a stage before it would need an image of another size).
int pipelineOrderError(const std::vector<OpConfig>& pipeline, std::string& why);

/// Whether `op`, as configured, replaces the frame (OpModule::setsFrame).
bool setsFrame(const OpConfig& op);

/// What a frame-setting op must come before, for messages: "every pixel op and" the ownStage ops.
std::string opsAfterFrame();

/// The `auglab-preset` document (SPEC §4).
struct Preset {
    static constexpr int kFormatVersion = 1;
    std::string name = "untitled";
    std::string description;
    std::uint64_t seed = 0;
    std::vector<OpConfig> pipeline;
    /// How boxes, keypoints and masks follow the pixels (the `targets` section); absent in a preset
    /// made for images alone (annotated data then uses the defaults, Albumentations' own).
    std::optional<TargetSettings> targets;

    bool operator==(const Preset&) const = default;
};

/// The preset a new user sees: mild geometry, flips, cutout and colour.
Preset defaultPreset();

}  // namespace auglab
