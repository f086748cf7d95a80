#pragma once
// The module's renders, without Python: one sample as `auglab-cli apply --index` renders it (the
// engine's renderSample: drawn for the image's size, rendered at full resolution, the partners of
// mixing ops drawn from a pool as apply's --partner and augment's folder give them), and a batch of
// them over the engine's thread pool. Nothing here touches a Python object, so all of it runs with
// the GIL released (a partner loader that needs Python takes the GIL itself: partner_pool.h).

#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "arrays.h"
#include "contact_sheet.h"
#include "cuda_backend.h"
#include "pipeline.h"
#include "replay.h"

namespace auglab::python {

/// Every frame of `replay` (the image each op makes, the last one the output) within the pixel limit
/// (kMaxImagePixels), checked before a pixel is rendered: InputError "<prefix><op> makes a H x W
/// image, over the 100 megapixel limit" otherwise.
void checkFrames(const Replay& replay, const std::string& prefix);

/// Sample `index` of `seed` for the image `view` shows, on a single-threaded CPU backend; its
/// concrete parameters into `replay` when given. Mixing ops draw their partners from
/// `partners.pool`, whose image number `pool.self` is `view` itself (never asked of
/// `partners.load`); the default is a pool of the image alone. InputError when the pipeline cannot
/// run on it, makes an image over the pixel limit ("image: resize makes ...": checkFrames, before
/// the source is copied) or a partner cannot be read. With `unchanged` given, a sample whose plan is
/// a copy (planIsCopy: every op skipped by its p, or ops that change nothing: no_op) is not rendered:
/// *unchanged is set and the image returned empty (the output would be a copy of the view).
Image renderView(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, const PixelView& view,
                 Replay* replay = nullptr, const Partners& partners = {}, bool* unchanged = nullptr);

/// renderView for the image file at `path`, decoding only the part of it the sample reads (a baseline
/// JPEG: planSourceRegion, decodeImageRegion): the bytes renderView gives for imread(path). A sample
/// whose plan is a copy returns the whole decode (there is no caller's array to hand back).
Image renderFile(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index,
                 const std::filesystem::path& path, Replay* replay = nullptr, const Partners& partners = {});

/// Images for a batch: image i is views[i], rendered as sample indices[i], its partners those
/// partnersOf(i) gives (empty: each image its own partner).
struct BatchInput {
    std::vector<PixelView> views;
    std::vector<std::uint64_t> indices;
    std::function<Partners(std::size_t)> partnersOf;
};

/// Every image of `in` rendered on the CPU: `threads` tasks of the engine's pool (<= 0: one per
/// hardware thread), one image per task, each image exactly what renderView gives, so that the
/// outputs never depend on the thread count. Every sample is drawn and checked (checkFrames) before
/// any is rendered, and the outputs together must fit in the machine's memory (RAM and swap), so
/// that a batch that cannot be made fails at once, not after rendering part of it. When images
/// fail, the error of the first of them (in batch order, whatever thread met it first) is
/// rethrown, naming it.
std::vector<Image> renderBatchCpu(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                  int threads);

/// The same on the CUDA backend (one render call for the whole batch; the sources are copied and the
/// plans built on `threads` CPU threads, after the same checks). RuntimeError when this build or
/// machine has no CUDA backend.
std::vector<Image> renderBatchCuda(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                   int threads);

/// renderBatchCuda's outputs left on the device (cuda_backend.h's DeviceImages), for DLPack: the
/// host memory check is left out (the device's own allocation reports what does not fit there).
DeviceImages renderBatchCudaOnDevice(const Pipeline& pipeline, std::uint64_t seed, const BatchInput& in,
                                     int threads);

/// The batch's outputs `out` (in's images rendered with `seed`) through the training tail each
/// sample applies (the gates drawn again: a sample's draw is a pure function of its inputs), on
/// `threads` tasks; `training` false: the images as they are.
std::vector<TailedSample> withTails(std::vector<Image> out, const Pipeline& pipeline, std::uint64_t seed,
                                    const BatchInput& in, int threads, bool training);

/// The concrete parameters of sample `index` of `seed` for a width x height image, with the share
/// of invented pixels of its full-resolution output: the replay `apply --save-replay` writes, as text.
/// The frames are checked as renderView checks them.
std::string replayText(const Pipeline& pipeline, std::uint64_t seed, std::uint64_t index, int width,
                       int height);

/// `replay` applied again to the image `view` shows (what `auglab-cli replay` renders); its frames
/// checked first ("replay: resize makes ...").
Image renderReplayOf(const Replay& replay, const PixelView& view);

}  // namespace auglab::python
