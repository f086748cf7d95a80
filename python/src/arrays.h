#pragma once
// NumPy arrays in and out of the engine. An input is read where it lies, whatever its strides
// (views, negative steps, Fortran order): the engine's source image is the one copy made, straight
// from the array's memory, and it can be made without the GIL. An output is handed to NumPy as it
// is: the array owns the engine's image, no copy.

#include <pybind11/numpy.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "image.h"
#include "source_levels.h"
#include "targets.h"
#include "training_tail.h"

namespace auglab::python {

namespace py = pybind11;

/// Where an array's 8-bit pixels are: element (y, x, c) is at data + y * rowStride + x * pixelStride
/// + c * channelStride (strides in bytes, any sign). Read under the GIL; usable without it while the
/// array is kept alive.
struct PixelView {
    const std::uint8_t* data = nullptr;
    int width = 0, height = 0, channels = 0;
    std::ptrdiff_t rowStride = 0, pixelStride = 0, channelStride = 0;
};

/// An image array: uint8, H x W x 3 (RGB) or H x W x 4 (RGBA), H and W at least 1, at most
/// kMaxImagePixels pixels. TypeError for something that is not a NumPy array, ValueError (naming
/// `what`) for another dtype or shape, or an image over the limit.
PixelView imageView(const py::handle& array, const std::string& what);

/// A label array (a mask): uint8, H x W, within the same limit.
PixelView maskView(const py::handle& array, const std::string& what);

/// The view's pixels as the engine's source, without a copy when its rows hold packed pixels (a
/// C-contiguous array, or one cropped by slicing rows and columns): the array is read in place and
/// must outlive the returned object. Other layouts are copied.
std::unique_ptr<SourceLevels> sourceFromView(const PixelView& view);

/// Whether an image of height x width pixels is over auglab-cli's limit (kMaxImagePixels).
bool overPixelLimit(std::int64_t height, std::int64_t width);

/// "the 100 megapixel limit (auglab.MAX_PIXELS, auglab-cli's)", for messages.
std::string pixelLimitText();

/// "H x W (H x W) is over the 100 megapixel limit ...": the end of a message refusing such an image.
std::string overPixelLimitText(std::int64_t height, std::int64_t width);

/// The pixels of `view` as a tightly packed engine image: a copy of each row where rows are
/// contiguous, element by element otherwise. Needs no GIL.
Image imageFromView(const PixelView& view);

/// The values of a mask view (channels 1) as an engine mask. Needs no GIL.
Mask maskFromView(const PixelView& view);

/// `image` as an H x W x C uint8 array that owns it (no copy).
py::array arrayFromImage(Image image);

/// A sample through the training tail its replay applied (core/training_tail.h): the image as it is
/// when there is none, a view of it in C x H x W order after to_tensor alone (as ToTensorV2's
/// tensor is a view), otherwise the tail's output.
struct TailedSample {
    Image image;
    std::optional<TailImage> tail;
    bool chw = false;            ///< the image, seen as C x H x W
    bool transposeMask = false;  ///< an applied to_tensor's transpose_mask
};

/// `image` through `tail`. Needs no GIL.
TailedSample withTail(Image image, const std::vector<TailOp>& tail);

/// The sample as a NumPy array that owns it (no copy): uint8, uint16, uint32 or float32, H x W x C or
/// C x H x W.
py::array arrayOf(TailedSample sample);

/// `mask` as an H x W uint8 array that owns its values (no copy).
py::array arrayFromMask(Mask mask);

/// `values` as a rows x columns array of T that owns them. Every array the module makes is made
/// with explicit strides: pybind11 2.10 (Debian's) computes default strides from the item size
/// where NumPy 1 keeps it, which NumPy 2 moved.
template <typename T>
py::array ownedArray(std::vector<T> values, py::ssize_t rows, py::ssize_t columns) {
    auto* held = new std::vector<T>(std::move(values));
    py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    const auto size = static_cast<py::ssize_t>(sizeof(T));
    if (columns < 0)  // one dimension
        return py::array(py::dtype::of<T>(), std::vector<py::ssize_t>{rows}, std::vector<py::ssize_t>{size},
                         held->data(), owner);
    return py::array(py::dtype::of<T>(), std::vector<py::ssize_t>{rows, columns},
                     std::vector<py::ssize_t>{columns * size, size}, held->data(), owner);
}

}  // namespace auglab::python
