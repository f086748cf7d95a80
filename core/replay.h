#pragma once
// Concrete parameters of one sample ("replay"): what the sampler drew for each op, in the units of
// the preset keys, together with the op's fixed settings, so that a replay alone reproduces the
// output bit for bit (SPEC §2). The JSON form is `"format": "auglab-replay"`, version 1.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "op_registry.h"

namespace auglab {

/// One op of a sample. The list holds every op of the pipeline, in the order they ran: ops whose
/// gate failed, that are disabled or that their group did not choose are kept with applied = false at
/// their place (after the chosen ones in a random_order group). Without groups that reorder or repeat
/// (random_order, some_of with replacement), the list lines up with the pipeline.
struct ConcreteOp {
    OpId id{};
    bool applied = false;
    /// The op's index in the pipeline (its "position" in the JSON form, written when it differs
    /// from the entry's index).
    std::uint32_t position = 0;
    OpParams params;
    bool operator==(const ConcreteOp&) const = default;
};

struct Replay {
    static constexpr int kFormatVersion = 1;
    std::uint64_t seed = 0;
    std::uint64_t index = 0;
    int imageWidth = 0;  ///< size the sample was drawn for (translations and holes are in its pixels)
    int imageHeight = 0;
    std::vector<ConcreteOp> ops;
    bool operator==(const Replay&) const = default;
};

/// The entries of the replay for pipeline op `position`, in the order they ran (more than one when a
/// some_of drew it twice).
std::vector<const ConcreteOp*> entriesOf(const Replay& replay, std::size_t position);

/// Size of the image op `op` of the replay works on (op == ops.size(): the output's size): the image's
/// size, or the size an op that sets the frame (a crop) gave it before.
void frameSize(const Replay& replay, std::size_t op, int& width, int& height);

/// The values drawn for preset key `key` in this op, in that key's units (translations as fractions,
/// hole sizes per hole, `holes` as the count), for the distribution view. Empty when the op did
/// not apply or the key is not drawn (a choice, a flag). The size is that of the image the op
/// worked on (frameSize).
std::vector<double> drawnValues(const ConcreteOp& op, std::string_view key, int imageWidth, int imageHeight);

/// `realism`, when known (0..1): the share of the full-resolution output's pixels that are invented
/// (realism.h), written as "realism" for whoever reads the replay; parseReplay checks and skips it.
nlohmann::ordered_json replayToJson(const Replay& replay, double realism = -1);
std::string serializeReplay(const Replay& replay, double realism = -1);
/// Strict, like presets: errors name the JSON path.
Replay parseReplay(std::string_view text, const std::string& what = "replay");
Replay loadReplay(const std::filesystem::path& path);
void saveReplay(const std::filesystem::path& path, const Replay& replay, double realism = -1);

}  // namespace auglab
