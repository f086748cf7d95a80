#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "error.h"
#include "image_io.h"
#include "ops/op_module.h"
#include "philox.h"

namespace auglab {

namespace {

PhiloxCounter counterFor(std::uint64_t index, std::uint32_t op, std::uint32_t draw) {
    return {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), op, draw};
}

}  // namespace

namespace {

/// log Γ(v) for v > 0 without std::lgamma's write to the global signgam (samples are drawn on many
/// threads at once).
double logGamma(double v) {
#if defined(__GLIBC__) || defined(__APPLE__)
    int sign = 0;
    return ::lgamma_r(v, &sign);
#else
    return std::lgamma(v);
#endif
}

/// The continued fraction of I_x(a, b) / (x^a (1-x)^b / (a B(a, b))), modified Lentz.
double betaFraction(double x, double a, double b) {
    constexpr double tiny = 1e-300;
    const auto guard = [](double v) { return std::abs(v) < tiny ? tiny : v; };
    double c = 1.0, d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0)), h = d;
    for (int m = 1; m <= 1000; ++m) {
        const double m2 = 2.0 * m;
        double t = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));  // even step
        d = 1.0 / guard(1.0 + t * d);
        c = guard(1.0 + t / c);
        h *= d * c;
        t = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));  // odd step
        d = 1.0 / guard(1.0 + t * d);
        c = guard(1.0 + t / c);
        const double step = d * c;
        h *= step;
        if (std::abs(step - 1.0) < 1e-16) break;
    }
    return h;
}

}  // namespace

double regularizedIncompleteBeta(double x, double a, double b) {
    if (x <= 0) return 0.0;
    if (x >= 1) return 1.0;
    const double logFront =
        logGamma(a + b) - logGamma(a) - logGamma(b) + a * std::log(x) + b * std::log1p(-x);
    // The fraction converges fast below (a + 1) / (a + b + 2); above, I_x(a, b) = 1 - I_{1-x}(b, a).
    if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(logFront) * betaFraction(x, a, b) / a;
    return 1.0 - std::exp(logFront) * betaFraction(1.0 - x, b, a) / b;
}

double OpDraws::beta(std::uint32_t draw, double a, double b) const {
    const double u = uniform(draw);
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200 && hi - lo > 1e-16; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (regularizedIncompleteBeta(mid, a, b) < u)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double OpDraws::uniform(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    return uniformFromWords(r[0], r[1]);
}

double OpDraws::uniform(std::uint32_t draw, double a, double b) const {
    if (a == b) return a;  // fixed values are exact, whatever the draw
    return a + (b - a) * uniform(draw);
}

std::int64_t OpDraws::randint(std::uint32_t draw, std::int64_t a, std::int64_t b) const {
    if (b <= a) return a;
    const auto span = static_cast<double>(b - a + 1);
    const auto k = static_cast<std::int64_t>(std::floor(uniform(draw) * span));
    return a + std::min<std::int64_t>(k, b - a);
}

double OpDraws::normal(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    const double u1 = 1.0 - uniformFromWords(r[0], r[1]);  // (0, 1]: the log is finite
    const double u2 = uniformFromWords(r[2], r[3]);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
}

std::uint64_t OpDraws::bits64(std::uint32_t draw) const {
    const PhiloxCounter r = philox4x32(counterFor(index_, op_, draw), philoxKey(seed_));
    return (static_cast<std::uint64_t>(r[2]) << 32) | r[3];
}

std::uint64_t OpDraws::partner(std::uint32_t draw) const {
    if (pool_.count <= 1) return 0;
    const auto k = static_cast<std::uint64_t>(randint(draw, 0, static_cast<std::int64_t>(pool_.count) - 2));
    return k >= pool_.self ? k + 1 : k;  // every image but the sample's own
}

namespace {

// The counter's op word: op i draws at i, its k-th repeat (a some_of with replacement) at
// i + k * kRepeatStride, group g at kGroupBase + g. Without groups, op i draws at i as it always has.
constexpr std::uint32_t kRepeatStride = 1u << 20;
constexpr std::uint32_t kGroupBase = 1u << 31;
// A group's draws: 0 its gate, then one per child chosen.
constexpr std::uint32_t kFirstChoiceDraw = 1;

/// Walks the pipeline's tree for one sample, appending each op's entry to the replay as it runs.
class TreeSampler {
public:
    TreeSampler(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, const PartnerPool& pool,
                Replay& replay)
        : pipeline_(pipeline),
          seed_(seed),
          index_(index),
          pool_(pool),
          replay_(replay),
          runs_(pipeline.size(), 0) {}

    void children(const PipelineNode& node) {
        for (const PipelineNode& c : node.children) run(c, false);
    }
    /// A pipeline without groups: every op in order (no tree to build per sample).
    void flat() {
        for (std::size_t i = 0; i < pipeline_.size(); ++i) runOp(i, false);
    }

private:
    bool enabled(const PipelineNode& n) const {
        return n.op >= 0 ? pipeline_[static_cast<std::size_t>(n.op)].enabled
                         : pipeline_.groups()[static_cast<std::size_t>(n.group)].enabled;
    }
    double weight(const PipelineNode& n) const {
        return n.op >= 0 ? pipeline_[static_cast<std::size_t>(n.op)].p
                         : pipeline_.groups()[static_cast<std::size_t>(n.group)].p;
    }

    /// Runs `node`; `forced`: a one_of chose it, so it runs whatever its own p (Albumentations'
    /// force_apply, which its SomeOf and RandomOrder ignore).
    void run(const PipelineNode& node, bool forced) {
        if (node.op >= 0) {
            runOp(static_cast<std::size_t>(node.op), forced);
            return;
        }
        const OpGroup& g = pipeline_.groups()[static_cast<std::size_t>(node.group)];
        const OpDraws draws(seed_, index_, kGroupBase + static_cast<std::uint32_t>(node.group), pool_);
        const bool gate = draws.uniform(kGateDraw) < g.p;
        const bool runs = g.enabled && (groupHasCount(g.kind) ? gate : forced || gate);
        std::vector<std::size_t> candidates;  // the enabled children: a disabled one is as if absent
        for (std::size_t c = 0; c < node.children.size(); ++c)
            if (enabled(node.children[c])) candidates.push_back(c);
        if (!runs || candidates.empty()) {
            skip(node);
            return;
        }
        switch (g.kind) {
            case GroupKind::Sequential:
                for (const PipelineNode& c : node.children) run(c, false);
                return;
            case GroupKind::OneOf: {
                double total = 0;
                for (std::size_t c : candidates) total += weight(node.children[c]);
                if (!(total > 0)) {
                    skip(node);
                    return;
                }
                // The child whose share of the weights holds u (the last candidate with a weight if
                // rounding leaves u past every share).
                const double u = draws.uniform(kFirstChoiceDraw) * total;
                std::size_t chosen = candidates.back();
                double acc = 0;
                for (std::size_t c : candidates) {
                    const double w = weight(node.children[c]);
                    if (w <= 0) continue;
                    chosen = c;
                    acc += w;
                    if (u < acc) break;
                }
                for (std::size_t c = 0; c < node.children.size(); ++c)
                    if (c == chosen)
                        run(node.children[c], true);
                    else
                        skip(node.children[c]);
                return;
            }
            case GroupKind::SomeOf:
            case GroupKind::RandomOrder: {
                const std::size_t m = candidates.size();
                const std::size_t n =
                    g.replace ? static_cast<std::size_t>(g.n) : std::min<std::size_t>(g.n, m);
                std::vector<std::size_t> drawn;  // children, in the order drawn
                std::vector<std::size_t> pool = candidates;
                for (std::size_t k = 0; k < n; ++k) {
                    const auto draw = kFirstChoiceDraw + static_cast<std::uint32_t>(k);
                    if (g.replace) {
                        drawn.push_back(candidates[static_cast<std::size_t>(
                            draws.randint(draw, 0, std::int64_t(m) - 1))]);
                    } else {
                        const auto at =
                            static_cast<std::size_t>(draws.randint(draw, 0, std::int64_t(pool.size()) - 1));
                        drawn.push_back(pool[at]);
                        pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(at));
                    }
                }
                if (g.kind == GroupKind::SomeOf) {
                    // In pipeline order, a child drawn twice running twice in a row.
                    for (std::size_t c = 0; c < node.children.size(); ++c) {
                        const auto times = std::count(drawn.begin(), drawn.end(), c);
                        if (times == 0) skip(node.children[c]);
                        for (std::ptrdiff_t t = 0; t < times; ++t) run(node.children[c], false);
                    }
                } else {
                    for (std::size_t c : drawn) run(node.children[c], false);
                    for (std::size_t c = 0; c < node.children.size(); ++c)
                        if (std::find(drawn.begin(), drawn.end(), c) == drawn.end()) skip(node.children[c]);
                }
                return;
            }
        }
    }

    void runOp(std::size_t i, bool forced) {
        const OpConfig& op = pipeline_[i];
        const std::uint32_t repeat = runs_[i]++;
        const OpDraws draws(seed_, index_, static_cast<std::uint32_t>(i) + repeat * kRepeatStride, pool_);
        ConcreteOp c;
        c.id = op.id();
        c.position = static_cast<std::uint32_t>(i);
        const double gate = draws.uniform(kGateDraw);
        c.applied = op.enabled && (forced || gate < op.p);
        if (c.applied) {
            const OpModule& module = opModule(op.id());
            c.params = module.sample(op, draws, width_, height_);
            const int fromW = width_, fromH = height_;
            module.frameAfter(c.params, width_, height_);  // the ops after a crop work on the resized crop
            // Every frame is an image the render holds: no larger than an image AugLab reads (a
            // smallest_max_size of a 1 x 100,000,000 image would be 10^11 pixels).
            if (width_ < 1 || height_ < 1 || std::int64_t{width_} * height_ > kMaxImagePixels)
                throw FrameSizeError(opDesc(op.id()).name + " makes a " + std::to_string(height_) + " x " +
                                     std::to_string(width_) + " image (H x W) of the " + std::to_string(fromH) +
                                     " x " + std::to_string(fromW) + " one, over the " +
                                     std::to_string(kMaxImagePixels / 1'000'000) +
                                     " megapixel limit of an image in AugLab");
        }
        replay_.ops.push_back(std::move(c));
    }

    /// The ops under `node` that have not run yet keep their place with applied = false.
    void skip(const PipelineNode& node) {
        if (node.op >= 0) {
            const auto i = static_cast<std::size_t>(node.op);
            if (runs_[i] > 0) return;
            runs_[i] = 1;
            ConcreteOp c;
            c.id = pipeline_[i].id();
            c.position = static_cast<std::uint32_t>(i);
            replay_.ops.push_back(std::move(c));
            return;
        }
        for (const PipelineNode& c : node.children) skip(c);
    }

    const Pipeline& pipeline_;
    std::uint64_t seed_, index_;
    PartnerPool pool_;
    Replay& replay_;
    std::vector<std::uint32_t> runs_;

public:
    int width_ = 0, height_ = 0;  // the frame the next op works on
};

}  // namespace

Replay samplePipeline(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                      int height, const PartnerPool& pool) {
    if (pool.count == 0 || pool.self >= pool.count)
        throw InputError("the partner pool has " + std::to_string(pool.count) +
                         " images; this sample's is number " + std::to_string(pool.self));
    Replay replay;
    replay.seed = seed;
    replay.index = index;
    replay.imageWidth = width;
    replay.imageHeight = height;
    replay.ops.reserve(pipeline.size());
    TreeSampler sampler(pipeline, seed, index, pool, replay);
    sampler.width_ = width;
    sampler.height_ = height;
    if (pipeline.groups().empty())
        sampler.flat();
    else
        sampler.children(pipeline.tree());
    return replay;
}

}  // namespace auglab
