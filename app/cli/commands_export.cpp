// `auglab-cli export` and `auglab-cli import` (SPEC §5, §7): presets to other libraries' training
// code and Albumentations files back to presets. Warnings go to stderr, one `warning:` line each.

#include <iostream>

#include "args.h"
#include "atomic_file.h"
#include "commands.h"
#include "error.h"
#include "exporter.h"
#include "preset.h"

namespace auglab::cli {

std::string exportHelpText() {
    std::string targets;
    for (const ExportTarget& t : exportTargets())
        targets += "  " + t.name + std::string(20 - t.name.size(), ' ') + t.description + "\n";
    return "usage: auglab-cli export --preset P --to TARGET [--out FILE]\n\n"
           "Writes the preset for another library's training code, with the same meaning. Without --out\n"
           "the text goes to stdout; with it the file is written atomically. Whatever the target cannot\n"
           "express is printed as `warning: ...` lines on stderr (and written into the file).\n\n"
           "targets:\n" +
           targets;
}

std::string importHelpText() {
    return "usage: auglab-cli import --from albumentations FILE --out P\n\n"
           "Reads an Albumentations 1.4.x / 2.0.x (or AlbumentationsX) A.save JSON file into an AugLab\n"
           "preset. Every key that cannot be mapped is printed as a `warning: ...` line with its JSON\n"
           "path; a file that is not such a document is an error (exit 2).\n";
}

std::string withExportCommands(std::string overview) {
    const std::string lines =
        "  export --preset P --to T the preset for albumentations, torchvision, keras, tf-deotte, dali, ...\n"
        "  import --from albumentations FILE --out P   an Albumentations A.save file as a preset\n";
    const std::size_t at = overview.find("\nexit codes");
    if (at == std::string::npos) return overview + lines;
    return overview.insert(at, lines);
}

int runExport(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{"preset", "to", "out"}, {}, {}, 0});
    const Preset preset = loadPreset(a.required("preset"));
    const ExportResult r = exportPreset(preset, a.required("to"));
    for (const std::string& w : r.warnings) std::cerr << "warning: " << w << "\n";
    if (const auto out = a.value("out"))
        writeFileAtomically(*out, r.text);
    else
        std::cout << r.text;
    return 0;
}

int runImport(const std::vector<std::string>& argv) {
    const Args a(argv, Args::Spec{{"from", "out"}, {}, {}, 1});
    const std::string from = a.required("from");
    if (from != "albumentations")
        throw UsageError{"--from: unknown format '" + from + "' (expected albumentations)"};
    if (a.positional().empty()) throw UsageError{"missing FILE"};
    const std::string file = a.positional()[0];
    const std::string out = a.required("out");
    const std::string text = readFileText(file);
    ImportResult r;
    try {
        r = importAlbumentations(text, file);
    } catch (const InputError& e) {
        const std::string msg = e.what();
        if (msg.rfind(file, 0) == 0) throw;
        throw InputError(file + ": " + msg);
    }
    for (const std::string& w : r.warnings) std::cerr << "warning: " << w << "\n";
    savePreset(out, r.preset);
    std::cerr << out << ": preset \"" << r.preset.name << "\" with " << r.preset.pipeline.size() << " ops";
    if (!r.preset.pipeline.groups().empty())
        std::cerr << " in " << r.preset.pipeline.groups().size() << " groups";
    std::cerr << " (" << r.warnings.size() << " warnings)\n";
    return 0;
}

}  // namespace auglab::cli
