#include "args.h"

#include <climits>

namespace auglab::python {

namespace {

constexpr std::size_t kReprLength = 60;  // a repr longer than this is cut, with "..."

std::string typeName(const py::handle& value) {
    return py::str(py::type::handle_of(value).attr("__name__"));
}

/// The bytes of a bytes object (it may hold NULs).
std::string bytesOf(PyObject* bytes) {
    return std::string(PyBytes_AS_STRING(bytes), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes)));
}

}  // namespace

std::string describe(const py::handle& value) {
    std::string r;
    try {
        r = py::repr(value);
    } catch (const py::error_already_set&) {
        return typeName(value);
    }
    if (r.size() > kReprLength) r = r.substr(0, kReprLength - 3) + "...";
    return typeName(value) + " " + r;
}

namespace {

/// `value` as a Python integer (int, or anything with __index__; not bool) in a long long, and
/// whether it overflowed one (`overflow`: -1 below, +1 above, as CPython says).
long long asLongLong(const py::handle& value, const std::string& what, int& overflow, py::object& number) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw py::type_error(what + ": expected an integer, got " + describe(value));
    number = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!number) throw py::error_already_set();
    overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return v;
}

}  // namespace

long long integerArg(const py::handle& value, const std::string& what, long long lo, long long hi) {
    int overflow = 0;
    py::object number;
    const long long v = asLongLong(value, what, overflow, number);
    if (overflow || v < lo || v > hi)
        throw py::value_error(what + ": expected " + std::to_string(lo) + " .. " + std::to_string(hi) +
                              ", got " + std::string(py::str(number)));
    return v;
}

long long saturatedInteger(const py::handle& value, const std::string& what) {
    int overflow = 0;
    py::object number;
    const long long v = asLongLong(value, what, overflow, number);
    if (overflow) return overflow > 0 ? LLONG_MAX : LLONG_MIN;
    return v;
}

std::uint64_t unsigned64(const py::handle& value, const std::string& what) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw py::type_error(what + ": expected an integer, got " + describe(value));
    const auto number = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!number) throw py::error_already_set();
    const unsigned long long v = PyLong_AsUnsignedLongLong(number.ptr());
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(what + ": expected 0 .. 2^64 - 1, got " + std::string(py::str(number)));
    }
    return static_cast<std::uint64_t>(v);
}

std::string textArg(const py::handle& value, const std::string& what) {
    if (!PyUnicode_Check(value.ptr()))
        throw py::type_error(what + ": expected a str, got " + describe(value));
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (!utf8) {
        PyErr_Clear();
        throw py::value_error(what + ": " + std::string(py::repr(value)) +
                              " cannot be encoded as UTF-8 (it holds a lone surrogate)");
    }
    return std::string(utf8, static_cast<std::size_t>(size));
}

std::filesystem::path pathArg(const py::handle& value, const std::string& what) {
    // os.fspath: a str, bytes, or what an os.PathLike's __fspath__ gives.
    const auto name = py::reinterpret_steal<py::object>(PyOS_FSPath(value.ptr()));
    if (!name) {
        PyErr_Clear();
        throw py::type_error(what + ": expected a str, bytes or os.PathLike, got " + describe(value));
    }
    std::string bytes;
    if (PyUnicode_Check(name.ptr())) {
        // As open() does: the file system encoding (UTF-8 on Linux) with surrogateescape, so that
        // b"\xff.png" read by os.listdir as "\udcff.png" is that file again.
        const auto encoded = py::reinterpret_steal<py::object>(PyUnicode_EncodeFSDefault(name.ptr()));
        if (!encoded) {
            PyErr_Clear();
            throw py::value_error(
                what + ": " + std::string(py::repr(name)) + " cannot be encoded as a file name (" +
                std::string(py::str(py::module_::import("sys").attr("getfilesystemencoding")())) +
                ", surrogateescape)");
        }
        bytes = bytesOf(encoded.ptr());
    } else {
        bytes = bytesOf(name.ptr());
    }
    if (bytes.find('\0') != std::string::npos)
        throw py::value_error(what + ": " + std::string(py::repr(name)) + " holds a NUL character");
    return std::filesystem::path(bytes);
}

py::str messageText(const std::string& message) {
    PyObject* text =
        PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace");
    if (!text) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(text);
}

bool flagArg(const py::handle& value, const std::string& what) {
    if (!py::isinstance<py::bool_>(value))
        throw py::type_error(what + ": expected True or False, got " + describe(value));
    return value.cast<bool>();
}

}  // namespace auglab::python
