#pragma once
// Error types of the engine. Bad input (a file, a preset, a command-line value) is an InputError:
// the CLI maps it to exit code 2. Everything else that fails at run time is a RuntimeError (exit 1).

#include <stdexcept>
#include <string>

namespace auglab {

/// The user's input is wrong: the message says what and where (a file name, a JSON path).
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Something failed that is not the input's fault (disk full, a backend fault).
class RuntimeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace auglab
