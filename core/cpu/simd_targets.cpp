#include "cpu/simd_targets.h"

#include <hwy/targets.h>

namespace auglab::cpu {

void forEachSimdTarget(const std::function<void(const char* name)>& body) {
    struct Restore {
        ~Restore() { hwy::SetSupportedTargetsForTest(0); }
    } restore;
    for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        body(hwy::TargetName(target));
    }
}

}  // namespace auglab::cpu
