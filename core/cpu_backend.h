#pragma once
// The CPU reference backend: exact semantics, multithreaded over outputs (a grid) or over rows (one
// large output). Its warp uses OpenCV's fixed-point scheme (1/32-pixel coordinates, integer
// bilinear weights), so it agrees with cv::warpAffine to the last bit almost everywhere.

#include <algorithm>
#include <functional>

#include "backend.h"
#include "thread_pool.h"
#include "warp_fixed_point.h"

namespace auglab {

class CpuBackend final : public Backend {
public:
    /// threads <= 0: one per hardware thread.
    explicit CpuBackend(int threads = 0);
    std::string name() const override { return "cpu"; }
    void render(std::span<RenderJob> jobs) override;
    int threadCount() const { return pool_.threadCount(); }

private:
    ThreadPool pool_;
};

/// Runs a loop body over [0, n): either in the pool or serially (inside a job that is itself one
/// of many running in parallel).
struct RowLoop {
    ThreadPool* pool = nullptr;
    void operator()(int n, const std::function<void(int, int)>& fn) const {
        if (pool)
            pool->parallelFor(n, std::max(1, n / (pool->threadCount() * 4)), fn);
        else
            fn(0, n);
    }
};

/// Executes a single plan on the CPU: the kernels below, stage by stage.
Image executePlanCpu(SourceLevels& source, const Plan& plan, const RowLoop& loop);

/// cv::borderInterpolate: the source index that position p outside [0, len) reads under `mode`, or -1
/// for a constant border (p inside: p itself).
int borderIndex(int p, int len, BorderMode mode);

// Kernels, exposed for tests.
/// dst (already sized) = src warped by `w` (rows [y0, y1) only).
void warpRows(const ImageView& src, Image& dst, const WarpStep& w, int y0, int y1);
/// The same with the warp's coordinate tables made once for all the rows of a stage.
void warpRows(const ImageView& src, Image& dst, const WarpStep& w, const WarpTables& tables, int y0, int y1);
/// warpRows computing every pixel on its own (no separable passes for scales and flips, no blocks of
/// eight pixels): the form the faster ones are tested against, bit for bit.
void warpRowsPerPixel(const ImageView& src, Image& dst, const WarpStep& w, int y0, int y1);
/// Rows [y0, y1) of `dst` are those of `src` (the same size) through `step`'s tables: a copy stage and
/// the table step after it in one pass.
void lutRowsFrom(const ImageView& src, Image& dst, const LutStep& step, int y0, int y1);
/// Whether `step` has a form that reads one image and writes another (pixelRowsFrom): tables, gray
/// and channel matrices.
bool hasRowsFrom(const PixelStep& step);
/// Rows [y0, y1) of `dst` are those of `src` (the same size and channels) through `step`: a copy
/// stage and the step after it in one pass. Only for steps hasRowsFrom accepts.
void pixelRowsFrom(const ImageView& src, Image& dst, const PixelStep& step, int y0, int y1);
/// A pixel step over the whole image.
void applyPixelStep(Image& img, const PixelStep& step, const RowLoop& loop);
/// Whether a pixel step works row by row (each output row from the same row alone): those run on
/// strips of rows right after the warp, while the rows are still in cache. A blur needs its
/// neighbours, a brightness relative to the mean the whole image.
bool rowLocal(const PixelStep& step);
/// A MeanBrightnessStep's mean for `img` (of R, G and B, or of the gray), summed in integers so that
/// it does not depend on the thread count; every backend's.
double stepMean(const Image& img, const MeanBrightnessStep& s);
/// An EqualizeStep's tables for `img`: one per colour channel, or the luma's first (byChannels false).
std::array<Lut, 3> equalizeTables(const Image& img, const EqualizeStep& s);
/// A FancyPcaStep's statistics for `img`: the float32 mean of the values / 255 and the matrix
/// V diag(alpha * lambda) each pixel's centred colour is multiplied by.
struct FancyPcaStats {
    std::array<float, 3> mean{};
    std::array<double, 9> m{};
};
FancyPcaStats fancyPcaStats(const Image& img, const FancyPcaStep& s, const RowLoop& loop);
/// A row-local pixel step over rows [y0, y1).
void applyPixelRows(Image& img, const PixelStep& step, int y0, int y1);

}  // namespace auglab
