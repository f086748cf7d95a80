#pragma once
// What coarse_dropout and grid_dropout share: the draw numbers of holes, the replay record of holes
// and fill, the check that holes lie inside the image, the values the distribution view shows, and
// the plan step. Included by the two modules only.

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_reader.h"
#include "ops/dropout.h"
#include "ops/op_module.h"
#include "plan.h"

namespace auglab::dropout {

// Draw numbers within a dropout op (draw 0 is the gate, kNoiseKeyDraw the key of a random fill).
constexpr std::uint32_t kHoleCount = 1;
constexpr std::uint32_t kFirstHole = 16;  // hole j uses draws 16 + 8j ... 16 + 8j + 6
constexpr std::uint32_t kDrawsPerHole = 8;

void writeReplay(const DropoutParams& d, nlohmann::ordered_json& j);
/// The holes and fill of coarse_dropout, and of grid_dropout with its unit.
DropoutParams readReplay(const JsonReader& r, bool grid);
/// Every hole inside the frameW x frameH image the op works on.
void checkHoles(const DropoutParams& d, const JsonReader& o, int frameW, int frameH);
/// holes (the count), hole sizes (per hole), unit_size_px.
std::vector<double> drawnValues(const DropoutParams& d, std::string_view key, int imageWidth,
                                int imageHeight);
/// The step for an output sx x sy times the frame's size.
DropoutStep step(const DropoutParams& d, double sx, double sy);

/// The tf-deotte and DALI files have no dropout: leaves the op out of them, saying why, and
/// returns true; false for the other targets.
bool leftOutOf(const exporting::ExportedOp& e, PythonExport& x);

/// What the two dropout modules do alike: the replay record, its checks, the drawn values and the
/// plan step.
class DropoutModule : public OpModule {
public:
    explicit DropoutModule(bool grid) : grid_(grid) {}
    void writeReplay(const OpParams& params, nlohmann::ordered_json& j) const override;
    OpParams readReplay(const JsonReader& r) const override;
    void checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const override;
    std::vector<double> drawnValues(const OpParams& params, std::string_view key, int width,
                                    int height) const override;
    void lower(const OpParams& params, PlanBuilder& b) const override;
    /// Gives the holes: boxes and keypoints under them go as Albumentations' BaseDropout says.
    bool moveTargets(const OpParams& params, TargetFrame& f) const override;

private:
    bool grid_;
};

}  // namespace auglab::dropout
