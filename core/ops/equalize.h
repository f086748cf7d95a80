#pragma once
// equalize: the histogram equalisation's settings (module: equalize.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct EqualizeParams {
    bool pil = false;        ///< the library's Pillow-style tables (mode "pil"), else cv2.equalizeHist's
    bool byChannels = true;  ///< a table per colour channel, else the luma's (OpenCV's YCrCb)
    bool operator==(const EqualizeParams&) const = default;
};

const OpModule& equalizeModule();

}  // namespace auglab
