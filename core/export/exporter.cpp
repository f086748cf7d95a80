#include "exporter.h"

#include "error.h"

namespace auglab {

const std::vector<ExportTarget>& exportTargets() {
    static const std::vector<ExportTarget> targets{
        {"albumentations", "JSON for A.load() of Albumentations 2.0.x", ".json", &exportAlbumentations},
        {"albumentationsx", "JSON for A.load() of AlbumentationsX (current names)", ".json",
         &exportAlbumentationsX},
        {"albumentations-py", "Python code building the same A.Compose", ".py", &exportAlbumentationsPython},
        {"torchvision", "Python code with torchvision.transforms.v2", ".py", &exportTorchvision},
        {"keras", "Python code with Keras 3 preprocessing layers", ".py", &exportKeras},
        {"tf-deotte", "A TensorFlow matrix/gather augmentation function", ".py", &exportTfDeotte},
        {"dali", "Python code building an NVIDIA DALI pipeline", ".py", &exportDali},
    };
    return targets;
}

ExportResult exportPreset(const Preset& preset, std::string_view target) {
    std::string known;
    for (const ExportTarget& t : exportTargets()) {
        if (t.name == target) return t.write(preset);
        known += (known.empty() ? "" : ", ") + t.name;
    }
    throw InputError("unknown export target \"" + std::string(target) + "\" (expected one of: " + known +
                     ")");
}

}  // namespace auglab
