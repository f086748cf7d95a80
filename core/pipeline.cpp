#include "pipeline.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
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
        // So do parameters that a flag on in both makes meaningless (unusedWhenFlag).
        const std::string& flagKey = desc_->params[i].unusedWhenFlag;
        if (!flagKey.empty() && has(flagKey) && o.has(flagKey) && flag(flagKey) && o.flag(flagKey)) continue;
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

const char* groupKindName(GroupKind kind) {
    switch (kind) {
        case GroupKind::OneOf:
            return "one_of";
        case GroupKind::SomeOf:
            return "some_of";
        case GroupKind::Sequential:
            return "sequential";
        case GroupKind::RandomOrder:
            return "random_order";
    }
    return "?";
}

bool groupKindFromName(std::string_view name, GroupKind& kind) {
    for (GroupKind k : {GroupKind::OneOf, GroupKind::SomeOf, GroupKind::Sequential, GroupKind::RandomOrder})
        if (name == groupKindName(k)) {
            kind = k;
            return true;
        }
    return false;
}

double defaultGroupP(GroupKind kind) {
    return groupHasCount(kind) ? 1.0 : 0.5;
}

namespace {

/// Builds the children of the range [lo, hi) from group `k` on (groups in order, outer first).
void buildTree(const std::vector<OpGroup>& groups, PipelineNode& node, std::size_t lo, std::size_t hi,
               std::size_t& k) {
    for (std::size_t i = lo; i < hi;) {
        if (k < groups.size() && groups[k].first == i && groups[k].end() <= hi) {
            PipelineNode child;
            child.group = static_cast<int>(k);
            const OpGroup& g = groups[k++];
            buildTree(groups, child, g.first, g.end(), k);
            node.children.push_back(std::move(child));
            i = g.end();
        } else {
            PipelineNode leaf;
            leaf.op = static_cast<int>(i++);
            node.children.push_back(std::move(leaf));
        }
    }
}

PipelineNode treeOf(const std::vector<OpGroup>& groups, std::size_t opCount) {
    PipelineNode root;
    std::size_t k = 0;
    buildTree(groups, root, 0, opCount, k);
    return root;
}

/// The JSON path of the node that `match` accepts, below `node` whose path is `at`.
template <class Match>
bool findPath(const PipelineNode& node, const std::string& at, const Match& match, std::string& out) {
    for (std::size_t c = 0; c < node.children.size(); ++c) {
        const PipelineNode& child = node.children[c];
        const std::string path = at + "[" + std::to_string(c) + "]";
        if (match(child)) {
            out = path;
            return true;
        }
        if (child.group >= 0 && findPath(child, path + ".children", match, out)) return true;
    }
    return false;
}

/// The groups that hold `op`, outermost first.
std::vector<std::size_t> holders(const std::vector<OpGroup>& groups, std::size_t op) {
    std::vector<std::size_t> out;
    for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].holds(op)) out.push_back(g);
    return out;
}

}  // namespace

std::string groupsError(const std::vector<OpGroup>& groups, std::size_t opCount) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const OpGroup& a = groups[g];
        const std::string name = "group " + std::to_string(g) + " (" + groupKindName(a.kind) + ")";
        if (a.count == 0) return name + " holds no op";
        if (a.end() > opCount) return name + " ends after the last op";
        if (!(a.p >= 0.0 && a.p <= 1.0)) return name + ": p outside [0, 1]";
        if (a.n < 1) return name + ": n below 1";
        if (g > 0) {
            const OpGroup& b = groups[g - 1];
            if (a.first < b.first || (a.first == b.first && a.end() > b.end()))
                return name + " is out of order (a group comes before the groups inside it)";
        }
        for (std::size_t h = 0; h < g; ++h) {
            const OpGroup& b = groups[h];
            const bool apart = b.end() <= a.first || a.end() <= b.first;
            const bool inside = b.first <= a.first && a.end() <= b.end();
            if (!apart && !inside)
                return name + " overlaps group " + std::to_string(h) + " without nesting in it";
        }
    }
    const PipelineNode root = treeOf(groups, opCount);
    std::string err;
    const std::function<void(const PipelineNode&)> check = [&](const PipelineNode& node) {
        for (const PipelineNode& c : node.children) {
            if (c.group < 0) continue;
            const OpGroup& g = groups[static_cast<std::size_t>(c.group)];
            if (err.empty() && groupHasCount(g.kind) && !g.replace &&
                static_cast<std::size_t>(g.n) > c.children.size())
                err = "group " + std::to_string(c.group) + " (" + groupKindName(g.kind) + "): n " +
                      std::to_string(g.n) + " > its " + std::to_string(c.children.size()) +
                      " children (drawn without replacement)";
            check(c);
        }
    };
    check(root);
    return err;
}

namespace {

double nodeMaxOps(const Pipeline& pipeline, const PipelineNode& node) {
    if (node.op >= 0) return 1;
    std::vector<double> counts;
    counts.reserve(node.children.size());
    for (const PipelineNode& c : node.children) counts.push_back(nodeMaxOps(pipeline, c));
    if (counts.empty()) return 0;
    const double largest = *std::max_element(counts.begin(), counts.end());
    if (node.group < 0) return std::accumulate(counts.begin(), counts.end(), 0.0);
    const OpGroup& g = pipeline.groups()[static_cast<std::size_t>(node.group)];
    switch (g.kind) {
        case GroupKind::OneOf:
            return largest;
        case GroupKind::Sequential:
            return std::accumulate(counts.begin(), counts.end(), 0.0);
        case GroupKind::SomeOf:
        case GroupKind::RandomOrder:
            if (g.replace) return g.n * largest;
            std::sort(counts.begin(), counts.end(), std::greater<>());
            return std::accumulate(counts.begin(),
                                   counts.begin() + std::min<std::ptrdiff_t>(g.n, std::ssize(counts)), 0.0);
    }
    return largest;
}

}  // namespace

double maxOpsPerSample(const Pipeline& pipeline) {
    return nodeMaxOps(pipeline, pipeline.tree());
}

std::string opCountError(const Pipeline& pipeline) {
    const PipelineNode root = pipeline.tree();
    const double total = nodeMaxOps(pipeline, root);
    if (total <= kMaxOpsPerSample) return {};
    // Down to the innermost group that passes the bound on its own (else the one whose draws
    // multiply its children past it).
    const PipelineNode* at = &root;
    for (bool deeper = true; deeper;) {
        deeper = false;
        for (const PipelineNode& c : at->children)
            if (c.group >= 0 && nodeMaxOps(pipeline, c) > kMaxOpsPerSample) {
                at = &c;
                deeper = true;
                break;
            }
    }
    const std::string where = at->group >= 0 ? pipeline.groupPath(static_cast<std::size_t>(at->group))
                                             : std::string("pipeline");
    std::ostringstream s;
    s.precision(6);
    s << where << ": one sample could run up to " << total << " ops (groups drawing their children "
      << "again multiply), more than the " << kMaxOpsPerSample
      << " a sample may run; lower n or draw without replacement";
    return s.str();
}

std::string groupRulesError(const Pipeline& pipeline) {
    if (std::string why = groupsError(pipeline.groups(), pipeline.size()); !why.empty()) return why;
    if (std::string why = opCountError(pipeline); !why.empty()) return why;
    std::string err;
    const std::function<void(const PipelineNode&)> check = [&](const PipelineNode& node) {
        for (const PipelineNode& c : node.children) {
            if (c.group < 0 || !err.empty()) continue;
            const auto g = static_cast<std::size_t>(c.group);
            if (pipeline.groups()[g].kind == GroupKind::OneOf) {
                double sum = 0;
                for (const PipelineNode& k : c.children)
                    sum += k.op >= 0 ? pipeline[static_cast<std::size_t>(k.op)].p
                                     : pipeline.groups()[static_cast<std::size_t>(k.group)].p;
                if (!(sum > 0))
                    err = "the one_of at " + pipeline.groupPath(g) +
                          " needs a child with p above 0 (its weights)";
            }
            check(c);
        }
    };
    check(pipeline.tree());
    return err;
}

Pipeline::iterator Pipeline::insert(const_iterator at, OpConfig op) {
    const auto i = static_cast<std::size_t>(at - ops_.cbegin());
    int parent = -1;  // the innermost group that holds the gap strictly inside
    for (std::size_t g = 0; g < groups_.size(); ++g)
        if (groups_[g].first < i && i < groups_[g].end()) parent = static_cast<int>(g);
    insertInto(i, std::move(op), parent);
    return ops_.begin() + static_cast<std::ptrdiff_t>(i);
}

void Pipeline::insertInto(std::size_t at, OpConfig op, int parent) {
    Pipeline one;
    one.push_back(std::move(op));
    insertInto(at, one, parent);
}

void Pipeline::insertInto(std::size_t at, const Pipeline& sub, int parent) {
    if (at > ops_.size()) throw std::invalid_argument("insert at " + std::to_string(at) + " past the end");
    if (parent >= static_cast<int>(groups_.size()))
        throw std::invalid_argument("no group " + std::to_string(parent));
    std::vector<bool> ancestor(groups_.size(), false);
    for (int g = parent; g >= 0; g = parentGroup(static_cast<std::size_t>(g)))
        ancestor[static_cast<std::size_t>(g)] = true;
    if (parent >= 0) {
        const OpGroup& pg = groups_[static_cast<std::size_t>(parent)];
        if (at < pg.first || at > pg.end())
            throw std::invalid_argument("index " + std::to_string(at) + " is outside the group's ops");
    }
    for (std::size_t g = 0; g < groups_.size(); ++g)
        if (!ancestor[g] && groups_[g].first < at && at < groups_[g].end())
            throw std::invalid_argument("index " + std::to_string(at) + " is inside another group");
    const std::size_t n = sub.size();
    std::size_t place = 0;  // where sub's groups go in the list: after those before `at` and the ancestors
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        OpGroup& grp = groups_[g];
        if (ancestor[g]) {
            grp.count += n;
        } else if (grp.first >= at) {
            grp.first += n;
        }
        if (grp.first < at || (ancestor[g] && grp.first == at)) place = g + 1;
    }
    ops_.insert(ops_.begin() + static_cast<std::ptrdiff_t>(at), sub.ops_.begin(), sub.ops_.end());
    std::vector<OpGroup> added = sub.groups_;
    for (OpGroup& grp : added) grp.first += at;
    groups_.insert(groups_.begin() + static_cast<std::ptrdiff_t>(place), added.begin(), added.end());
}

Pipeline::iterator Pipeline::erase(const_iterator at) {
    const auto i = static_cast<std::size_t>(at - ops_.cbegin());
    ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(i));
    for (OpGroup& g : groups_) {
        if (g.holds(i))
            --g.count;
        else if (g.first > i)
            --g.first;
    }
    std::erase_if(groups_, [](const OpGroup& g) { return g.count == 0; });
    // A some_of that lost a child draws at most as many as it has (Albumentations clamps n too).
    const PipelineNode root = tree();
    const std::function<void(const PipelineNode&)> clamp = [&](const PipelineNode& node) {
        for (const PipelineNode& c : node.children) {
            if (c.group < 0) continue;
            OpGroup& g = groups_[static_cast<std::size_t>(c.group)];
            if (!g.replace && static_cast<std::size_t>(g.n) > c.children.size())
                g.n = static_cast<int>(c.children.size());
            clamp(c);
        }
    };
    clamp(root);
    return ops_.begin() + static_cast<std::ptrdiff_t>(i);
}

void Pipeline::moveInto(std::size_t from, std::size_t to, int parent) {
    if (from >= ops_.size() || to >= ops_.size()) throw std::invalid_argument("move outside the pipeline");
    const Pipeline before = *this;
    // The op leaves its place; a group it leaves empty stays (as a range of 0) until the op is in.
    OpConfig op = ops_[from];
    ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(from));
    for (OpGroup& g : groups_) {
        if (g.holds(from))
            --g.count;
        else if (g.first > from)
            --g.first;
    }
    try {
        // insertInto's checks read ranges; an emptied group (count 0) holds nothing and is skipped.
        insertInto(to, std::move(op), parent);
    } catch (...) {
        *this = before;
        throw;
    }
    std::erase_if(groups_, [](const OpGroup& g) { return g.count == 0; });
}

int Pipeline::stepOp(std::size_t op, int direction) {
    if (op >= ops_.size() || (direction != -1 && direction != 1)) return -1;
    const int own = groupOf(op);
    const bool up = direction < 0;
    // Out of the own group, past its near end.
    if (own >= 0) {
        const OpGroup& g = groups_[static_cast<std::size_t>(own)];
        if ((up && g.first == op) || (!up && g.end() == op + 1)) {
            moveInto(op, op, parentGroup(static_cast<std::size_t>(own)));
            return static_cast<int>(op);
        }
    }
    const std::size_t next = up ? op - 1 : op + 1;
    if ((up && op == 0) || next >= ops_.size()) return -1;
    // Into the outermost group of the neighbour that ends (begins) next to the op, in the same parent.
    for (std::size_t h = 0; h < groups_.size(); ++h) {
        const OpGroup& g = groups_[h];
        if (!g.holds(next) || g.holds(op) || parentGroup(h) != own) continue;
        if ((up && g.end() == op) || (!up && g.first == op + 1)) {
            moveInto(op, op, static_cast<int>(h));
            return static_cast<int>(op);
        }
    }
    // Past the sibling op next to it.
    moveInto(op, next, own);
    return static_cast<int>(next);
}

int Pipeline::addGroup(GroupKind kind, std::size_t first, std::size_t count) {
    const std::size_t end = first + count;
    if (count == 0 || end > ops_.size()) throw std::invalid_argument("a group needs ops of the pipeline");
    std::size_t place = 0;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        const OpGroup& o = groups_[g];
        const bool apart = o.end() <= first || end <= o.first;
        const bool holdsRange = o.first <= first && end <= o.end() && !(o.first == first && o.end() == end);
        const bool inRange = first <= o.first && o.end() <= end;
        if (!apart && !holdsRange && !inRange)
            throw std::invalid_argument("the ops cut group " + std::to_string(g) + " (" +
                                        groupKindName(o.kind) + ")");
        if (o.first < first || (holdsRange && o.first == first)) place = g + 1;
    }
    OpGroup grp;
    grp.kind = kind;
    grp.first = first;
    grp.count = count;
    grp.p = defaultGroupP(kind);
    groups_.insert(groups_.begin() + static_cast<std::ptrdiff_t>(place), grp);
    return static_cast<int>(place);
}

void Pipeline::removeGroup(std::size_t g) {
    if (g >= groups_.size()) throw std::invalid_argument("no group " + std::to_string(g));
    groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(g));
}

void Pipeline::setGroups(std::vector<OpGroup> groups) {
    if (const std::string why = groupsError(groups, ops_.size()); !why.empty())
        throw std::invalid_argument(why);
    groups_ = std::move(groups);
}

int Pipeline::groupOf(std::size_t op) const {
    int inner = -1;
    for (std::size_t g = 0; g < groups_.size(); ++g)
        if (groups_[g].holds(op)) inner = static_cast<int>(g);
    return inner;
}

int Pipeline::parentGroup(std::size_t g) const {
    int inner = -1;
    for (std::size_t h = 0; h < g && h < groups_.size(); ++h)
        if (groups_[h].first <= groups_[g].first && groups_[g].end() <= groups_[h].end())
            inner = static_cast<int>(h);
    return inner;
}

PipelineNode Pipeline::tree() const {
    return treeOf(groups_, ops_.size());
}

std::string Pipeline::path(std::size_t op) const {
    if (groups_.empty()) return "pipeline[" + std::to_string(op) + "]";
    std::string out;
    findPath(
        tree(), "pipeline", [&](const PipelineNode& n) { return n.op == static_cast<int>(op); }, out);
    return out;
}

std::string Pipeline::groupPath(std::size_t g) const {
    std::string out;
    findPath(
        tree(), "pipeline", [&](const PipelineNode& n) { return n.group == static_cast<int>(g); }, out);
    return out;
}

int pipelineOrderError(const Pipeline& pipeline, std::string& why) {
    const auto& groups = pipeline.groups();
    // The some_of or random_order group holding op i, if any: they change the order ops run in.
    const auto reorderingHolder = [&](std::size_t i) -> int {
        for (std::size_t g : holders(groups, i))
            if (groupHasCount(groups[g].kind)) return static_cast<int>(g);
        return -1;
    };
    const auto at = [&](int i) { return pipeline.path(static_cast<std::size_t>(i)); };
    int firstTraining = -1;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const int here = static_cast<int>(i);
        const OpDesc& d = pipeline[i].desc();
        if (d.category == OpCategory::Training) {
            if (const int g = reorderingHolder(i); g >= 0) {
                why = d.name + " may not be in a " + groupKindName(groups[static_cast<std::size_t>(g)].kind) +
                      " group: the training ops end the pipeline";
                return here;
            }
            if (firstTraining < 0) firstTraining = here;
            continue;
        }
        if (firstTraining >= 0) {
            why = d.name + " must come before the training ops (" + at(firstTraining) + " " +
                  pipeline[static_cast<std::size_t>(firstTraining)].name() +
                  " is before it): they end the pipeline, and the preview shows the image before them";
            return here;
        }
        if (d.mustBeFirst && (i > 0 || pipeline.groupOf(i) >= 0)) {
            why = d.name +
                  " must be the first op, outside groups: it composes whole images, which nothing may move "
                  "before it";
            return here;
        }
        if (setsFrame(pipeline[i])) {
            if (const int g = reorderingHolder(i); g >= 0) {
                why = d.name + " may not be in a " + groupKindName(groups[static_cast<std::size_t>(g)].kind) +
                      " group: it sets the size the later ops work at, so it must run before them";
                return here;
            }
        }
    }
    return -1;
}

}  // namespace auglab
