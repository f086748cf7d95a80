// DLPack 0.6's DLManagedTensor (Debian's libdlpack-dev, the ABI every consumer reads) in a
// "dltensor" capsule, the legacy form that the array API's consumers all accept when a producer has
// no versioned one (torch, NumPy 2, CuPy and JAX ask with max_version and take it).

#include "dlpack.h"

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "args.h"
#include "error.h"

namespace auglab::python {

namespace {

std::atomic<int> liveMemories{0};

constexpr std::size_t kAlignment = 256;  // DLPack's alignment of `data`, CUDA's of cudaMalloc

std::shared_ptr<unsigned char> hostAllocation(std::size_t bytes) {
    auto* p = static_cast<unsigned char*>(
        ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t(kAlignment)));
    return {p, [](unsigned char* q) { ::operator delete(q, std::align_val_t(kAlignment)); }};
}

std::string placeName(const MemoryPlace& place) {
    return place.kind == kDLCUDA ? "cuda:" + std::to_string(place.id) : "cpu";
}

/// A view of an ImageMemory: `shape` (H x W x C, or N x H x W x C for a stacked batch), C-contiguous
/// from `offset`.
struct Tensor {
    std::shared_ptr<ImageMemory> memory;
    std::size_t offset = 0;
    std::vector<std::int64_t> shape;

    std::size_t bytes() const {
        std::size_t n = 1;
        for (const std::int64_t d : shape) n *= static_cast<std::size_t>(d);
        return n;
    }
    const unsigned char* data() const { return memory->data.get() + offset; }
};

/// What a capsule hands over: the tensor's shape and a reference to its memory.
struct Exported {
    std::shared_ptr<ImageMemory> memory;
    std::vector<std::int64_t> shape;
    DLManagedTensor managed{};
};

void deleteExported(DLManagedTensor* self) {
    // Called by the consumer when its tensor goes, from any thread, with or without the GIL.
    delete static_cast<Exported*>(self->manager_ctx);
}

void destroyCapsule(PyObject* capsule) {
    // A consumer that took the tensor renamed the capsule "used_dltensor" and owns it now.
    if (!PyCapsule_IsValid(capsule, "dltensor")) return;
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed && managed->deleter) managed->deleter(managed);
}

py::capsule exportTensor(const Tensor& t) {
    auto* e = new Exported{t.memory, t.shape, {}};
    DLTensor& d = e->managed.dl_tensor;
    // The element's own address, byte_offset 0: torch, like most consumers, reads `data` alone.
    d.data = const_cast<unsigned char*>(t.data());
    d.device = DLDevice{static_cast<DLDeviceType>(t.memory->place.kind), t.memory->place.id};
    d.ndim = static_cast<int>(e->shape.size());
    d.dtype = DLDataType{kDLUInt, 8, 1};
    d.shape = e->shape.data();
    d.strides = nullptr;  // compact, row-major
    d.byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = deleteExported;
    PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", destroyCapsule);
    if (!capsule) {
        delete e;
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::capsule>(capsule);
}

/// A copy of `t` into new memory of its own, on the host or where it lies.
Tensor copied(const Tensor& t, bool toHost) {
    auto memory = std::make_shared<ImageMemory>();
    const std::size_t n = t.bytes();
    if (t.memory->place.kind == kDLCUDA && !toHost) {
        memory->place = t.memory->place;
        memory->data = copyOnDevice(t.data(), n);
    } else {
        memory->data = hostAllocation(n);
        if (t.memory->place.kind == kDLCUDA)
            copyDeviceToHost(memory->data.get(), t.data(), n);
        else if (n)
            std::memcpy(memory->data.get(), t.data(), n);
    }
    return Tensor{std::move(memory), 0, t.shape};
}

MemoryPlace placeOf(const py::handle& device, const std::string& what) {
    try {
        const auto pair = device.cast<std::pair<int, int>>();
        return MemoryPlace{pair.first, pair.second};
    } catch (const py::cast_error&) {
        throw py::type_error(what + ": expected a (device type, device id) pair, got " +
                             std::string(py::repr(device)));
    }
}

/// __dlpack__ with the array API's keywords (2023.12): `stream` the consumer's CUDA stream (the
/// images are written before the batch is returned, so any stream may read them at once; 0 is
/// ambiguous and refused), `max_version` (the legacy capsule is the answer to any), `dl_device`
/// (this device, or the host for a copy there) and `copy` (True: new memory; False: never copy).
py::capsule dlpack(const Tensor& t, const py::handle& stream, const py::handle& maxVersion,
                   const py::handle& dlDevice, const py::handle& copy) {
    (void)maxVersion;
    const MemoryPlace here = t.memory->place;
    // copy: None (copy only if it must), True (always), False (never).
    if (!copy.is_none() && !PyBool_Check(copy.ptr()))
        throw py::type_error("copy: expected a bool or None, got " + describe(copy));
    const bool always = !copy.is_none() && copy.ptr() == Py_True, never = !copy.is_none() && !always;
    bool toHost = false;
    if (!dlDevice.is_none()) {
        const MemoryPlace asked = placeOf(dlDevice, "dl_device");
        if (asked.kind != here.kind || asked.id != here.id) {
            if (asked.kind != kDLCPU || never)
                throw py::buffer_error("dl_device: the images are on " + placeName(here) +
                                       (asked.kind == kDLCPU
                                            ? " and copy=False forbids the copy to the host"
                                            : "; only a copy to the host (1, 0) is offered"));
            toHost = true;
        }
    }
    if (!stream.is_none()) {
        if (!PyIndex_Check(stream.ptr()))
            throw py::type_error("stream: expected an integer or None, got " +
                                 std::string(py::str(py::type::handle_of(stream).attr("__name__"))));
        if (here.kind == kDLCUDA && py::cast<long long>(stream) == 0)
            throw py::value_error("stream: 0 is ambiguous in DLPack (give 1 for the legacy default stream)");
    }
    if (toHost || always) return exportTensor(copied(t, toHost));
    return exportTensor(t);
}

py::array hostArray(const Tensor& t) {
    const Tensor host = t.memory->place.kind == kDLCPU ? t : copied(t, true);
    auto* held = new std::shared_ptr<ImageMemory>(host.memory);
    py::capsule owner(held, [](void* p) { delete static_cast<std::shared_ptr<ImageMemory>*>(p); });
    std::vector<py::ssize_t> shape(host.shape.begin(), host.shape.end()), strides(shape.size());
    py::ssize_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= shape[i];
    }
    // The buffer is the module's own, made for the caller: writable, as a consumer of __dlpack__ gets it.
    return py::array(py::dtype::of<std::uint8_t>(), shape, strides, host.data(), owner);
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s;
    for (const std::int64_t d : shape) s += (s.empty() ? "" : " x ") + std::to_string(d);
    return s;
}

struct Batch {
    std::shared_ptr<ImageMemory> memory;

    std::size_t size() const { return memory->items.size(); }
    Tensor at(const py::handle& index) const {
        return at(static_cast<py::ssize_t>(saturatedInteger(index, "index")));
    }
    Tensor at(py::ssize_t k) const {
        const auto n = static_cast<py::ssize_t>(size());
        if (k < -n || k >= n)
            throw py::index_error("image " + std::to_string(k) + " of a batch of " + std::to_string(n));
        const DeviceImages::Item& item = memory->items[static_cast<std::size_t>(k < 0 ? k + n : k)];
        return Tensor{memory, item.offset, {item.height, item.width, item.channels}};
    }
    Tensor stack() const {
        if (memory->items.empty()) throw py::value_error("stack: the batch has no image");
        const Tensor first = at(0);
        for (std::size_t k = 1; k < size(); ++k) {
            const Tensor other = at(static_cast<py::ssize_t>(k));
            if (other.shape != first.shape)
                throw py::value_error(
                    "stack: the images differ in size: [0] is " + shapeText(first.shape) + ", [" +
                    std::to_string(k) + "] is " + shapeText(other.shape) +
                    " (a pipeline that ends with a fixed-size crop or resize gives one size)");
        }
        Tensor all = first;
        all.shape.insert(all.shape.begin(), static_cast<std::int64_t>(size()));
        return all;
    }
};

}  // namespace

ImageMemory::ImageMemory() {
    ++liveMemories;
}
ImageMemory::~ImageMemory() {
    --liveMemories;
}

int liveImageMemories() {
    return liveMemories.load();
}

std::shared_ptr<ImageMemory> hostMemory(std::vector<Image> images) {
    auto memory = std::make_shared<ImageMemory>();
    std::size_t total = 0;
    for (const Image& image : images) {
        DeviceImages::Item item{total, image.width, image.height, image.channels};
        if (image.pixels.empty()) item = DeviceImages::Item{total, 0, 0, image.channels};
        memory->items.push_back(item);
        total += item.bytes();
    }
    memory->data = hostAllocation(total);
    for (std::size_t k = 0; k < images.size(); ++k) {
        if (const std::size_t n = memory->items[k].bytes())
            std::memcpy(memory->data.get() + memory->items[k].offset, images[k].pixels.data(), n);
        images[k] = Image();
    }
    return memory;
}

std::shared_ptr<ImageMemory> deviceMemory(DeviceImages images) {
    auto memory = std::make_shared<ImageMemory>();
    memory->data = std::move(images.memory);
    memory->place = MemoryPlace{kDLCUDA, images.device};
    memory->items = std::move(images.items);
    return memory;
}

py::object imageBatch(std::shared_ptr<ImageMemory> memory) {
    return py::cast(Batch{std::move(memory)});
}

void bindDlpack(py::module_& m) {
    py::class_<Tensor>(m, "ImageTensor")
        .def_property_readonly("shape",
                               [](const Tensor& t) {
                                   py::tuple shape(t.shape.size());
                                   for (std::size_t i = 0; i < t.shape.size(); ++i) shape[i] = t.shape[i];
                                   return shape;
                               })
        .def_property_readonly("device", [](const Tensor& t) { return placeName(t.memory->place); })
        .def("__dlpack_device__",
             [](const Tensor& t) { return py::make_tuple(t.memory->place.kind, t.memory->place.id); })
        .def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(),
             py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
             py::arg("copy") = py::none())
        .def("numpy", &hostArray)
        .def("__repr__", [](const Tensor& t) {
            return "auglab.ImageTensor(uint8 " + shapeText(t.shape) + " on " + placeName(t.memory->place) +
                   ")";
        });
    py::class_<Batch>(m, "ImageBatch")
        .def("__len__", &Batch::size)
        .def("__getitem__", py::overload_cast<const py::handle&>(&Batch::at, py::const_), py::arg("index"))
        .def("stack", &Batch::stack)
        .def_property_readonly("device", [](const Batch& b) { return placeName(b.memory->place); })
        .def("__repr__", [](const Batch& b) {
            return "auglab.ImageBatch(" + std::to_string(b.size()) + " images on " +
                   placeName(b.memory->place) + ")";
        });
    m.def("_live_image_memories", &liveImageMemories);
}

}  // namespace auglab::python
