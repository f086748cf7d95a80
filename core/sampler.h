#pragma once
// Drawing the concrete parameters of one sample. Sample `index` of `seed` is a pure function of
// (seed, index, pipeline, image size): every draw comes from Philox4x32-10 keyed by the seed with
// the counter (index low, index high, op position, draw number). The gate u < p is draw 0 of every
// op, drawn whether or not the op applies, so toggling one op never changes another's draws.

#include <cstdint>
#include <vector>

#include "error.h"
#include "pipeline.h"
#include "replay.h"

namespace auglab {

/// Draw numbers with one meaning in every op: the gate u < p, and the key of per-pixel noise.
constexpr std::uint32_t kGateDraw = 0;
constexpr std::uint32_t kNoiseKeyDraw = 2;

/// The images a sample may take a partner from (mixing ops): `count` images, the sample's own
/// at position `self` (a dataset's files in order, or the images loaded). With one image, the
/// partner is the image itself.
struct PartnerPool {
    std::uint64_t count = 1;
    std::uint64_t self = 0;
};

/// Draws of one op of one sample: uniform numbers on demand, by draw number.
class OpDraws {
public:
    OpDraws(std::uint64_t seed, std::uint64_t index, std::uint32_t opPosition, PartnerPool pool = {})
        : seed_(seed), index_(index), op_(opPosition), pool_(pool) {}

    double uniform(std::uint32_t draw) const;                      ///< [0, 1)
    double uniform(std::uint32_t draw, double a, double b) const;  ///< U(a, b)
    double uniform(std::uint32_t draw, const Range& r) const { return uniform(draw, r.min, r.max); }
    /// Integer uniform on [a, b], both inclusive.
    std::int64_t randint(std::uint32_t draw, std::int64_t a, std::int64_t b) const;
    std::uint64_t bits64(std::uint32_t draw) const;
    /// A standard normal value (Box–Muller in double from the 128 bits of one counter).
    double normal(std::uint32_t draw) const;
    /// A Beta(a, b) value (a, b > 0) from one uniform draw: the quantile of that uniform, found by
    /// bisection on the regularized incomplete beta function (the mixing ops' lambda).
    double beta(std::uint32_t draw, double a, double b) const;
    /// A partner from the pool, uniform over the images other than the sample's own (itself when
    /// the pool has one image).
    std::uint64_t partner(std::uint32_t draw) const;
    const PartnerPool& pool() const { return pool_; }

private:
    std::uint64_t seed_, index_;
    std::uint32_t op_;
    PartnerPool pool_;
};

/// I_x(a, b), the regularized incomplete beta function (the Beta(a, b) distribution's CDF at x):
/// its continued fraction (modified Lentz), on the side of x where it converges fast.
double regularizedIncompleteBeta(double x, double a, double b);

/// A sample whose op would make a frame that is no image AugLab holds: no pixels, or over
/// kMaxImagePixels (smallest_max_size of a 1 x 50,000,000 image). Its own type, so that a caller
/// can say which image it was drawn for.
class FrameSizeError : public InputError {
public:
    using InputError::InputError;
};

/// The concrete parameters of sample `index` for an image of width x height pixels, its partners
/// (mixing ops) drawn from `pool` (InputError when `pool` is empty or `self` is outside it;
/// FrameSizeError when an op's frame would be over kMaxImagePixels).
/// Groups run as Albumentations' composition classes do (GroupKind); their draws come from the same
/// stream, keyed by the group's index, so a sample stays a pure function of (seed, index).
Replay samplePipeline(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                      int height, const PartnerPool& pool = {});

}  // namespace auglab
