// torchvision.transforms.v2 code: a Compose of each op's transform (its module's toPython), with
// the exact helper classes the ops need where torchvision has no exact equivalent.

#include "export_common.h"

namespace auglab {

using namespace exporting;

ExportResult exportTorchvision(const Preset& preset) {
    ExportResult r;
    const PythonOps ops = pythonOps(preset, PythonTarget::Torchvision, "torchvision", r.warnings);
    std::string body = "import torch\nfrom torchvision.transforms import v2\n";
    body += pythonHelpers(PythonTarget::Torchvision, ops.helpersUsed);
    body += "\n\n# Expects uint8 image tensors (C x H x W, RGB), e.g. from torchvision.io.decode_image.\n";
    body += "transform = v2.Compose([\n" + ops.lines + "])\n";
    r.text = pythonHeader(preset, "torchvision", r.warnings) + body;
    return r;
}

}  // namespace auglab
