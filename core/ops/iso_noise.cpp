// iso_noise: Albumentations 2.0.8 ISONoise on 8-bit images (pixel/functional.py iso_noise): color_shift
// and intensity drawn uniformly; the image as float32 v / 255 in OpenCV's float HLS; lambda =
// intensity x the standard deviation of L; per pixel a Poisson(lambda) count k and a normal hue offset
// of std color_shift x intensity (in degrees: the library adds it to OpenCV's 0-360 hue, so it moves a
// hue by hundredths of a degree); L += k x intensity x (1 - L); back to RGB, clipped, rint(x * 255).
// The noise is AugLab's own per-pixel stream (IsoNoise, keyed by the replay's noise_seed): a sample
// is reproducible from (seed, index), not the library's numbers, so the parity test feeds the library
// that noise. An IsoNoiseStep: on the CUDA device (lambda from the (max, min) counts, the draws from
// the same per-pixel words and float32 maths; libdevice's exp(-lambda) may move a count at a
// threshold's edge), on the host for the GL backend (OpDesc::runsOnHostGl). On the CPU the count is
// a comparison with thresholds tabled once per image and the normal the float32 Box-Muller of the
// Gaussian noise (philox.h), in vector lanes (core/cpu/noise_rows.cpp).
// Everything AugLab knows about the op is here (core/ops/op_module.h, docs/adding-an-op.md).

#include "ops/iso_noise.h"

#include <string>
#include <vector>

#include "albumentations_args.h"
#include "albumentations_common.h"
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

constexpr std::uint32_t kColorShiftDraw = 1, kIntensityDraw = 3;  // kNoiseKeyDraw is 2
constexpr double kIntensityMax = 10;

class IsoNoiseModule final : public OpModule {
public:
    OpDesc describe(OpId id) const override {
        OpDesc d =
            makeOp(id, "iso_noise", "ISO noise", OpCategory::Pixel,
                   "Albumentations 2.0.8 ISONoise: camera sensor noise, a Poisson brightening of "
                   "each pixel's HLS lightness scaled by the image's own spread of lightness.",
                   {
                       floatRange("color_shift", "Colour shift", "hue std / intensity", 0, 1, {0.01, 0.05},
                                  "The hue noise's std over intensity (the library adds it in "
                                  "degrees of hue: barely visible)."),
                       floatRange("intensity", "Intensity", "", 0, kIntensityMax, {0.1, 0.5},
                                  "Scales the Poisson rate and each count's brightening."),
                   });
        params::typical(d, "intensity", 0, 2);
        d.runsOnHostGl = true;
        return d;
    }

    OpParams sample(const OpConfig& op, const OpDraws& d, int, int) const override {
        return IsoNoiseParams{d.uniform(kColorShiftDraw, op.range("color_shift")),
                              d.uniform(kIntensityDraw, op.range("intensity")), d.bits64(kNoiseKeyDraw)};
    }

    void writeReplay(const OpParams& params, Json& j) const override {
        const auto& p = std::get<IsoNoiseParams>(params);
        j["color_shift"] = p.colorShift;
        j["intensity"] = p.intensity;
        j["noise_seed"] = std::to_string(p.noiseSeed);  // a string: doubles would round it
    }

    OpParams readReplay(const JsonReader& r) const override {
        r.requireObject({"op", "applied", "color_shift", "intensity", "noise_seed"});
        return IsoNoiseParams{num(r, "color_shift", 0, 1), num(r, "intensity", 0, kIntensityMax),
                              r.member("noise_seed").unsignedInteger64()};
    }

    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int, int) const override {
        const auto& p = std::get<IsoNoiseParams>(params);
        if (key == "color_shift") return {p.colorShift};
        if (key == "intensity") return {p.intensity};
        return {};
    }

    void lower(const OpParams& params, PlanBuilder& b) const override {
        const auto& p = std::get<IsoNoiseParams>(params);
        b.pixel(IsoNoiseStep{p.colorShift * p.intensity, p.intensity, p.noiseSeed});
    }

    std::vector<std::string> albumentationsClasses() const override { return {"ISONoise"}; }

    Json albumentationsTransform(const exporting::ExportedOp& e, exporting::AlbumentationsFlavour,
                                 std::vector<std::string>&) const override {
        using namespace exporting;
        Json j = start("ISONoise", e.op->p);
        j["color_shift"] = pair(e.op->range("color_shift"));
        j["intensity"] = pair(e.op->range("intensity"));
        return j;
    }

    nlohmann::json albumentationsDefaults(const std::string&,
                                          const exporting::LibraryVersion&) const override {
        return {{"p", 0.5}, {"color_shift", {0.01, 0.05}}, {"intensity", {0.1, 0.5}}};
    }

    void readAlbumentations(exporting::TransformArgs& a, OpConfig& op) const override {
        using namespace exporting;
        const JsonReader shift = a.get("color_shift"), intensity = a.get("intensity");
        op.set("color_shift", a.clamp(shift, pair(shift), 0, 1));
        op.set("intensity", a.clamp(intensity, pair(intensity), 0, kIntensityMax));
    }

    void toPython(const exporting::ExportedOp& e, PythonExport& x) const override {
        exporting::onlyInAlbumentations(e, x, "ISO noise");
    }
};

}  // namespace

const OpModule& isoNoiseModule() {
    static const IsoNoiseModule module;
    return module;
}

}  // namespace auglab
