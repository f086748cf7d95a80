#pragma once
// The training tail: normalize, to_float, from_float, to_tensor (module: training.cpp). They draw
// nothing but the gate and are never previewed: kept in presets and exported as they are.

#include "op_types.h"

namespace auglab {

class OpModule;

struct TrainingParams {
    bool operator==(const TrainingParams&) const = default;
};

const OpModule& normalizeModule();
const OpModule& toFloatModule();
const OpModule& fromFloatModule();
const OpModule& toTensorModule();

}  // namespace auglab
