#pragma once
// Offline dataset generation: the engine of `auglab-cli augment` and of the W3 benchmark (SPEC §7,
// §8). Every image under an input folder (subfolders included, mirrored in the output folder) gets
// N augmented copies, written atomically, each listed with its replay in a manifest
// (augment_manifest.h). A rerun with the same arguments only does what is missing; a run with other
// arguments into the same folder is refused unless the user asks to start over.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "augment_inputs.h"
#include "augment_manifest.h"
#include "augment_shard.h"
#include "image_io.h"
#include "pipeline.h"

namespace auglab::cli {

struct AugmentSummary;

struct AugmentOptions {
    std::filesystem::path input, output;
    Preset preset;  ///< its pipeline is applied; its seed is not used (see `seed`)
    std::uint64_t seed = 0;
    int copies = 1;  ///< 1..kMaxCopies
    ImageFormat format = ImageFormat::Png;
    int jpegQuality = 95;  ///< 1..100, used for JPEG only
    int jobs = 0;          ///< files decoded, augmented and encoded at once; <= 0: hardware threads
    /// Bound on the images in flight across the jobs (decodes and outputs, 4 bytes a pixel each): a
    /// job waits before decoding a file that would pass it (ByteBudget).
    std::size_t memoryBudgetBytes = std::size_t{2} << 30;
    std::string backend = "auto";  ///< auto, cpu, gl, cuda
    bool overwrite = false;  ///< start over: delete the outputs a previous run listed, ignore the refusals
    /// Only this shard's inputs (augment_shard.h), with a manifest of its own; the pool mixing ops
    /// draw partners from is still every input of the folder. A COCO dataset's COCO file, which
    /// lists every output, is left to --merge-manifests.
    std::optional<Shard> shard;
    /// Checked between outputs; when it holds a signal number, no new output is started, the one in
    /// progress is finished, the manifest is written and the run returns with interruptedBy set.
    const std::atomic<int>* cancel = nullptr;
    /// Per-file failures, notes and warnings, one line each; nullptr: quiet.
    std::ostream* messages = nullptr;
    /// Called on the calling thread about ten times a second with the counts so far.
    std::function<void(const AugmentSummary&)> progress;
};

struct AugmentSummary {
    std::size_t files = 0;        ///< image files found under the input folder (of the shard's part)
    std::size_t outputs = 0;      ///< outputs asked for: files * copies
    std::size_t written = 0;      ///< outputs written by this run
    std::size_t skipped = 0;      ///< outputs already done (in the manifest and on disk), left alone
    std::size_t failedFiles = 0;  ///< inputs that could not be used (and unreadable subfolders)
    double seconds = 0;
    int jobs = 0;
    int interruptedBy = 0;  ///< the signal that stopped the run early, 0 when it ran to the end
    std::string backend;    ///< the backend that rendered last
    std::filesystem::path manifest;
    /// A labelled dataset (annotations.h detectLabels): its format ("" when the folder has no labels),
    /// the labels skipped as unusable (each named in the messages), and the boxes in and kept over
    /// the outputs written.
    std::string labels;
    std::size_t labelsSkipped = 0;
    std::size_t boxesIn = 0, boxesKept = 0;
};

/// Runs the whole job. A folder with labels (YOLO, COCO, Pascal VOC, mask PNGs) gets each output's
/// labels in the same format and layout: the label file beside the output as the input's is beside
/// the input (labels/x_0003.txt for images/x_0003.png), written atomically before the image, listed
/// in the manifest; for COCO, one file at the input's COCO file's place listing every output. Throws
/// InputError before any output is written when the arguments are wrong (input not a folder or without
/// images, output inside the input or the other way round, an output folder holding another run or foreign
/// files without `overwrite`, another run writing there now, an unavailable backend); RuntimeError, after
/// writing the manifest, when an output cannot be written or rendered. A file that cannot be read is a
/// failure counted in the summary.
AugmentSummary augmentFolder(const AugmentOptions& options);

/// The COCO file(s) of a COCO dataset's outputs, rebuilt from manifest lines: one per COCO file of
/// the input folder, at its place, listing the outputs of `entries` that came from its images, in
/// the order of their output names (so the ids never depend on the order of `entries`). Returns the
/// files written.
std::vector<std::filesystem::path> writeCocoFiles(const LabelledDataset& labels,
                                                  const std::filesystem::path& input,
                                                  const std::filesystem::path& output,
                                                  const std::vector<ManifestEntry>& entries);

}  // namespace auglab::cli
