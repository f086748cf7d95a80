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
    if (ops.groupHelperUsed) body += torchvisionGroupHelper();
    body += "\n\n# Expects uint8 image tensors (C x H x W, RGB), e.g. from torchvision.io.decode_image.\n";
    // v2.Compose([]) raises: a preset with no per-image transform (only batch-level ops, or nothing
    // exportable) gets an identity.
    const bool anyItem = hasPythonItem(ops.lines);
    body += "transform = v2.Compose([\n" + ops.lines +
            (anyItem ? "" : "    v2.Identity(),  # no per-image transform in this preset\n") + "])\n";
    if (!ops.configs.empty()) {
        // Ops that mix a batch (their modules' configs): batch-level, with the labels.
        body += R"(

# The ops below mix the images of a batch and their labels: torchvision applies them to whole
# batches, after `transform`, in the DataLoader's collate function:
#     DataLoader(dataset, batch_size=..., collate_fn=collate_fn)
# Set NUM_CLASSES to your number of classes. Labels come out one-hot and mixed (float).
NUM_CLASSES = 10
batch_transform = v2.Compose([
)" + ops.configs +
                R"(])


def collate_fn(batch):
    """Stacks (image, label) pairs, then mixes them: uint8 images (rounded as AugLab rounds), soft labels."""
    images, labels = torch.utils.data.default_collate(batch)
    labels = torch.nn.functional.one_hot(labels, NUM_CLASSES).float()
    images, labels = batch_transform(images.float(), labels)
    return torch.floor(images + 0.5).clamp(0, 255).to(torch.uint8), labels
)";
    }
    noteImagesOnly(preset, "torchvision", r.warnings);
    r.text = pythonHeader(preset, "torchvision", r.warnings) + body;
    return r;
}

}  // namespace auglab
