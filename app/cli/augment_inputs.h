#pragma once
// The inputs of `auglab-cli augment`: the input and output folders checked against each other,
// the image files found under the input folder, and the outputs and sample indices of each.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "image_io.h"

#include "annotations.h"

namespace auglab::cli {

/// The most copies per input: the copy number fills the low 16 bits of the sample index.
inline constexpr int kMaxCopies = 65536;

/// Sample index of copy `copy` of the input at `relativePath` (relative to the input folder, UTF-8,
/// '/' separators): the top 37 bits of the path's 64-bit FNV-1a hash times 65536, plus the copy,
/// always below 2^53. It depends on nothing else, so adding or removing files never changes another
/// file's outputs, and `auglab-cli apply --index` reproduces any output. (Two files share draws only
/// when their hashes agree in those 37 bits: about one pair in a million files.)
std::uint64_t augmentSampleIndex(std::string_view relativePath, int copy);

/// Relative output path of copy `copy`: the input's folder, then `<stem>_aug<copy>.<png|jpg>`.
std::string augmentOutputPath(const std::string& relativePath, int copy, ImageFormat format);

struct AugmentFolders {
    std::filesystem::path input;   ///< canonical
    std::filesystem::path output;  ///< symbolic links of its existing part resolved
    /// The input folder's labels (annotations.h detectLabels), when it is a labelled dataset.
    std::shared_ptr<const LabelledDataset> labels;
};

/// Checks --input (an existing folder) and --output (neither the input folder, nor inside it,
/// nor holding it: augment never writes among its inputs). Throws InputError.
AugmentFolders checkFolders(const std::filesystem::path& input, const std::filesystem::path& output);

/// Why the file `relative` (UTF-8, '/' separators) under the output folder `root` (as checkFolders
/// gives it: links resolved) must not be written or removed; empty when it may. Refused: a part of
/// the path that exists and is a symbolic link leading outside `root` (or to nothing): writing or
/// deleting through it would change files outside the folder augment was given; a name (a folder's
/// or the file's) longer than the file system's limit; a part that is "..". Checked before every
/// write and delete of augment, so that a link made in the output folder while it runs is caught too.
std::string outputPathProblem(const std::filesystem::path& root, const std::string& relative);

struct PlannedInput {
    std::filesystem::path source;      ///< the image file
    std::string relative;              ///< relative to the input folder, UTF-8, '/' separators
    std::vector<std::string> outputs;  ///< relative output path of each copy
    std::string error;                 ///< why it cannot be used; empty when it can
};

/// Every image file under `input` (.png .jpg .jpeg .bmp .tga .gif in any case, as `render --dir`),
/// subfolders included, sorted by relative path. Hidden files and folders (a name starting with a
/// dot) and symbolic links to folders are left out; links to files are followed. Two inputs whose
/// outputs would have the same names (a.png and a.jpg) cannot both be used: the second in order
/// gets an error, as does a subfolder that cannot be listed or a name that is not UTF-8. Throws
/// InputError when there is no image file at all.
std::vector<PlannedInput> planInputs(const std::filesystem::path& input, int copies, ImageFormat format);

}  // namespace auglab::cli
