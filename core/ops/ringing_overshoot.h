#pragma once
// ringing_overshoot: a 2-D sinc (jinc) low-pass filter that rings at edges, as Albumentations 2.0.8
// RingingOvershoot (module: ringing_overshoot.cpp).

#include <vector>

#include "op_types.h"

namespace auglab {

class OpModule;

struct RingingParams {
    int ksize = 7;       ///< odd kernel side
    double cutoff = 1;   ///< the filter's cutoff frequency, radians per pixel, (0, pi]
    bool operator==(const RingingParams&) const = default;
};

/// The kernel Albumentations 2.0.8 builds (RingingOvershoot.get_params), row-major, side ksize:
/// cutoff J1(cutoff r) / (2 pi r) at distance r from the centre, cutoff^2 / (4 pi) at the centre,
/// each tap rounded to float32 and divided by the (double) sum of the unrounded taps.
std::vector<float> ringingKernel(int ksize, double cutoff);

const OpModule& ringingOvershootModule();

}  // namespace auglab
