// Keras 3: a keras.Sequential of each op's layers (its module's toPython), with the helper layers
// the ops need where Keras has no exact equivalent. Keras has no per-op probability: the file
// defines ApplyWithProbability. Conventions were checked by running Keras 3.15 and against its
// source (see each module).

#include <algorithm>

#include "export_common.h"

namespace auglab {

using namespace exporting;

namespace {

// Keras has no per-op probability: the ops' layers are wrapped in this (kerasWithP).
const char* kApplyWithProbability = R"(

class ApplyWithProbability(keras.layers.Layer):
    """Applies `fn` to each image of a batch with probability p (AugLab's per-op p)."""

    def __init__(self, fn, p, **kwargs):
        super().__init__(**kwargs)
        self.fn, self.p = fn, p
        self.seed_generator = keras.random.SeedGenerator()

    def call(self, images, training=True):
        if not training:
            return images
        out = keras.ops.cast(self.fn(images), "float32")
        u = keras.random.uniform((keras.ops.shape(images)[0], 1, 1, 1), seed=self.seed_generator)
        return keras.ops.where(u < self.p, out, keras.ops.cast(images, "float32"))
)";

}  // namespace

ExportResult exportKeras(const Preset& preset) {
    ExportResult r;
    auto& w = r.warnings;
    const PythonOps ops = pythonOps(preset, PythonTarget::Keras, "keras", w);
    std::string lines = ops.lines;
    // keras.Sequential([]) cannot be built (it raises when called): a preset of which nothing can be
    // exported becomes an identity, and says so.
    const bool anyLayer = hasPythonItem(lines);
    if (!anyLayer && !ops.configs.empty()) {
        lines += "    layers.Identity(),  # only batch-level ops: see mix_batch below\n";
    } else if (!anyLayer) {
        w.push_back(
            "nothing in this preset can be expressed in Keras: the model passes images through unchanged "
            "(layers.Identity).");
        lines += "    layers.Identity(),  # nothing of this preset is exported (see the warnings above)\n";
    }
    std::string body = "import keras\nfrom keras import layers\n";
    body += kApplyWithProbability + pythonHelpers(PythonTarget::Keras, ops.helpersUsed);
    if (ops.groupHelperUsed) body += kerasGroupHelper();
    body += "\n\n# Batches of RGB images, channels last, values 0-255.\naugment = keras.Sequential([\n" +
            lines + "])\n";
    if (!ops.configs.empty()) {
        // Ops that mix a batch (their modules' configs): batch-level, with the labels.
        body += R"(

# The ops below mix the images of a batch and their labels: applied to whole batches after
# `augment`, e.g. dataset.map(lambda x, y: mix_batch(augment(x), y)), labels one-hot (float).
# Each layer runs on each image with its probability.
BATCH_MIXES = [
)" + ops.configs +
                R"(]


def mix_batch(images, labels):
    images = keras.ops.cast(images, "float32")
    labels = keras.ops.cast(labels, "float32")
    for layer, p in BATCH_MIXES:
        mixed = layer({"images": images, "labels": labels})
        take = keras.random.uniform((keras.ops.shape(images)[0],)) < p
        images = keras.ops.where(take[:, None, None, None], mixed["images"], images)
        labels = keras.ops.where(take[:, None], mixed["labels"], labels)
    return images, labels
)";
    }
    noteImagesOnly(preset, "keras", w);
    r.text = pythonHeader(preset, "keras", w) + body;
    return r;
}

}  // namespace auglab
