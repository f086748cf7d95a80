#pragma once
// Turns render jobs into one batch of device work: where every input level, working image and
// descriptor lives in the batch's arena (one device allocation), and the kernel launches that run
// the plans. Plain C++ without CUDA: the backend uploads and launches what this lays out, and the
// tests run the same layout through the host build of the kernels' maths.
//
// A plan's stage becomes passes: a segment (the warp fused with every pointwise op that follows it),
// then for a blur a row and a column pass, for a mean brightness a sum and a LUT pass, each followed
// by a new in-place segment for the ops after it. Pass r of every output runs in launch round r,
// one launch per pass kind present, so a 64-tile grid of warp + pointwise ops is one launch.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "backend.h"
#include "contact_sheet.h"
#include "cuda_descriptors.h"

namespace auglab::cuda {

/// A source level copied into the arena, rows tightly packed.
struct LevelUpload {
    const Image* image = nullptr;
    Offset offset = 0;
};

/// Where a job's output is when the launches are done.
struct OutputDownload {
    Image* output = nullptr;
    int width = 0, height = 0, channels = 3;
    bool rendered = false;  ///< false: the plan has no stages, the output is an empty image
    Offset offset = 0;
    std::size_t bytes() const {
        return static_cast<std::size_t>(width) * static_cast<std::size_t>(height) *
               static_cast<std::size_t>(channels);
    }
};

/// One kernel launch: `count` DevicePass structs of one kind at `passes`, one per blockIdx.z.
struct DeviceLaunch {
    PassKind kind = kSegment;
    Offset passes = 0;
    int count = 0;
    int maxWidth = 0, maxHeight = 0;  ///< the largest output among the passes (sizes the grid)
};

/// The arena is [levels | outputs | other working images | scratch | blob]. The levels and the
/// blob are uploaded, the scratch (mean sums) is zeroed, the working images are written by the
/// kernels, and the outputs (each job's final image, back to back) are downloaded.
struct DeviceBatch {
    std::vector<LevelUpload> levels;
    std::size_t levelBytes = 0;  ///< arena [0, levelBytes): the levels
    Offset outputBase = 0;
    std::size_t outputBytes = 0;  ///< arena [outputBase, + outputBytes): the outputs
    Offset scratch = 0;
    std::size_t scratchBytes = 0;  ///< zeroed before the launches
    Offset blobOffset = 0;
    std::vector<unsigned char> blob;  ///< arena [blobOffset, + blob.size()): descriptors and tables
    std::size_t arenaBytes = 0;
    std::vector<DeviceLaunch> launches;   ///< in the order they must run
    std::vector<OutputDownload> outputs;  ///< one per job, in job order
};

/// Lays out `jobs` (building the source levels they read on first use). Throws RuntimeError when a
/// job has no source or output or when a plan does not match its input's size, as the CPU does.
DeviceBatch buildDeviceBatch(std::span<RenderJob> jobs);

/// The launch that writes a batch's outputs into a grid texture (CUDA-GL interop).
struct PlacementLaunch {
    Offset placements = 0;  ///< DevicePlacement[count] in the blob
    int count = 0;
    int maxWidth = 0, maxHeight = 0;
};

/// Where each job of `layout` goes in its grid texture: the top-left texel of job k's tile.
std::vector<std::array<int, 2>> jobPositions(const SheetLayout& layout);

/// Places output i of `b` (job i of the batch) at texel `positions[i]` of a sheetWidth x sheetHeight
/// grid texture: appends one DevicePlacement per rendered, non-empty output to the blob
/// (`b.arenaBytes` grows with it). Call before uploading. Throws RuntimeError when the counts differ
/// or an output would not fit in the texture (a surface write out of bounds would trap and lose
/// the CUDA context).
PlacementLaunch addPlacements(DeviceBatch& b, std::span<const std::array<int, 2>> positions, int sheetWidth,
                              int sheetHeight);

/// Splits `jobs` into consecutive groups whose arenas stay under about `budgetBytes` (a single job
/// larger than that is a group of its own), so a large batch never needs unbounded device memory.
std::vector<std::span<RenderJob>> splitBatches(std::span<RenderJob> jobs, std::size_t budgetBytes);

}  // namespace auglab::cuda
