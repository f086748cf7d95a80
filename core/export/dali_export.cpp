// NVIDIA DALI pipeline code, for the GPU or, with device_id=None, the CPU: `augment(images)` builds
// the DALI graph of each op (its module's toPython), `auglab_pipeline` reads and decodes files and
// calls it. DALI conventions, from its docs and checked by running the exports
// (tests/test_export_runtimes):
// - fn.random.uniform needs lo < hi: a fixed value is drawn from values=[v]; fn.random.coin_flip
//   gives integers, cast to float for arithmetic; dmath functions need DataNodes, which every
//   parameter therefore is.
// - Arithmetic needs its operands on one device: per-sample CPU values are moved to the images'
//   device (_on).

#include "export_common.h"

namespace auglab {

using namespace exporting;

namespace {

// What every op's code may call.
const char* kCommonCode = R"(import math

from nvidia.dali import fn, pipeline_def, types
import nvidia.dali.math as dmath


def _uniform(lo, hi):
    """One float per sample from U(lo, hi); lo itself when lo == hi (DALI's range must not be empty)."""
    return fn.random.uniform(values=[lo]) if lo == hi else fn.random.uniform(range=(lo, hi))


def _coin(p):
    """1.0 with probability p, else 0.0, per sample."""
    return fn.cast(fn.random.coin_flip(probability=p), dtype=types.FLOAT)


def _on(images, x):
    """A per-sample CPU value where `images` is (arithmetic needs both on one device)."""
    return x.gpu() if images.device == "gpu" else x


def _maybe(images, changed, on):
    """`changed` where on is 1, `images` where it is 0."""
    on = _on(images, on)
    return fn.cast(changed * on + images * (1.0 - on), dtype=types.UINT8)


def _trunc(x):
    """Toward zero, as AugLab truncates (the clamp is the sign of x)."""
    return dmath.floor(dmath.abs(x)) * dmath.clamp(x * 1e9, -1.0, 1.0)
)";

}  // namespace

ExportResult exportDali(const Preset& preset) {
    ExportResult r;
    const PythonOps ops = pythonOps(preset, PythonTarget::Dali, "dali", r.warnings);
    std::string body = kCommonCode + pythonHelpers(PythonTarget::Dali, ops.helpersUsed);
    body += R"(

def augment(images):
    """The preset on a batch of uint8 RGB images (HWC), on the CPU or the GPU."""
    shape = images.shape(dtype=types.FLOAT)
    height, width = shape[0], shape[1]
)";
    body += ops.lines + R"(    return images


@pipeline_def(batch_size=64, num_threads=4, device_id=0)
def auglab_pipeline(file_root, device="gpu"):
    """Reads file_root's images and labels and augments them: decoded by nvJPEG on the GPU, or, with
    device="cpu" (and device_id=None), everything on the CPU."""
    jpegs, labels = fn.readers.file(file_root=file_root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed" if device == "gpu" else "cpu", output_type=types.RGB)
    return augment(images), labels
)";
    noteImagesOnly(preset, "dali", r.warnings);
    r.text = pythonHeader(preset, "dali", r.warnings) + body;
    return r;
}

}  // namespace auglab
