#pragma once
// A pipeline is an ordered list of configured ops, nested in groups (one_of, some_of, sequential,
// random_order) where the user wants; a preset is a named pipeline with a seed.

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "op_registry.h"
#include "targets.h"

namespace auglab {

/// The Albumentations transform an op was imported from, as the file wrote it: the library version
/// of the file (2.x) and the transform's dict (class name and arguments, the user's spellings).
/// The exporter writes it back as it was while the op still means what it meant (the dict read again
/// gives the op's parameters: only p may have changed), so a file imported and exported unedited
/// comes back with the user's own classes (ShiftScaleRotate stays ShiftScaleRotate).
struct AlbumentationsOrigin {
    std::string version;
    nlohmann::json transform;
};

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
    /// Where an imported op came from (saved with it as "albumentations"); not part of ==, which
    /// compares what the op does.
    std::shared_ptr<const AlbumentationsOrigin> origin;

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

    /// What the op does: enabled, p and every value that means something (values replaced by
    /// alternatives, or made meaningless by a flag that is on in both, are not compared).
    bool operator==(const OpConfig& o) const;

private:
    const OpDesc* desc_;
    std::vector<std::optional<ParamValue>> values_;
};

/// How a group runs its children (Albumentations 2.0.8's composition classes, same semantics).
enum class GroupKind {
    OneOf,        ///< one child, chosen with weights = the children's p (normalised); it then runs for sure
    SomeOf,       ///< n children drawn uniformly (with or without replacement), run in pipeline order, each
                  ///< with its own p
    Sequential,   ///< every child in order, each with its own p
    RandomOrder,  ///< n children drawn uniformly, run in the order drawn, each with its own p
};
const char* groupKindName(GroupKind kind);  ///< "one_of", "some_of", "sequential", "random_order"
bool groupKindFromName(std::string_view name, GroupKind& kind);
/// Albumentations 2.0.8's default p: OneOf and Sequential 0.5, SomeOf and RandomOrder 1.
double defaultGroupP(GroupKind kind);
/// Whether the kind draws `n` children (some_of, random_order).
inline bool groupHasCount(GroupKind kind) {
    return kind == GroupKind::SomeOf || kind == GroupKind::RandomOrder;
}

/// A group of a pipeline: the ops pipeline[first, first + count) and the groups nested inside them.
/// Its children are its direct sub-groups and the ops in no sub-group, in pipeline order.
struct OpGroup {
    GroupKind kind = GroupKind::OneOf;
    std::size_t first = 0;
    std::size_t count = 0;  ///< never 0: a group holds at least one op
    bool enabled = true;
    double p = 0.5;        ///< the chance the group runs (inside a one_of: its weight)
    int n = 1;             ///< some_of, random_order: how many children are drawn
    bool replace = false;  ///< some_of, random_order: drawn with replacement
    /// A sequential imported from a nested Compose or ReplayCompose: that dict without its
    /// transforms (class, save_key, label settings...), written back while the group is still a
    /// sequential. Not part of ==.
    std::shared_ptr<const AlbumentationsOrigin> origin;

    std::size_t end() const { return first + count; }
    bool holds(std::size_t op) const { return op >= first && op < end(); }
    bool operator==(const OpGroup& o) const {
        return kind == o.kind && first == o.first && count == o.count && enabled == o.enabled && p == o.p &&
               n == o.n && replace == o.replace;
    }
};

/// One node of the pipeline's tree: an op (op >= 0) or a group (group >= 0, with its children).
struct PipelineNode {
    int op = -1;
    int group = -1;
    std::vector<PipelineNode> children;
};

/// An ordered list of configured ops, possibly nested in groups. The ops are kept flat, in the order
/// they are written (depth first), so that an op keeps one index whatever groups hold it; the groups
/// are ranges of that list, in the same order (a group before the groups inside it).
///
/// It reads like a vector of ops (size, [], iteration), and its edits keep the groups consistent: an
/// op inserted strictly inside a group's range joins it, one inserted at its ends stays outside; a
/// group whose last op is erased disappears.
class Pipeline {
public:
    using iterator = std::vector<OpConfig>::iterator;
    using const_iterator = std::vector<OpConfig>::const_iterator;

    Pipeline() = default;
    Pipeline(std::vector<OpConfig> ops) : ops_(std::move(ops)) {}  // NOLINT: a flat pipeline
    Pipeline(std::initializer_list<OpConfig> ops) : ops_(ops) {}

    const std::vector<OpConfig>& ops() const { return ops_; }
    std::size_t size() const { return ops_.size(); }
    bool empty() const { return ops_.empty(); }
    OpConfig& operator[](std::size_t i) { return ops_[i]; }
    const OpConfig& operator[](std::size_t i) const { return ops_[i]; }
    OpConfig& at(std::size_t i) { return ops_.at(i); }
    const OpConfig& at(std::size_t i) const { return ops_.at(i); }
    OpConfig& front() { return ops_.front(); }
    const OpConfig& front() const { return ops_.front(); }
    OpConfig& back() { return ops_.back(); }
    const OpConfig& back() const { return ops_.back(); }
    iterator begin() { return ops_.begin(); }
    iterator end() { return ops_.end(); }
    const_iterator begin() const { return ops_.begin(); }
    const_iterator end() const { return ops_.end(); }

    void push_back(OpConfig op) { ops_.push_back(std::move(op)); }  ///< at the top level, last
    iterator insert(const_iterator at, OpConfig op);
    iterator erase(const_iterator at);
    void clear() {
        ops_.clear();
        groups_.clear();
    }

    /// Inserts `op` at index `at` as a child of group `parent` (-1: the top level). The index must
    /// lie in the parent's range or at its end, and outside its sub-groups but at their ends
    /// (std::invalid_argument otherwise).
    void insertInto(std::size_t at, OpConfig op, int parent);
    /// Inserts `sub` (its ops and groups) at index `at` as children of group `parent`, like insertInto.
    void insertInto(std::size_t at, const Pipeline& sub, int parent);
    /// Moves op `from` so that it sits at index `to` of the result, as a child of `parent`.
    void moveInto(std::size_t from, std::size_t to, int parent);
    /// One step up (direction -1) or down (+1) as the editor's arrows move an op: past a sibling op,
    /// into the group next to it (at its near end), or out of its own group when it is that group's
    /// first (last) child; a group left empty disappears. Returns the op's new index, or -1 when it
    /// cannot move (the first or last op at the top level).
    int stepOp(std::size_t op, int direction);

    const std::vector<OpGroup>& groups() const { return groups_; }
    OpGroup& group(std::size_t g) { return groups_.at(g); }
    /// Wraps the children of one parent that cover ops [first, first + count) in a new group; returns
    /// its index. std::invalid_argument when the range cuts a group or spans two parents.
    int addGroup(GroupKind kind, std::size_t first, std::size_t count);
    /// Removes group `g`; its children become its parent's.
    void removeGroup(std::size_t g);
    /// Replaces every group (the importer and the preset reader build them): std::invalid_argument
    /// when they are not well nested, in order and non-empty.
    void setGroups(std::vector<OpGroup> groups);

    /// The innermost group holding op `op` (-1: none); parentGroup(g) likewise for a group.
    int groupOf(std::size_t op) const;
    int parentGroup(std::size_t g) const;
    /// The tree: a root (op and group -1) whose children are the top-level nodes.
    PipelineNode tree() const;
    /// The JSON path of op `op` in a preset ("pipeline[1].children[0]") and of group `g`.
    std::string path(std::size_t op) const;
    std::string groupPath(std::size_t g) const;

    bool operator==(const Pipeline&) const = default;

private:
    std::vector<OpConfig> ops_;
    std::vector<OpGroup> groups_;
};

/// Erases the ops that `pred` accepts (std::erase_if for a pipeline: groups follow, as in erase).
template <class Pred>
std::size_t erase_if(Pipeline& pipeline, Pred pred) {
    std::size_t removed = 0;
    for (std::size_t i = pipeline.size(); i-- > 0;)
        if (pred(pipeline[i])) {
            pipeline.erase(pipeline.begin() + static_cast<std::ptrdiff_t>(i));
            ++removed;
        }
    return removed;
}

/// Why `groups` do not fit `opCount` ops (empty if they do): ranges non-empty and in bounds, in
/// order (by first op, an outer group before the groups inside it), any two nested or apart; n >= 1
/// and at most the number of children without replacement.
std::string groupsError(const std::vector<OpGroup>& groups, std::size_t opCount);

/// groupsError for a whole pipeline, and a one_of whose children's p (its weights) are all 0 (the
/// preset reader refuses both): empty when the groups are sound.
std::string groupRulesError(const Pipeline& pipeline);

/// The most ops one sample may run. A group draws its children again with replacement, so nested
/// some_of groups multiply (n 1000 three deep would be 10^9 ops, tens of GB for one sample); no
/// real pipeline comes near this bound, which the preset reader and the editor enforce.
inline constexpr double kMaxOpsPerSample = 10000;

/// The most ops one sample of `pipeline` can run (disabled entries count too: they can be
/// enabled without reloading): a sequential group adds its children's, a one_of takes its largest,
/// some_of and random_order with replacement n times their largest, without it their n largest.
double maxOpsPerSample(const Pipeline& pipeline);

/// Empty when one sample runs at most kMaxOpsPerSample ops; else why not, naming the innermost
/// group whose own draws pass the bound (its JSON path).
std::string opCountError(const Pipeline& pipeline);

/// The first op of `pipeline` that breaks the order rules, or -1, with `why` set: an op that sets the
/// frame (OpDesc::setsFrame: a crop, a resize) is in no some_of or random_order group (it sets the
/// size every later op works at, and those groups change the order). Training ops end the pipeline;
/// an op that must be first is outside groups. Frame-setting ops may come anywhere else, any number
/// of times: each stage of the plan has its own size.
int pipelineOrderError(const Pipeline& pipeline, std::string& why);

/// Whether `op`, as configured, replaces the frame (OpModule::setsFrame).
bool setsFrame(const OpConfig& op);

/// The `auglab-preset` document (SPEC §4).
struct Preset {
    static constexpr int kFormatVersion = 1;
    std::string name = "untitled";
    std::string description;
    std::uint64_t seed = 0;
    Pipeline pipeline;
    /// How boxes, keypoints and masks follow the pixels (the `targets` section); absent in a preset
    /// made for images alone (annotated data then uses the defaults, Albumentations' own).
    std::optional<TargetSettings> targets;
    /// An imported pipeline's Compose (or ReplayCompose) without its transforms: label settings as
    /// the file gave them, additional_targets, save_key...; the Albumentations export writes it back
    /// while `targets` is still what it reads to. Not part of ==.
    std::shared_ptr<const AlbumentationsOrigin> albumentations;

    bool operator==(const Preset& o) const {
        return name == o.name && description == o.description && seed == o.seed && pipeline == o.pipeline &&
               targets == o.targets;
    }
};

/// The preset a new user sees: mild geometry, flips, cutout and colour.
Preset defaultPreset();

}  // namespace auglab
