#pragma once
// The module's arguments read from Python objects by hand rather than by pybind11's typed
// signatures: a wrong type then says which argument and what was expected ("threads: expected an
// integer, got float 2.0"), where pybind11 would list the whole signature as "incompatible function
// arguments". Paths follow Python's own rules (os.fspath, then the file system encoding with its
// surrogateescape), so that a file name that is not UTF-8, as os.listdir gives it, still opens.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace auglab::python {

namespace py = pybind11;

/// `value`'s type and a short repr, for errors: "float 2.0".
std::string describe(const py::handle& value);

/// A Python integer (or an object with __index__, not a bool) in [lo, hi]: TypeError naming `what`
/// for another type, ValueError for a value outside.
long long integerArg(const py::handle& value, const std::string& what, long long lo, long long hi);

/// A Python integer of any size (or an object with __index__, not a bool), saturated to long long's
/// range: for sizes, where anything past int is refused as too large anyway.
long long saturatedInteger(const py::handle& value, const std::string& what);

/// A sample index or a seed: any Python integer (or object with __index__) in 0 .. 2^64 - 1.
std::uint64_t unsigned64(const py::handle& value, const std::string& what);

/// A bool (True or False; not an integer, so that a misplaced positional argument is caught):
/// TypeError naming `what` otherwise.
bool flagArg(const py::handle& value, const std::string& what);

/// A str, as UTF-8: TypeError for another type, ValueError for a str that UTF-8 cannot encode (a lone
/// surrogate).
std::string textArg(const py::handle& value, const std::string& what);

/// A file name: a str, bytes or os.PathLike, as Python's open() takes it. TypeError for another type,
/// ValueError for a str the file system encoding cannot encode or a name with a NUL character.
std::filesystem::path pathArg(const py::handle& value, const std::string& what);

/// An engine message (UTF-8, but a file name in it may hold any bytes) as a Python str: bytes that
/// are not UTF-8 are written as \xNN escapes.
py::str messageText(const std::string& message);

}  // namespace auglab::python
