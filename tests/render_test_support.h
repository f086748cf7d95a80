#pragma once
// Helpers shared by test_render.cpp and test_render_geometry.cpp.

#include <algorithm>

#include "image.h"
#include "pipeline.h"

namespace auglab::testing {

inline OpConfig op(const char* name) {
    return OpConfig::withDefaults(name);
}

/// A w x h copy of `img` from (x0, y0).
inline Image crop(const Image& img, int x0, int y0, int w, int h) {
    Image out(w, h, img.channels);
    for (int y = 0; y < h; ++y)
        std::copy(img.at(x0, y0 + y), img.at(x0, y0 + y) + w * img.channels, out.row(y));
    return out;
}

}  // namespace auglab::testing
