#pragma once
// box_blur and median_blur (module: kernel_blur.cpp), and what motion_blur shares with them: the odd
// kernel size drawn as Albumentations 2.0.8 draws it.

#include <cstdint>
#include <string>

#include "op_types.h"

namespace auglab {

class OpModule;
class OpDraws;
class OpConfig;
struct ParamDesc;

namespace exporting {
class TransformArgs;
}

struct KernelSizeParams {
    int ksize = 3;  ///< odd
    bool operator==(const KernelSizeParams&) const = default;
};

const OpModule& boxBlurModule();
const OpModule& medianBlurModule();

namespace kernel_size {

/// The preset key of the kernel size range, and its description (odd sizes, 3..99; the parser
/// refuses an even end).
constexpr const char* kKey = "kernel_size";
ParamDesc param(const char* help);
/// The smallest and largest odd sizes a range means, as Albumentations' sample_odd_from_range
/// normalises its ends (an even end counts as the next odd number, none below 3): the range itself
/// for a valid preset.
void oddEnds(const Range& r, int& low, int& high);
/// One odd size, uniform over the odd sizes of the range (draw `draw`).
int sample(const OpDraws& d, std::uint32_t draw, const Range& r);
/// The odd sizes of a range, as a Python list ("[3, 5, 7]").
std::string pyList(const Range& r);
/// Reads blur_limit as Albumentations' validator does (a number v means [3, v]; ends below 3 become
/// 3 and even ends the next odd number, with its warnings) into the op's kernel_size.
void readBlurLimit(exporting::TransformArgs& a, OpConfig& op);

}  // namespace kernel_size

}  // namespace auglab
