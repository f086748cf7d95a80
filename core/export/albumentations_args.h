#pragma once
// Reading the arguments of one Albumentations transform: which keys were used (the rest are
// reported), the defaults of the version that wrote the file, and Albumentations' shorthands for
// ranges (a number where a pair is expected).

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "albumentations_transform_reader.h"

namespace auglab::exporting {

class TransformArgs {
public:
    TransformArgs(const JsonReader& t, std::string cls, const LibraryVersion& version,
                  std::vector<std::string>& warnings);

    const LibraryVersion& version() const { return version_; }
    /// The transform's class (short name).
    const std::string& cls() const { return cls_; }

    /// The first of `names` the transform has; marks it as mapped.
    std::optional<JsonReader> find(std::initializer_list<const char*> names);
    /// `key` (or an old name for it), else the library's default for it, with a note.
    JsonReader get(const char* key, std::initializer_list<const char*> oldNames = {});
    /// A note that a missing setting takes the library's default (`meaning` says which).
    void noteDefault(const char* key, const std::string& meaning);
    /// Keys that act on masks or boxes only: mapped to nothing, reported when not at their default.
    void maskOnly(const char* key, std::initializer_list<const char*> oldNames = {});

    void warn(const JsonReader& where, const std::string& message);
    /// The transform's setting at `where` has no AugLab equivalent: the whole transform is left out,
    /// reported with `why` (readTransform).
    void leaveOut(const JsonReader& where, const std::string& why) {
        warn(where, why);
        leftOut_ = true;
    }
    bool leftOut() const { return leftOut_; }
    [[noreturn]] void fail(const JsonReader& where, const std::string& message) const { where.fail(message); }
    /// `r` limited to AugLab's bounds [lower, upper]; a change is reported.
    Range clamp(const JsonReader& where, Range r, double lower, double upper);
    /// Reports every key that was not mapped.
    void finish();

private:
    JsonReader t_;
    std::string cls_;
    LibraryVersion version_;
    std::vector<std::string>& warnings_;
    std::set<std::string> used_, defaulted_;
    nlohmann::json defaults_;
    bool leftOut_ = false;
};

/// [a, b] with a <= b.
Range pair(const JsonReader& r);
/// A number v means [v, v] (a rotation, a scale or a shear axis).
Range fixedOrPair(const JsonReader& r);
/// A number v means [-|v|, |v|] (brightness_limit, hue_shift_limit, ...).
Range symmetricRange(const JsonReader& r);
/// A number v means [0, v] (blur_limit, sigma_limit).
Range lowZeroRange(const JsonReader& r);
/// Per-axis ranges (scale, shear, translate): a number, a pair, or {"x": ..., "y": ...} (a missing
/// axis is [def, def]).
std::pair<Range, Range> xyRanges(const JsonReader& r, double def);
/// How the library puts a fill of floats into an 8-bit image: OpenCV's warps and pads round it
/// (saturate_cast), the dropouts assign it with numpy, which truncates toward zero.
enum class FillCast { Rounded, Truncated };
/// A number, [v], [r, g, b] (or "random"/"random_uniform" where allowed) as an AugLab fill.
Fill readFill(const JsonReader& r, TransformArgs& a, bool allowRandom, FillCast cast = FillCast::Rounded);
/// The fill of a transform that hands it to cv2.remap or cv2.warpPerspective as it is
/// (GridDistortion, OpticalDistortion, ElasticTransform, Perspective): OpenCV reads one number v (or
/// [v]) as the colour (v, 0, 0), and that is what the library paints, so it is read as [v, 0, 0].
Fill readRemapFill(const JsonReader& r, TransformArgs& a);
/// OpenCV interpolation and border constants as AugLab names (others reported, then linear/constant).
const char* interpolationName(const JsonReader& r, TransformArgs& a);
const char* borderName(const JsonReader& r, TransformArgs& a);

}  // namespace auglab::exporting
