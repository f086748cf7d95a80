// libFuzzer target: every image decoder AugLab links (libjpeg-turbo with DCT scaling, libspng, stb
// for BMP, TGA and GIF) and the header probe, on untrusted bytes. A file may be refused (InputError)
// but never crash, hang, leak or read out of bounds (built with ASan and UBSan: scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "image_io.h"
#include "source_levels.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::uint8_t> bytes(data, data + size);
    try {
        (void)auglab::readImageInfo(bytes, "fuzz");
    } catch (const auglab::InputError&) {
    }
    // Full and scaled decodes (the scale from the last byte, so each input tries one).
    const int level = size > 0 ? data[size - 1] % 5 : 0;
    try {
        const auglab::LoadedImage loaded = auglab::decodeImage(bytes, "fuzz", level);
        // What a display tile then does with it: a reduced level.
        if (loaded.image.width > 0 && loaded.image.height > 0) (void)auglab::SourceLevels::reduce(loaded.image, 1);
    } catch (const auglab::InputError&) {
    }
    return 0;
}
