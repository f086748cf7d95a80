// Python code that builds the same A.Compose as the JSON export: the arguments are those of the
// JSON document, written as Python literals (tuples for ranges, cv2 constants for OpenCV enums).

#include <utility>

#include "albumentations_common.h"
#include "export_common.h"

namespace auglab::exporting {

namespace {

using json = nlohmann::ordered_json;

std::string pyValue(const json& v) {
    if (v.is_null()) return "None";
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
    if (v.is_number_float()) return pyFloat(v.get<double>());
    if (v.is_string()) return pyString(v.get<std::string>());
    if (v.is_array()) {
        std::string s = "(";
        for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + pyValue(v[i]);
        return s + (v.size() == 1 ? ",)" : ")");
    }
    std::string s = "{";
    bool first = true;
    for (const auto& item : v.items()) {
        s += (first ? "" : ", ") + pyString(item.key()) + ": " + pyValue(item.value());
        first = false;
    }
    return s + "}";
}

std::string argument(const std::string& key, const json& v) {
    // OpenCV enums by name, so the code reads as the user would write it.
    static const char* const kBorders[] = {"cv2.BORDER_CONSTANT", "cv2.BORDER_REPLICATE",
                                           "cv2.BORDER_REFLECT", "cv2.BORDER_WRAP", "cv2.BORDER_REFLECT_101"};
    if (key == "border_mode" && v.is_number_integer() && v.get<int>() >= 0 && v.get<int>() <= 4)
        return kBorders[v.get<int>()];
    if ((key == "interpolation" || key == "mask_interpolation") && v.is_number_integer())
        return v.get<int>() == 0 ? "cv2.INTER_NEAREST" : "cv2.INTER_LINEAR";
    return pyValue(v);
}

bool usesClass(const json& list, const std::string& cls) {
    for (const json& t : list)
        if (t["__class_fullname__"] == cls || (t.contains("transforms") && usesClass(t["transforms"], cls)))
            return true;
    return false;
}

/// One transform (or composition, with its children) as a constructor call, indented by `indent`.
std::string transformCall(const json& t, const std::string& indent) {
    const std::string cls = t["__class_fullname__"].get<std::string>();
    std::string out = indent + (cls == "ToTensorV2" ? cls : "A." + cls) + "(\n";
    if (t.contains("transforms")) {
        out += indent + "    [\n";
        for (const json& child : t["transforms"]) out += transformCall(child, indent + "        ");
        out += indent + "    ],\n";
    }
    for (const auto& item : t.items()) {
        if (item.key() == "__class_fullname__" || item.key() == "p" || item.key() == "transforms") continue;
        out += indent + "    " + item.key() + "=" + argument(item.key(), item.value()) + ",\n";
    }
    return out + indent + "    p=" + pyFloat(t["p"].get<double>()) + ",\n" + indent + "),\n";
}

}  // namespace

}  // namespace auglab::exporting

namespace auglab {

ExportResult exportAlbumentationsPython(const Preset& preset) {
    using namespace exporting;
    ExportResult r;
    const json doc = albumentationsDocument(preset, AlbumentationsFlavour::Albumentations, r.warnings);
    const json& compose = doc["transform"];
    // The Python file has no "auglab" section: a disabled op is simply left out.
    for (std::string& w : r.warnings) {
        const std::size_t at = w.find(" and kept in the \"auglab\" section");
        if (at != std::string::npos) w = w.substr(0, at) + ".";
    }
    std::string body = "import albumentations as A\nimport cv2\n";
    // ToTensorV2 lives in albumentations.pytorch (it needs torch).
    if (usesClass(compose["transforms"], "ToTensorV2"))
        body += "from albumentations.pytorch import ToTensorV2\n";
    body += "\n";
    body += "# Albumentations " + doc["__version__"].get<std::string>() +
            ": every argument is written, so later changes of defaults do not change the meaning.\n";
    body += "transform = A.Compose(\n    [\n";
    for (const json& t : compose["transforms"]) body += transformCall(t, "        ");
    body += "    ],\n";
    // The targets section: BboxParams and KeypointParams with every argument.
    for (const auto& [key, cls] :
         {std::pair{"bbox_params", "BboxParams"}, std::pair{"keypoint_params", "KeypointParams"}}) {
        const json& params = compose[key];
        if (params.is_null()) continue;
        body += std::string("    ") + key + "=A." + cls + "(\n";
        for (const auto& item : params.items()) {
            const json& v = item.value();
            // label_fields: a list, as Albumentations' examples write it.
            const std::string value =
                item.key() == "label_fields" && v.is_array()
                    ? "[" + pyValue(v).substr(1, pyValue(v).size() - 2 - (v.size() == 1)) + "]"
                    : pyValue(v);
            body += "        " + item.key() + "=" + value + ",\n";
        }
        body += "    ),\n";
    }
    body += "    p=1.0,\n)\n";
    r.text = pythonHeader(preset, "albumentations-py", r.warnings) + body;
    return r;
}

}  // namespace auglab
