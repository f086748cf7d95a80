#pragma once
// The partner pool of mixing ops (mixup, cutmix, the 4-image grid) given from Python: a sequence of
// images, read into the engine only when a sample's drawn partner needs it (core/partners.h).

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrays.h"
#include "contact_sheet.h"
#include "error.h"

namespace auglab::python {

namespace py = pybind11;

/// The images of a pool, numbered from 0. A list or tuple of arrays is viewed at once (its partners
/// are then read without the GIL); any other sequence (`len` and `[i]`, a dataset) is asked for item
/// i only when a sample draws it, with the GIL taken for that. Made and destroyed under the GIL; the
/// loaders it gives must not outlive it.
class PartnerImages {
public:
    /// `sequence` as a pool; `what` names it in errors ("partners").
    PartnerImages(const py::handle& sequence, std::string what);
    /// The batch's own images as the pool (views that the caller keeps alive).
    explicit PartnerImages(std::vector<PixelView> views);

    std::uint64_t size() const { return size_; }

    /// A loader of pool image `i + offset` for pool index i (offset -1: apply's pool, where index 0
    /// is the sample's own image and never asked for here). ValueError (InputError) naming the item
    /// when it is not an image array.
    PartnerLoader loader(std::int64_t offset) const;

    /// The pool of one image: with `self` empty, apply's (the image, then each item: --partner);
    /// else these items are the whole pool and the image its item `self` (augment's folder).
    /// ValueError naming `what` when `self` is not an item.
    Partners pool(std::optional<std::uint64_t> self, const std::string& what) const;

private:
    std::shared_ptr<SourceLevels> load(std::uint64_t item) const;

    std::string what_;
    std::uint64_t size_ = 0;
    std::vector<py::object> held_;  // a list's or tuple's items, kept alive for views_
    std::vector<PixelView> views_;  // eager: every item's view
    py::object lazy_;               // lazy: the sequence (null when eager)
};

/// The Python error `e` met reading pool item `name` ("partners[3]"), as the engine reports an
/// unreadable partner: an InputError naming the item, with the error's type unless its message names
/// the item already (the module's own checks of an item do).
InputError itemError(const std::string& name, const py::error_already_set& e);

}  // namespace auglab::python
