#include "realism.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <utility>
#include <variant>

#include "contact_sheet.h"
#include "error.h"
#include "sampler.h"

namespace auglab {

namespace {

// Whether a position lies on a w x h image (pixel areas: [-0.5, w - 0.5)).
bool onImage(double x, double y, int w, int h) {
    return x >= -0.5 && x < w - 0.5 && y >= -0.5 && y < h - 0.5;
}

// The nearest pixel of an on-image position.
int nearest(double v, int n) {
    return std::clamp(static_cast<int>(std::floor(v + 0.5)), 0, n - 1);
}

// The output pixels [x0, x1] of row y (of W) that an affine warp read from the source (w.gather
// and w.projective unset) takes from the image, an inW x inH one (empty: x0 > x1). Along a row an
// affine map moves in a straight line, so they form one interval: its ends are found from the
// division, then settled by the test the per-pixel path makes.
std::pair<int, int> realSpan(const WarpStep& w, int y, int W, int inW, int inH) {
    if (w.copy) return {0, W - 1};
    const auto& a = w.inverse;
    const auto inside = [&](int x) {
        return onImage(a[0] * x + a[1] * y + a[2], a[3] * x + a[4] * y + a[5], inW, inH);
    };
    double lo = 0, hi = W - 1;
    const auto clip = [&](double slope, double offset, int n) {
        // -0.5 <= slope * x + offset < n - 0.5
        if (std::abs(slope) < 1e-300) {
            if (!(offset >= -0.5 && offset < n - 0.5)) hi = -1;
            return;
        }
        double e1 = (-0.5 - offset) / slope, e2 = (n - 0.5 - offset) / slope;
        if (e1 > e2) std::swap(e1, e2);
        lo = std::max(lo, std::floor(e1) - 1);
        hi = std::min(hi, std::ceil(e2) + 1);
    };
    clip(a[0], a[1] * y + a[2], inW);
    clip(a[3], a[4] * y + a[5], inH);
    if (hi < lo) return {0, -1};
    int x0 = static_cast<int>(std::max(0.0, lo)), x1 = static_cast<int>(std::min<double>(W - 1, hi));
    while (x0 <= x1 && !inside(x0)) ++x0;
    while (x1 >= x0 && !inside(x1)) --x1;
    return {x0, x1};
}

}  // namespace

std::vector<std::uint8_t> inventedMask(const Plan& plan) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(plan.width) * plan.height, 0), previous;
    for (std::size_t s = 0; s < plan.stages.size(); ++s) {
        const PlanStage& stage = plan.stages[s];
        const int W = stage.width, H = stage.height;  // each stage has its own size
        const WarpStep& w = stage.warp;
        // The part of the input it reads (WarpStep::window: positions relative to it), as an image.
        const PixelRect win = w.window.empty() ? PixelRect{0, 0, w.inputWidth, w.inputHeight} : w.window;
        const int inW = win.width, inH = win.height;
        // What this stage reads: the source (all real) or the previous stage (its mask).
        previous.swap(mask);
        mask.assign(static_cast<std::size_t>(W) * H, 0);
        const bool fromSource = s == 0;
        const auto inputInvented = [&](int x, int y) {
            return !fromSource &&
                   previous[static_cast<std::size_t>(y + win.y) * w.inputWidth + static_cast<std::size_t>(x + win.x)] != 0;
        };
        if (fromSource && !w.gather && !w.projective) {
            for (int y = 0; y < H; ++y) {
                std::uint8_t* row = mask.data() + static_cast<std::size_t>(y) * W;
                std::fill(row, row + W, std::uint8_t{1});
                const auto [x0, x1] = realSpan(w, y, W, inW, inH);
                if (x0 <= x1) std::fill(row + x0, row + x1 + 1, std::uint8_t{0});
            }
        } else {
            // A remap's positions, made (for a map of tiles) once, not looked up per pixel.
            const int* remapXy = w.remap ? w.remap->positions().data() : nullptr;
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    bool invented = false;
                    if (w.gather) {
                        const GatherStep& g = *w.gather;
                        const float s0 = (g.rowA0[std::size_t(y)] + g.colB0[std::size_t(x)]) + g.m02;
                        const float s1 = (g.rowA1[std::size_t(y)] + g.colB1[std::size_t(x)]) + g.m12;
                        const int i0 = gatherIndex(s0, g.lo, g.hi), i1 = gatherIndex(s1, g.lo, g.hi);
                        // Clamped to the edge: the truncated index fell outside [lo, hi].
                        const int raw0 = gatherIndex(s0, INT_MIN + 1, INT_MAX),
                                  raw1 = gatherIndex(s1, INT_MIN + 1, INT_MAX);
                        const bool clamped0 = raw0 < g.lo || raw0 > g.hi,
                                   clamped1 = raw1 < g.lo || raw1 > g.hi;
                        const int row = g.dim / 2 - i0, col = g.dim / 2 - 1 + i1;
                        const int sx = std::clamp(col * inW / std::max(1, g.dim), 0, inW - 1);
                        const int sy = std::clamp(row * inH / std::max(1, g.dim), 0, inH - 1);
                        invented = clamped0 || clamped1 || inputInvented(sx, sy);
                    } else {
                        double sx = x, sy = y;
                        if (remapXy) {
                            const int* xy = remapXy + 2 * (std::size_t(y) * W + x);
                            const double unit = w.interpolation == Interpolation::Nearest ? 1.0 : 32.0;
                            sx = xy[0] / unit;
                            sy = xy[1] / unit;
                        } else if (w.projective) {
                            const auto& m = w.homography;
                            const double d = m[6] * x + m[7] * y + m[8];
                            sx = (m[0] * x + m[1] * y + m[2]) / d;
                            sy = (m[3] * x + m[4] * y + m[5]) / d;
                        } else if (!w.copy) {
                            const auto& a = w.inverse;
                            sx = a[0] * x + a[1] * y + a[2];
                            sy = a[3] * x + a[4] * y + a[5];
                        }
                        invented =
                            !onImage(sx, sy, inW, inH) || inputInvented(nearest(sx, inW), nearest(sy, inH));
                    }
                    mask[static_cast<std::size_t>(y) * W + x] = invented ? 1 : 0;
                }
        }
        for (const PixelStep& step : stage.ops) {
            const auto paint = [&](const Hole& h, std::uint8_t v) {
                for (int y = std::max(0, h.y); y < std::min(H, h.y + h.h); ++y)
                    for (int x = std::max(0, h.x); x < std::min(W, h.x + h.w); ++x)
                        mask[static_cast<std::size_t>(y) * W + x] = v;
            };
            if (const auto* d = std::get_if<DropoutStep>(&step)) {
                for (const Hole& h : d->holes) paint(h, 1);
            } else if (const auto* m = std::get_if<MixStep>(&step); m && m->paste) {
                paint(m->box, 0);  // the partner's own pixels
            }
        }
    }
    return mask;
}

double inventedShare(const Plan& plan) {
    if (plan.width <= 0 || plan.height <= 0) return 0.0;
    // The common case (one stage, an affine map from the source: crops, flips, rotations, scales,
    // then pixel ops, holes and pastes) counted row by row without the whole mask: inventedMask's
    // count. A row that a hole or paste crosses is painted in one row's buffer, in their order.
    if (plan.stages.size() == 1 && !plan.stages[0].warp.gather && !plan.stages[0].warp.projective) {
        const PlanStage& stage = plan.stages[0];
        const WarpStep& w = stage.warp;
        const int W = stage.width, H = stage.height;
        const PixelRect win = w.window.empty() ? PixelRect{0, 0, w.inputWidth, w.inputHeight} : w.window;
        std::vector<std::pair<const Hole*, std::uint8_t>> painted;  // (rectangle, invented or not)
        for (const PixelStep& step : stage.ops) {
            if (const auto* d = std::get_if<DropoutStep>(&step)) {
                for (const Hole& h : d->holes) painted.emplace_back(&h, 1);
            } else if (const auto* m = std::get_if<MixStep>(&step); m && m->paste) {
                painted.emplace_back(&m->box, 0);
            }
        }
        std::vector<std::uint8_t> row;
        std::size_t invented = 0;
        for (int y = 0; y < H; ++y) {
            const auto [x0, x1] = realSpan(w, y, W, win.width, win.height);
            const bool crossed = std::any_of(painted.begin(), painted.end(), [&](const auto& p) {
                return y >= p.first->y && y < p.first->y + p.first->h;
            });
            if (!crossed) {
                invented += static_cast<std::size_t>(W - (x0 <= x1 ? x1 - x0 + 1 : 0));
                continue;
            }
            row.assign(static_cast<std::size_t>(W), 1);
            if (x0 <= x1) std::fill(row.begin() + x0, row.begin() + x1 + 1, std::uint8_t{0});
            for (const auto& [h, v] : painted) {
                const int a = std::clamp(h->x, 0, W), b = std::clamp(h->x + h->w, 0, W);
                if (y >= h->y && y < h->y + h->h && a < b) std::fill(row.begin() + a, row.begin() + b, v);
            }
            invented += static_cast<std::size_t>(std::count(row.begin(), row.end(), std::uint8_t{1}));
        }
        return static_cast<double>(invented) / (static_cast<double>(W) * static_cast<double>(H));
    }
    const std::vector<std::uint8_t> mask = inventedMask(plan);
    const auto n = std::count(mask.begin(), mask.end(), std::uint8_t{1});
    return static_cast<double>(n) / static_cast<double>(mask.size());
}

double shareOverThreshold(const Pipeline& pipeline, std::uint64_t seed, int width, int height,
                          double threshold, int samples, int side) {
    int outW = 0, outH = 0, over = 0, counted = 0;
    for (int i = 0; i < samples; ++i) {
        Replay r;
        try {
            r = samplePipeline(pipeline, seed, static_cast<std::uint64_t>(i), width, height);
            int fw = 0, fh = 0;
            frameSize(r, r.ops.size(), fw, fh);
            tileSize(fw, fh, side, outW, outH);
            const Plan plan = buildPlan(r, width, height, outW, outH);
            ++counted;
            if (inventedShare(plan) > threshold) ++over;
        } catch (const InputError&) {
            // A sample the image cannot take (a hole larger than it) is not counted.
        }
    }
    return counted ? static_cast<double>(over) / counted : 0.0;
}

Range findTheEdge(const Pipeline& pipeline, std::size_t op, const std::string& key, std::uint64_t seed,
                  int width, int height, double threshold, double allowedShare, int samples, int side) {
    if (op >= pipeline.size()) throw InputError("find the edge: no op " + std::to_string(op));
    const ParamDesc* pd = pipeline[op].desc().param(key);
    if (!pd || (pd->kind != ParamKind::FloatRange && pd->kind != ParamKind::IntRange) ||
        !pipeline[op].has(key))
        throw InputError("find the edge: " + pipeline[op].name() + "." + key + " is not a range in use");
    const Range current = pipeline[op].range(key);
    const double centre = 0.5 * (current.min + current.max);
    double half = 0.5 * (current.max - current.min);
    // A range of one value widens from a small start: a hundredth of the bounds' span.
    if (half <= 0) half = 0.005 * (pd->upper - pd->lower);
    const auto widened = [&](double t) {
        Range r{std::max(pd->lower, centre - t * half), std::min(pd->upper, centre + t * half)};
        if (pd->kind == ParamKind::IntRange) r = {std::ceil(r.min - 1e-9), std::floor(r.max + 1e-9)};
        return r;
    };
    const auto realistic = [&](double t) {
        Pipeline p = pipeline;
        p[op].set(key, widened(t));
        return shareOverThreshold(p, seed, width, height, threshold, samples, side) <= allowedShare;
    };
    // Largest factor that reaches both bounds.
    const double tMax = std::max({1.0, (centre - pd->lower) / half, (pd->upper - centre) / half});
    if (!realistic(1.0)) return current;
    if (realistic(tMax)) return widened(tMax);
    double lo = 1.0, hi = tMax;  // lo realistic, hi not
    for (int i = 0; i < 12 && hi - lo > 1e-3 * lo; ++i) {
        const double mid = std::sqrt(lo * hi);  // factors multiply: bisect in log space
        (realistic(mid) ? lo : hi) = mid;
    }
    return widened(lo);
}

}  // namespace auglab
