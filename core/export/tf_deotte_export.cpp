// A TensorFlow function of the matrix-and-gather kind (the approach of Chris Deotte's "Rotation
// Augmentation GPU/TPU" notebook, written here from AugLab's own definitions): each image draws its
// parameters, builds AugLab's forward matrix M = T(c) T(t) Sh R S T(-c), inverts it, and gathers
// the source pixel of every output pixel with AugLab's border rules. It runs in tf.data and on TPU.
// Each op's statements and helper functions are its module's (toPython); the ops the approach has
// no place for are named as missing.

#include "export_common.h"

namespace auglab {

using namespace exporting;

namespace {

// What every op's code may call: draws from a (lo, hi) pair, truncation toward zero.
const char* kCommonCode = R"(

def _uniform(bounds):
    lo, hi = bounds
    return tf.random.uniform([], lo, hi, dtype=tf.float32) if lo != hi else tf.constant(lo, tf.float32)


def _trunc(x):
    """Toward zero, as AugLab truncates (TensorFlow has no truncation for floats)."""
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))
)";

}  // namespace

ExportResult exportTfDeotte(const Preset& preset) {
    ExportResult r;
    const PythonOps ops = pythonOps(preset, PythonTarget::TfDeotte, "tf-deotte", r.warnings);
    std::string body = "import math\n\nimport tensorflow as tf\n";
    body += kCommonCode + pythonHelpers(PythonTarget::TfDeotte, ops.helpersUsed) + "\n\n";
    body += ops.configs +
            "\n\ndef augment(image):\n    \"\"\"One RGB(A) image, H x W x C, values 0-255 (use in tf.data: "
            "ds.map(augment)).\"\"\"\n";
    body += "    image = tf.cast(image, tf.float32)\n" + ops.lines +
            "    return tf.cast(tf.clip_by_value(image, 0.0, 255.0), tf.uint8)\n";
    noteImagesOnly(preset, "tf-deotte", r.warnings);
    r.text = pythonHeader(preset, "tf-deotte", r.warnings) + body;
    return r;
}

}  // namespace auglab
