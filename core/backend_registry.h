#pragma once
// Which backends this build has, which are usable here, and creating one by name.

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace auglab {

/// State of every backend AugLab knows: cpu, gl, cuda. Probing GL needs a QGuiApplication in the
/// process (auglab-cli and the app create one); without it GL reports why it is unavailable.
std::vector<BackendInfo> backendInfos(int cpuThreads = 0);
/// The backend Auto picks on this machine: CUDA with a device, else GL on a hardware renderer,
/// else CPU (a software GL such as llvmpipe is slower than the CPU backend).
std::string autoBackendName();
/// "auto", "cpu", "gl" or "cuda". The result falls back to the next backend (ending with the CPU)
/// when one fails at run time; its name() says which one rendered last. Throws InputError for an
/// unknown name or an explicitly requested backend that is not available here (with the reason).
std::unique_ptr<Backend> createBackend(const std::string& name, int cpuThreads = 0);

}  // namespace auglab
