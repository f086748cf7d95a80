// libFuzzer target: the readers of untrusted JSON — presets, replays, and Albumentations files for
// the importer. A document may be refused (InputError, with its JSON path) but never crash, hang,
// leak or read out of bounds (built with ASan and UBSan: scripts/fuzz.sh). What parses is
// written back and read again, which must succeed.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "error.h"
#include "exporter.h"
#include "preset.h"
#include "replay.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::optional<auglab::Preset> preset;
    try {
        preset = auglab::parsePreset(text);
    } catch (const auglab::InputError&) {
    }
    // What parses, round-trips: a preset written back must read again, to the same preset.
    if (preset && !(auglab::parsePreset(auglab::presetToJson(*preset).dump()) == *preset)) std::abort();
    std::optional<auglab::Replay> replay;
    try {
        replay = auglab::parseReplay(text);
    } catch (const auglab::InputError&) {
    }
    if (replay && !(auglab::parseReplay(auglab::serializeReplay(*replay)) == *replay)) std::abort();
    try {
        (void)auglab::importAlbumentations(text);
    } catch (const auglab::InputError&) {
    }
    return 0;
}
