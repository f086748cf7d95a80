#pragma once
// Which backends this build has, which are usable here, and creating one by name.

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace auglab {

/// State of every backend AugLab knows (cpu, gl, cuda), in Auto's order of preference reversed.
std::vector<BackendInfo> backendInfos(int cpuThreads = 0);
/// The backend Auto picks on this machine: CUDA with a device, else GL on a hardware renderer,
/// else CPU.
std::string autoBackendName();
/// Creates "auto", "cpu", "gl" or "cuda". Throws InputError for an unknown name or one that is not
/// available here (the message says why).
std::unique_ptr<Backend> createBackend(const std::string& name, int cpuThreads = 0);

}  // namespace auglab
