#pragma once
// A batch's outputs handed to other libraries through DLPack (the array API's __dlpack__ protocol):
// torch.from_dlpack, numpy.from_dlpack, CuPy, JAX take them without a copy, on the device they lie
// on. The images lie back to back in one allocation, host memory for the CPU backend, device
// memory for CUDA (cuda_backend.h's DeviceImages), so that a batch of one size is also one
// N x H x W x C tensor. The allocation lives until the batch, its tensors and every consumer's
// tensor made from them are gone; the consumers' deleters need no GIL.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda_backend.h"
#include "image.h"

namespace auglab::python {

namespace py = pybind11;

/// Where the images are: DLPack's device kinds (kDLCPU, kDLCUDA) and the device ordinal.
struct MemoryPlace {
    int kind = 1;  ///< kDLCPU
    int id = 0;
};

/// One allocation of images, back to back (DeviceImages' layout).
struct ImageMemory {
    ImageMemory();
    ~ImageMemory();
    ImageMemory(const ImageMemory&) = delete;
    ImageMemory& operator=(const ImageMemory&) = delete;

    std::shared_ptr<unsigned char> data;
    MemoryPlace place;
    std::vector<DeviceImages::Item> items;
};

/// The images, packed into one 256-byte-aligned host allocation: each copied, then freed at once
/// (a batch is never held twice over).
std::shared_ptr<ImageMemory> hostMemory(std::vector<Image> images);

/// Images the CUDA backend left on its device, as they are.
std::shared_ptr<ImageMemory> deviceMemory(DeviceImages images);

/// How many ImageMemory allocations are alive in the process (for the tests of their lifetime).
int liveImageMemories();

/// Binds auglab._auglab.ImageBatch and ImageTensor.
void bindDlpack(py::module_& m);

/// A batch's memory as the Python ImageBatch.
py::object imageBatch(std::shared_ptr<ImageMemory> memory);

}  // namespace auglab::python
