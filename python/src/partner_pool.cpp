#include "partner_pool.h"

#include <utility>

namespace auglab::python {

PartnerImages::PartnerImages(const py::handle& sequence, std::string what) : what_(std::move(what)) {
    if (py::isinstance<py::list>(sequence) || py::isinstance<py::tuple>(sequence)) {
        for (const py::handle item : sequence) {
            held_.push_back(py::reinterpret_borrow<py::object>(item));
            views_.push_back(imageView(item, what_ + "[" + std::to_string(views_.size()) + "]"));
        }
        size_ = views_.size();
        return;
    }
    if (py::isinstance<py::array>(sequence) || py::isinstance<py::str>(sequence) ||
        !py::hasattr(sequence, "__len__") || !py::hasattr(sequence, "__getitem__"))
        throw py::type_error(what_ +
                             ": expected a sequence of images (a list of arrays, or any object with "
                             "len() and [i]), got " +
                             std::string(py::str(py::type::handle_of(sequence).attr("__name__"))));
    lazy_ = py::reinterpret_borrow<py::object>(sequence);
    size_ = py::len(sequence);
}

PartnerImages::PartnerImages(std::vector<PixelView> views)
    : what_("images"), size_(views.size()), views_(std::move(views)) {}

std::shared_ptr<SourceLevels> PartnerImages::load(std::uint64_t item) const {
    const std::string name = what_ + "[" + std::to_string(item) + "]";
    if (item >= size_) throw InputError(name + ": outside the pool of " + std::to_string(size_) + " images");
    if (!lazy_) return std::make_shared<SourceLevels>(imageFromView(views_[item]));
    // Called on an engine thread while the caller has released the GIL: take it for the item.
    py::gil_scoped_acquire gil;
    try {
        const py::object image = lazy_[py::int_(item)];
        return std::make_shared<SourceLevels>(imageFromView(imageView(image, name)));
    } catch (py::error_already_set& e) {
        throw itemError(name, e);
    } catch (const py::builtin_exception& e) {
        throw InputError(e.what());
    }
}

PartnerLoader PartnerImages::loader(std::int64_t offset) const {
    return [this, offset](std::uint64_t index, int, int) {
        return load(static_cast<std::uint64_t>(static_cast<std::int64_t>(index) + offset));
    };
}

Partners PartnerImages::pool(std::optional<std::uint64_t> self, const std::string& what) const {
    if (!self) return {PartnerPool{size_ + 1, 0}, loader(-1)};
    if (*self >= size_)
        throw py::value_error(what + ": expected 0 .. " + std::to_string(size_) + " - 1 (an item of " +
                              what_ + "), got " + std::to_string(*self));
    return {PartnerPool{size_, *self}, loader(0)};
}

InputError itemError(const std::string& name, const py::error_already_set& e) {
    // The exception's type and message, without the traceback what() adds.
    const std::string message = py::str(e.value());
    if (message.rfind(name + ": ", 0) == 0) return InputError(message);
    return InputError(name + ": " + std::string(py::str(e.type().attr("__name__"))) + ": " + message);
}

}  // namespace auglab::python
