#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/op_module.h"
#include "philox.h"

namespace auglab {

namespace {

PhiloxCounter counterFor(std::uint64_t index, std::uint32_t op, std::uint32_t draw) {
    return {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), op, draw};
}

}  // namespace

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

Replay samplePipeline(const std::vector<OpConfig>& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                      int height) {
    Replay replay;
    replay.seed = seed;
    replay.index = index;
    replay.imageWidth = width;
    replay.imageHeight = height;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
        const OpConfig& op = pipeline[i];
        const OpDraws draws(seed, index, static_cast<std::uint32_t>(i));
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
