#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "error.h"
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

Replay samplePipeline(const std::vector<OpConfig>& pipeline, std::uint64_t seed, std::uint64_t index,
                      int width, int height, const PartnerPool& pool) {
    if (pool.count == 0 || pool.self >= pool.count)
        throw InputError("the partner pool has " + std::to_string(pool.count) + " images; this sample's is number " +
                         std::to_string(pool.self));
    Replay replay;
    replay.seed = seed;
    replay.index = index;
    replay.imageWidth = width;
    replay.imageHeight = height;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const OpConfig& op = pipeline[i];
        const OpDraws draws(seed, index, static_cast<std::uint32_t>(i), pool);
        ConcreteOp c;
        c.id = op.id();
        const double gate = draws.uniform(kGateDraw);
        c.applied = op.enabled && gate < op.p;
        if (c.applied) {
            const OpModule& module = opModule(op.id());
            c.params = module.sample(op, draws, width, height);
            module.frameAfter(c.params, width, height);  // the ops after a crop work on the resized crop
        }
        replay.ops.push_back(std::move(c));
    }
    return replay;
}

}  // namespace auglab
