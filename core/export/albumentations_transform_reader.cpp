#include "albumentations_transform_reader.h"

#include "albumentations_args.h"

#include <memory>
#include "ops/op_module.h"

namespace auglab::exporting {

LibraryVersion libraryVersion(const std::string& text) {
    LibraryVersion v;
    v.text = text;
    v.number = {0, 0, 0};
    std::size_t pos = 0;
    for (int& part : v.number) {
        std::size_t used = 0;
        try {
            part = std::stoi(text.substr(pos), &used);
        } catch (const std::exception&) {
            return v;
        }
        pos += used + 1;
        if (pos > text.size()) break;
    }
    return v;
}

std::optional<OpConfig> readTransform(const JsonReader& t, const std::string& cls,
                                      const LibraryVersion& version, std::vector<std::string>& warnings) {
    const OpDesc* desc = nullptr;
    for (const OpDesc& d : opRegistry())
        for (const std::string& c : opModule(d.id).albumentationsClasses())
            if (c == cls) desc = &d;
    if (!desc) {
        // Lambda saves the name of the Python function it runs, never its code: nothing can run it
        // here, so it is said by name.
        std::string what;
        if (cls == "Lambda") {
            what = " (it runs Python code";
            if (t.has("name") && t.member("name").json().is_string())
                what += ", saved only as the name \"" + t.member("name").json().get<std::string>() + "\"";
            what += ", which a preset cannot hold)";
        }
        warnings.push_back(t.path() + ": " + cls + " has no AugLab op" + what + ": skipped.");
        return std::nullopt;
    }
    TransformArgs a(t, cls, version, warnings);
    OpConfig op(*desc);
    const JsonReader p = a.get("p");
    op.p = p.number();
    if (op.p < 0 || op.p > 1) a.fail(p, "p must be in [0, 1]");
    opModule(desc->id).readAlbumentations(a, op);
    if (a.leftOut()) {
        warnings.push_back(t.path() + ": " + cls + " left out (see above).");
        return std::nullopt;
    }
    a.finish();
    if (!version.before2())
        op.origin = std::make_shared<const AlbumentationsOrigin>(AlbumentationsOrigin{version.text, t.json()});
    return op;
}

}  // namespace auglab::exporting
