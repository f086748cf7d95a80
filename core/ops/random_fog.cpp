// random_fog: Albumentations 2.0.8 RandomFog on 8-bit RGB (pixel/transforms.py RandomFog,
// functional.py add_fog): intensity ~ U(fog_coef_range); particles in up to ten shrinking regions
// about the centre (each region w x h holds int(w h / s^2 * intensity * 10) of them, s the fog
// region size int(width // 3 * intensity), at least 1; positions randint over the region, both ends
// included; the region shrinks to int(0.9 w) x int(0.9 h) while both sides exceed s), radii
// integers(max(1, m // 2), m) with m = max(2, int(min(h, w) * 0.1 * intensity)) (the upper end left
// out, as numpy's integers does); each particle's filled circle blended towards white with weight
// alpha_coef * intensity, in order (a FogStep); then cv2.GaussianBlur with an odd size of
// max(3, min(h, w) // 30) and sigma 0 (a BlurStep with the taps of OpenCV's 8-bit fixed-point path,
// gaussianTaps8u: the same sums; only exact halves round to even here, up there). The draws are AugLab's
// counter-based ones (the same distributions); the replay lists every particle. A thin fog means many tiny
// particles: the most, about 280 / width per pixel, near fog 2 / (width // 3) (113,079 on a 640 x 427 photo
// at 0.009; some 800,000 on a 4000 x 3000 one). The GPU backends draw the particles on the host as
// keys and tables (core/keyed_tables.h) and blend on the device. Everything
// AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/random_fog.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "colour.h"
#include "error.h"
#include "export_common.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

using Json = nlohmann::ordered_json;
using namespace params;
using namespace replay_fields;

constexpr std::uint32_t kIntensityDraw = 1, kFirstParticleDraw = 16;  // 3 draws per particle

/// The particles of a fog of `intensity` on a w x h frame, drawn from `d` (the library's loop).
std::vector<std::array<int, 3>> fogParticles(const OpDraws& d, double intensity, int w, int h) {
    std::vector<std::array<int, 3>> out;
    const int region = std::max(1, static_cast<int>((w / 3) * intensity));
    const int cx = static_cast<int>(w / 2.0 - 0.5), cy = static_cast<int>(h / 2.0 - 0.5);
    const int maxRadius = std::max(2, static_cast<int>(std::min(h, w) * 0.1 * intensity));
    const int minRadius = std::max(1, maxRadius / 2);
    std::uint32_t draw = kFirstParticleDraw;
    int cw = w, ch = h;
    for (int iteration = 0; cw > region && ch > region && iteration < 10; ++iteration) {
        const double area = double(cw) * double(ch);
        const auto n = static_cast<long long>(area / (double(region) * double(region)) * intensity * 10);
        for (long long i = 0; i < n; ++i, draw += 3) {
            const auto x = static_cast<int>(d.randint(draw, cx - cw / 2, cx + cw / 2));
            const auto y = static_cast<int>(d.randint(draw + 1, cy - ch / 2, cy + ch / 2));
            const auto r = static_cast<int>(d.randint(draw + 2, minRadius, maxRadius - 1));
            out.push_back({x, y, r});
        }
        cw = static_cast<int>(cw * (1 - 0.1));
        ch = static_cast<int>(ch * (1 - 0.1));
    }
    return out;
}

class RandomFogModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(id, "random_fog", "Fog", OpCategory::Pixel,
                          "Albumentations 2.0.8 RandomFog: white discs blended in about the centre, "
                          "then a light blur; the coefficient sets how dense and how large.",
                          {
                              floatRange("fog_coef", "Fog", "", 0, 1, {0.3, 1},
                                         "The fog coefficient: particle size and count, and each "
                                         "particle's weight (with alpha_coef)."),
                              number("alpha_coef", "Particle opacity", "", 0, 1, 0.08,
                                     "Each particle's blend weight per unit of fog."),
                          });
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int w, int h) const override {
        FogParams p;
        p.intensity = d.uniform(kIntensityDraw, op.range("fog_coef"));
        p.alphaCoef = op.number("alpha_coef");
        p.particles = fogParticles(d, p.intensity, w, h);
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<FogParams>(params);
        j["intensity"] = p.intensity;
        j["alpha_coef"] = p.alphaCoef;
        Json particles = Json::array();
        for (const auto& pt : p.particles) particles.push_back({pt[0], pt[1], pt[2]});
        j["particles"] = std::move(particles);
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "intensity", "alpha_coef", "particles"});
        FogParams p;
        p.intensity = num(r, "intensity", 0, 1);
        p.alphaCoef = num(r, "alpha_coef", 0, 1);
        const JsonReader list = r.member("particles");
        for (std::size_t i = 0, n = list.arraySize(); i < n; ++i) {
            const JsonReader pt = list.element(i);
            if (pt.arraySize() != 3) pt.fail("expected [x, y, radius]");
            p.particles.push_back({int(pt.element(0).integer(-1'000'000, 1'000'000)),
                                   int(pt.element(1).integer(-1'000'000, 1'000'000)),
                                   int(pt.element(2).integer(1, 1'000'000))});
        }
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<FogParams>(params);
        if (key == "fog_coef") return {p.intensity};
        // How many particles, and where and how large the first is (the library's test compares them).
        if (key == "particle_count") return {double(p.particles.size())};
        if (key == "first_x" && !p.particles.empty()) return {double(p.particles[0][0])};
        if (key == "first_radius" && !p.particles.empty()) return {double(p.particles[0][2])};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<FogParams>(params);
        const double sx = b.sx(), sy = b.sy(), s = 0.5 * (sx + sy);
        FogStep fog;
        fog.alpha = static_cast<float>(p.alphaCoef * p.intensity);
        fog.beta = static_cast<float>(1 - p.alphaCoef * p.intensity);
        fog.particles.reserve(p.particles.size());
        for (const auto& pt : p.particles)  // at tile scale, the discs scaled with the frame
            fog.particles.push_back({static_cast<int>(std::floor((pt[0] + 0.5) * sx)),
                                     static_cast<int>(std::floor((pt[1] + 0.5) * sy)),
                                     std::max(1, static_cast<int>(std::lround(pt[2] * s)))});
        b.pixel(std::move(fog));
        int k = std::max(3, std::min(b.stageWidth(), b.stageHeight()) / 30);
        if (k % 2 == 0) ++k;
        const std::vector<double> taps = gaussianTaps8u(k);
        b.pixel(BlurStep{std::vector<float>(taps.begin(), taps.end())});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"RandomFog"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("RandomFog", e.op->p);
        j["alpha_coef"] = e.op->number("alpha_coef");
        j["fog_coef_range"] = pair(e.op->range("fog_coef"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion& v) const override {
        if (v.before2())
            return {{"p", 0.5}, {"alpha_coef", 0.08}, {"fog_coef_lower", 0.3}, {"fog_coef_upper", 1.0}};
        return {{"p", 0.5}, {"alpha_coef", 0.08}, {"fog_coef_range", {0.3, 1.0}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        if (a.version().before2() && !a.find({"fog_coef_range"})) {
            const JsonReader lo = a.get("fog_coef_lower"), hi = a.get("fog_coef_upper");
            op.set("fog_coef", a.clamp(lo, Range{lo.number(), hi.number()}, 0, 1));
        } else {
            const JsonReader r = a.get("fog_coef_range");
            op.set("fog_coef", a.clamp(r, pair(r), 0, 1));
        }
        const JsonReader alpha = a.get("alpha_coef");
        const double v = alpha.number();
        if (v < 0 || v > 1) a.fail(alpha, "alpha_coef must be in [0, 1]");
        op.set("alpha_coef", v);
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "RandomFog");
    }
};

}  // namespace

const OpModule& randomFogModule() {
    static const RandomFogModule module;
    return module;
}

}  // namespace auglab
