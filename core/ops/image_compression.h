#pragma once
// image_compression: a lossy JPEG or WebP round trip (module: image_compression.cpp).

#include "op_types.h"

namespace auglab {

class OpModule;

struct CompressionParams {
    bool webp = false;  ///< WebP; JPEG otherwise
    int quality = 100;  ///< 1..100
    bool operator==(const CompressionParams&) const = default;
};

const OpModule& imageCompressionModule();

}  // namespace auglab
