// planckian_jitter: Albumentations 2.0.8 PlanckianJitter. A temperature is drawn (below the white
// point 6000 K with odds 0.4, uniformly or as the absolute of a normal, clipped to the range, int());
// the library's chromaticity table (black body, or CIE D illuminants), interpolated between its 500 K
// steps, gives R and B gains relative to G, applied as albucore's uint8 multiply tables (a LutStep:
// every backend has it). Everything AugLab knows about the op is here (core/ops/op_module.h,
// docs/adding-an-op.md).

#include "ops/planckian_jitter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
#include "export_common.h"
#include "ops/multiplicative_noise.h"
#include "ops/op_module.h"
#include "ops/param_builders.h"
#include "ops/replay_fields.h"
#include "plan.h"
#include "plan_builder.h"
#include "sampler.h"

namespace auglab {

namespace {

constexpr int kWhite = 6000, kMaxTemp = 15000, kStep = 500;
constexpr double kBelowWhite = 0.4;  // the odds of a temperature below the white point

// Albumentations 2.0.8's PLANCKIAN_COEFFS (RGB chromaticities per 500 K from the first key): the
// black body from 3000 K, the CIE D illuminants from 4000 K.
constexpr std::array<std::array<double, 3>, 25> kBlackBody{{
    {0.6743, 0.4029, 0.0013}, {0.6281, 0.4241, 0.1665}, {0.5919, 0.4372, 0.2513}, {0.5623, 0.4457, 0.3154},
    {0.5376, 0.4515, 0.3672}, {0.5163, 0.4555, 0.4103}, {0.4979, 0.4584, 0.4468}, {0.4816, 0.4604, 0.4782},
    {0.4672, 0.4619, 0.5053}, {0.4542, 0.4630, 0.5289}, {0.4426, 0.4638, 0.5497}, {0.4320, 0.4644, 0.5681},
    {0.4223, 0.4648, 0.5844}, {0.4135, 0.4651, 0.5990}, {0.4054, 0.4653, 0.6121}, {0.3980, 0.4654, 0.6239},
    {0.3911, 0.4655, 0.6346}, {0.3847, 0.4656, 0.6444}, {0.3787, 0.4656, 0.6532}, {0.3732, 0.4656, 0.6613},
    {0.3680, 0.4655, 0.6688}, {0.3632, 0.4655, 0.6756}, {0.3586, 0.4655, 0.6820}, {0.3544, 0.4654, 0.6878},
    {0.3503, 0.4653, 0.6933},
}};
constexpr std::array<std::array<double, 3>, 23> kCieD{{
    {0.5829, 0.4421, 0.2288}, {0.5510, 0.4514, 0.2948}, {0.5246, 0.4576, 0.3488}, {0.5021, 0.4618, 0.3941},
    {0.4826, 0.4646, 0.4325}, {0.4654, 0.4667, 0.4654}, {0.4502, 0.4681, 0.4938}, {0.4364, 0.4692, 0.5186},
    {0.4240, 0.4700, 0.5403}, {0.4127, 0.4705, 0.5594}, {0.4023, 0.4709, 0.5763}, {0.3928, 0.4713, 0.5914},
    {0.3839, 0.4715, 0.6049}, {0.3757, 0.4716, 0.6171}, {0.3681, 0.4717, 0.6281}, {0.3609, 0.4718, 0.6380},
    {0.3543, 0.4719, 0.6472}, {0.3480, 0.4719, 0.6555}, {0.3421, 0.4719, 0.6631}, {0.3365, 0.4719, 0.6702},
    {0.3313, 0.4719, 0.6766}, {0.3263, 0.4719, 0.6826}, {0.3217, 0.4719, 0.6882},
}};

int minTemperature(bool cied) {
    return cied ? 4000 : 3000;
}

const std::array<double, 3>& coefficients(bool cied, int t) {
    const std::size_t i = static_cast<std::size_t>((t - minTemperature(cied)) / kStep);
    return cied ? kCieD[i] : kBlackBody[i];
}

}  // namespace

std::array<double, 2> planckianGains(int temperature, bool cied) {
    const int lo = minTemperature(cied);
    const int t = std::clamp(temperature, lo, kMaxTemp);
    const int left = std::max(t / kStep * kStep, lo), right = std::min((t / kStep + 1) * kStep, kMaxTemp);
    std::array<double, 3> c = coefficients(cied, left);
    if (left != right) {
        const double wRight = double(t - left) / double(right - left), wLeft = 1 - wRight;
        const auto& a = coefficients(cied, left);
        const auto& b = coefficients(cied, right);
        for (std::size_t k = 0; k < 3; ++k) c[k] = wLeft * a[k] + wRight * b[k];
    }
    return {c[0] / c[1], c[2] / c[1]};
}

namespace {

using Json = nlohmann::ordered_json;
using namespace params;

class PlanckianJitterModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d = makeOp(
            id, "planckian_jitter", "Planckian jitter", OpCategory::Pixel,
            "Albumentations PlanckianJitter: the colour cast of a light of another temperature. A "
            "temperature is drawn (below the 6000 K white point with odds 0.4), the library's "
            "chromaticity table interpolated between its 500 K steps gives R and B gains relative to G, "
            "applied as uint8 multiply tables (clipped, truncated).",
            {choice("mode", "Illuminant", {"blackbody", "cied"}, "blackbody",
                    "The table: a black body (3000-15000 K) or the CIE D illuminants (4000-15000 K)."),
             intRange("temperature", "Temperature", "K", 3000, kMaxTemp, {3000, kMaxTemp},
                      "The temperatures drawn from (Albumentations' temperature_limit); the library "
                      "needs 6000 K inside, and 4000 K or more for cied."),
             choice("sampling", "Sampling", {"uniform", "gaussian"}, "uniform",
                    "uniform: uniform on the chosen side of 6000 K; gaussian: 6000 K plus or minus the "
                    "absolute of a normal of a third of that side's length.")});
        params::typical(d, "temperature", 3000, kMaxTemp);
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        PlanckianParams p;
        p.cied = op.choice("mode") == "cied";
        const Range r = op.range("temperature");
        const bool below = d.uniform(1) < kBelowWhite;
        double t = 0;
        if (op.choice("sampling") == "uniform") {
            t = below ? d.uniform(2, r.min, kWhite) : d.uniform(2, kWhite, r.max);
        } else {
            const double side = below ? std::abs(kWhite - r.min) : std::abs(r.max - kWhite);
            const double shift = std::abs(d.normal(2) * side / 3);
            t = below ? kWhite - shift : kWhite + shift;
        }
        p.temperature = static_cast<int>(std::clamp(t, r.min, r.max));
        return p;
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<PlanckianParams>(params);
        j["temperature"] = p.temperature;
        j["mode"] = p.cied ? "cied" : "blackbody";
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "temperature", "mode"});
        PlanckianParams p;
        p.temperature = static_cast<int>(r.member("temperature").integer(3000, kMaxTemp));
        const JsonReader mode = r.member("mode");
        const std::string m = mode.string();
        if (m != "blackbody" && m != "cied") mode.fail("expected \"blackbody\" or \"cied\"");
        p.cied = m == "cied";
        return p;
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        if (key == "temperature") return {double(std::get<PlanckianParams>(params).temperature)};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<PlanckianParams>(params);
        const std::array<double, 2> g = planckianGains(p.temperature, p.cied);
        Lut identity{};
        for (int v = 0; v < 256; ++v) identity[std::size_t(v)] = static_cast<std::uint8_t>(v);
        b.pixel(LutStep(std::array<Lut, 3>{albucoreMultiplyLut(g[0]), identity, albucoreMultiplyLut(g[1])}));
    }

    std::vector<std::string> albumentationsClasses() const override { return {"PlanckianJitter"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>& warnings) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        const bool cied = op.choice("mode") == "cied";
        const Range r = op.range("temperature");
        // The library refuses a range without the white point, or below the table (cied): written
        // as the nearest range it takes.
        const Range fixed{std::min<double>(std::max<double>(r.min, minTemperature(cied)), kWhite),
                          std::max<double>(r.max, kWhite)};
        if (fixed != r)
            warnings.push_back(e.label() + ": Albumentations needs 6000 K inside the temperature range" +
                               (cied ? " and 4000 K or more for cied" : "") + ": written as [" +
                               formatNumber(fixed.min) + ", " + formatNumber(fixed.max) + "].");
        Json j = start("PlanckianJitter", op.p);
        j["mode"] = op.choice("mode");
        j["sampling_method"] = op.choice("sampling");
        j["temperature_limit"] = intPair(fixed);
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"mode", "blackbody"}, {"temperature_limit", nullptr}, {"sampling_method", "uniform"}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader mode = a.get("mode");
        const std::string m = mode.string();
        if (m != "blackbody" && m != "cied") mode.fail("expected \"blackbody\" or \"cied\"");
        op.set("mode", m);
        const JsonReader sampling = a.get("sampling_method");
        const std::string s = sampling.string();
        if (s != "uniform" && s != "gaussian") sampling.fail("expected \"uniform\" or \"gaussian\"");
        op.set("sampling", s);
        const JsonReader limit = a.get("temperature_limit");
        if (limit.json().is_null())  // the library's default: the mode's whole table
            op.set("temperature", Range{double(minTemperature(m == "cied")), double(kMaxTemp)});
        else
            op.set("temperature", a.clamp(limit, pair(limit), 3000, kMaxTemp));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        using namespace exporting;
        const OpConfig& op = *e.op;
        switch (x.target) {
            case PythonTarget::Torchvision:
                x.helperUsed = true;
                x.lines += "    " +
                           torchvisionWithP("PlanckianJitter(mode=" + pyString(op.choice("mode")) +
                                                ", temperature=" + pyIntRange(op.range("temperature")) +
                                                ", sampling=" + pyString(op.choice("sampling")) + ")",
                                            op.p) +
                           ",\n";
                return;
            case PythonTarget::Keras:
                notExported(e, x, e.label() + ": the Keras export has no Planckian jitter layer yet; left out.");
                return;
            case PythonTarget::TfDeotte:
                notInTfDeotte(e, x);
                return;
            case PythonTarget::Dali:
                x.lines += "    # " + e.label() + "\n";
                notExported(e, x, e.label() + ": the DALI export has no Planckian jitter yet; left out of the DALI pipeline.");
                return;
        }
    }

    std::string pythonHelper(PythonTarget t) const override {
        if (t != PythonTarget::Torchvision) return {};
        // The tables written from the ones the op uses.
        const auto table = [](const auto& rows, int from) {
            std::string s = "{";
            for (std::size_t i = 0; i < rows.size(); ++i) {
                s += (i % 3 == 0 ? "\n            " : " ") + std::to_string(from + int(i) * kStep) + ": (";
                for (std::size_t k = 0; k < 3; ++k) s += (k ? ", " : "") + formatNumber(rows[i][k]);
                s += "),";
            }
            return s + "\n        }";
        };
        return R"(

class PlanckianJitter(torch.nn.Module):
    """AugLab planckian_jitter (Albumentations 2.0.8 PlanckianJitter): a temperature drawn below 6000 K
    with odds 0.4 (uniform on that side, or 6000 K minus / plus the absolute of a normal of a third of
    the side), clipped to the range, int(); the chromaticity table interpolated between its 500 K
    steps; R and B times their gain relative to G in float32, clipped, truncated (albucore's uint8
    multiply table); alpha kept."""

    TABLES = {
        "blackbody": )" +
               table(kBlackBody, 3000) + R"(,
        "cied": )" + table(kCieD, 4000) +
               R"(,
    }

    def __init__(self, mode, temperature, sampling):
        super().__init__()
        self.mode, self.temperature, self.sampling = mode, temperature, sampling

    def draw(self):
        lo, hi = self.temperature
        below = float(torch.rand((), dtype=torch.float64)) < 0.4
        if self.sampling == "uniform":
            a, b = (lo, 6000.0) if below else (6000.0, hi)
            t = a + (b - a) * float(torch.rand((), dtype=torch.float64))
        else:
            shift = abs(float(torch.randn((), dtype=torch.float64)) * abs((6000.0 - lo) if below else (hi - 6000.0)) / 3)
            t = 6000.0 - shift if below else 6000.0 + shift
        return int(min(max(t, lo), hi))

    def gains(self, t):
        table = self.TABLES[self.mode]
        first, last = min(table), max(table)
        t = min(max(t, first), last)
        left, right = max(t // 500 * 500, first), min((t // 500 + 1) * 500, last)
        c = table[left]
        if left != right:
            w = (t - left) / (right - left)
            c = [(1 - w) * a + w * b for a, b in zip(table[left], table[right])]
        return c[0] / c[1], c[2] / c[1]

    def forward(self, img):  # uint8 tensor, C x H x W
        red, blue = self.gains(self.draw())
        out = img.clone()
        for channel, gain in ((0, red), (2, blue)):
            scaled = img[channel].float() * torch.tensor(gain, dtype=torch.float32)
            out[channel] = scaled.clamp(0, 255).to(torch.uint8)
        return out
)";
    }
};

}  // namespace

const OpModule& planckianJitterModule() {
    static const PlanckianJitterModule module;
    return module;
}

}  // namespace auglab
