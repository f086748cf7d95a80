// libFuzzer target: every image decoder AugLab links (libjpeg-turbo with DCT scaling and region
// decoding, libspng, stb for BMP, TGA and GIF) and the header probe, on untrusted bytes. A file may be refused (InputError)
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
    // A region (from the first bytes), as augment and the module decode what a crop reads.
    try {
        const auglab::ImageInfo info = auglab::readImageInfo(bytes, "fuzz");
        if (info.width > 0 && info.height > 0 && size > 4) {
            const int x = data[0] % info.width, y = data[1] % info.height;
            const int w = 1 + data[2] % (info.width - x), h = 1 + data[3] % (info.height - y);
            (void)auglab::decodeImageRegion(bytes, "fuzz", {x, y, w, h});
        }
    } catch (const auglab::InputError&) {
    }
    return 0;
}
