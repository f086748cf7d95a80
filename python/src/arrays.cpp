#include "arrays.h"

#include <algorithm>

#include <cstring>
#include <utility>

#include "image_io.h"

namespace auglab::python {

namespace {

PixelView viewOf(const py::handle& object, const std::string& what, bool mask) {
    if (!py::isinstance<py::array>(object))
        throw py::type_error(what + ": expected a NumPy array, got " +
                             std::string(py::str(py::type::handle_of(object).attr("__name__"))));
    const auto array = py::reinterpret_borrow<py::array>(object);
    // array_t's check compares the dtype as NumPy does (PyArray_EquivTypes), which holds for NumPy 1
    // and 2 alike; dtype::itemsize() does not with pybind11 before 2.12 (it reads NumPy 1's layout).
    if (!py::isinstance<py::array_t<std::uint8_t>>(array))
        throw py::value_error(what + ": expected dtype uint8, got " + std::string(py::str(array.dtype())));
    const auto shape = [&] {
        std::string s = "(";
        for (py::ssize_t i = 0; i < array.ndim(); ++i) s += (i ? ", " : "") + std::to_string(array.shape(i));
        return s + (array.ndim() == 1 ? ",)" : ")");
    };
    if (mask ? array.ndim() != 2 : array.ndim() != 3 || (array.shape(2) != 3 && array.shape(2) != 4))
        throw py::value_error(what +
                              (mask ? ": expected an H x W array, got shape "
                                    : ": expected an H x W x 3 (RGB) or H x W x 4 (RGBA) array, got shape ") +
                              shape());
    if (array.shape(0) < 1 || array.shape(1) < 1)
        throw py::value_error(what + ": expected at least one pixel, got shape " + shape());
    // Before anything is copied: a view (a broadcast, a memory map) may show more pixels than the
    // engine's copy of them could hold.
    if (overPixelLimit(array.shape(0), array.shape(1)))
        throw py::value_error(what + ": " + overPixelLimitText(array.shape(0), array.shape(1)));
    PixelView v;
    v.data = static_cast<const std::uint8_t*>(array.data());
    v.height = static_cast<int>(array.shape(0));
    v.width = static_cast<int>(array.shape(1));
    v.channels = mask ? 1 : static_cast<int>(array.shape(2));
    v.rowStride = array.strides(0);
    v.pixelStride = array.strides(1);
    v.channelStride = mask ? 1 : array.strides(2);
    return v;
}

/// Copies rows [0, height) of `v` into `dst` (packed rows of width * channels bytes).
void copyRows(const PixelView& v, std::uint8_t* dst) {
    const std::size_t rowBytes = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels);
    const bool packedRows = v.channelStride == 1 && v.pixelStride == v.channels;
    if (packedRows && v.rowStride == static_cast<std::ptrdiff_t>(rowBytes)) {
        std::memcpy(dst, v.data, rowBytes * static_cast<std::size_t>(v.height));
        return;
    }
    for (int y = 0; y < v.height; ++y, dst += rowBytes) {
        const std::uint8_t* row = v.data + static_cast<std::ptrdiff_t>(y) * v.rowStride;
        if (packedRows) {
            std::memcpy(dst, row, rowBytes);
            continue;
        }
        std::uint8_t* out = dst;
        for (int x = 0; x < v.width; ++x) {
            const std::uint8_t* px = row + static_cast<std::ptrdiff_t>(x) * v.pixelStride;
            for (int c = 0; c < v.channels; ++c)
                *out++ = px[static_cast<std::ptrdiff_t>(c) * v.channelStride];
        }
    }
}

}  // namespace

bool overPixelLimit(std::int64_t height, std::int64_t width) {
    // By division: the product of two sizes may overflow.
    return height > 0 && width > kMaxImagePixels / height;
}

std::string pixelLimitText() {
    return "the " + std::to_string(kMaxImagePixels / 1'000'000) +
           " megapixel limit (auglab.MAX_PIXELS, auglab-cli's)";
}

std::string overPixelLimitText(std::int64_t height, std::int64_t width) {
    return std::to_string(height) + " x " + std::to_string(width) + " (H x W) is over " + pixelLimitText();
}

PixelView imageView(const py::handle& array, const std::string& what) {
    return viewOf(array, what, false);
}

PixelView maskView(const py::handle& array, const std::string& what) {
    return viewOf(array, what, true);
}

Image imageFromView(const PixelView& view) {
    Image image(view.width, view.height, view.channels, Image::Uninitialised{});
    copyRows(view, image.pixels.data());
    return image;
}

std::unique_ptr<SourceLevels> sourceFromView(const PixelView& v) {
    const std::size_t rowBytes = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels);
    if (v.channelStride == 1 && v.pixelStride == v.channels && v.rowStride >= static_cast<std::ptrdiff_t>(rowBytes)) {
        const auto stride = static_cast<std::size_t>(v.rowStride);
        return std::make_unique<SourceLevels>(
            ImageView(v.data, stride * static_cast<std::size_t>(v.height - 1) + rowBytes, v.width, v.height,
                      v.channels, stride));
    }
    return std::make_unique<SourceLevels>(imageFromView(v));
}

Mask maskFromView(const PixelView& view) {
    Mask m;
    m.width = view.width;
    m.height = view.height;
    m.values.resize(static_cast<std::size_t>(view.width) * static_cast<std::size_t>(view.height));
    copyRows(view, m.values.data());
    return m;
}

py::array arrayFromImage(Image image) {
    auto* held = new Image(std::move(image));
    py::capsule owner(held, [](void* p) { delete static_cast<Image*>(p); });
    const py::ssize_t c = held->channels;
    return py::array(py::dtype::of<std::uint8_t>(), {py::ssize_t(held->height), py::ssize_t(held->width), c},
                     {static_cast<py::ssize_t>(held->stride), c, py::ssize_t(1)}, held->pixels.data(), owner);
}

py::array arrayFromMask(Mask mask) {
    auto* held = new Mask(std::move(mask));
    py::capsule owner(held, [](void* p) { delete static_cast<Mask*>(p); });
    return py::array(py::dtype::of<std::uint8_t>(), {py::ssize_t(held->height), py::ssize_t(held->width)},
                     {py::ssize_t(held->width), py::ssize_t(1)}, held->values.data(), owner);
}

TailedSample withTail(Image image, const std::vector<TailOp>& tail) {
    TailedSample out;
    for (const TailOp& op : tail)
        if (op.kind == TailOp::Kind::ToTensor) out.transposeMask = out.transposeMask || op.transposeMask;
    const bool layoutOnly = std::all_of(tail.begin(), tail.end(),
                                        [](const TailOp& op) { return op.kind == TailOp::Kind::ToTensor; });
    if (layoutOnly) {
        out.chw = !tail.empty();
        out.image = std::move(image);
    } else {
        out.tail = renderTail(image, tail);
    }
    return out;
}

py::array arrayOf(TailedSample sample) {
    if (!sample.tail) {
        py::array a = arrayFromImage(std::move(sample.image));
        if (!sample.chw) return a;
        return a.attr("transpose")(2, 0, 1);
    }
    auto* held = new TailImage(std::move(*sample.tail));
    py::capsule owner(held, [](void* p) { delete static_cast<TailImage*>(p); });
    const py::dtype type = held->type == TailType::Float32  ? py::dtype::of<float>()
                           : held->type == TailType::UInt16 ? py::dtype::of<std::uint16_t>()
                           : held->type == TailType::UInt32 ? py::dtype::of<std::uint32_t>()
                                                            : py::dtype::of<std::uint8_t>();
    const auto size = static_cast<py::ssize_t>(tailTypeSize(held->type));
    const py::ssize_t h = held->height, w = held->width, c = held->channels;
    if (held->chw)
        return py::array(type, {c, h, w}, {h * w * size, w * size, size}, held->data.get(), owner);
    return py::array(type, {h, w, c}, {w * c * size, c * size, size}, held->data.get(), owner);
}

}  // namespace auglab::python
