#include "replay.h"

#include "atomic_file.h"
#include "error.h"
#include "json_reader.h"
#include "ops/op_module.h"

namespace auglab {

using Json = nlohmann::ordered_json;

Interpolation interpolationFromName(std::string_view name) {
    if (name == "nearest") return Interpolation::Nearest;
    if (name == "linear") return Interpolation::Linear;
    throw InputError("unknown interpolation \"" + std::string(name) + "\"");
}

BorderMode borderFromName(std::string_view name) {
    if (name == "constant") return BorderMode::Constant;
    if (name == "replicate") return BorderMode::Replicate;
    if (name == "reflect") return BorderMode::Reflect;
    if (name == "reflect_101") return BorderMode::Reflect101;
    if (name == "wrap") return BorderMode::Wrap;
    throw InputError("unknown border \"" + std::string(name) + "\"");
}

const char* interpolationName(Interpolation i) {
    return i == Interpolation::Nearest ? "nearest" : "linear";
}

const char* borderName(BorderMode b) {
    switch (b) {
        case BorderMode::Constant:
            return "constant";
        case BorderMode::Replicate:
            return "replicate";
        case BorderMode::Reflect:
            return "reflect";
        case BorderMode::Reflect101:
            return "reflect_101";
        case BorderMode::Wrap:
            return "wrap";
    }
    return "constant";
}

void frameSize(const Replay& replay, std::size_t op, int& width, int& height) {
    width = replay.imageWidth;
    height = replay.imageHeight;
    for (std::size_t i = 0; i < op && i < replay.ops.size(); ++i)
        if (replay.ops[i].applied) opModule(replay.ops[i].id).frameAfter(replay.ops[i].params, width, height);
}

std::vector<const ConcreteOp*> entriesOf(const Replay& replay, std::size_t position) {
    std::vector<const ConcreteOp*> out;
    for (const ConcreteOp& op : replay.ops)
        if (op.position == position) out.push_back(&op);
    return out;
}

std::vector<double> drawnValues(const ConcreteOp& op, std::string_view key, int imageWidth, int imageHeight) {
    if (!op.applied) return {};
    return opModule(op.id).drawnValues(op.params, key, imageWidth, imageHeight);
}

Json replayToJson(const Replay& replay, double realism) {
    Json j;
    j["format"] = "auglab-replay";
    j["version"] = Replay::kFormatVersion;
    j["seed"] = replay.seed;
    j["index"] = replay.index;
    j["image_size"] = Json::array({replay.imageWidth, replay.imageHeight});
    if (realism >= 0) j["realism"] = realism;
    j["ops"] = Json::array();
    for (const ConcreteOp& op : replay.ops) {
        Json o;
        o["op"] = opDesc(op.id).name;
        if (op.position != j["ops"].size()) o["position"] = op.position;
        o["applied"] = op.applied;
        if (op.applied) opModule(op.id).writeReplay(op.params, o);
        j["ops"].push_back(o);
    }
    return j;
}

std::string serializeReplay(const Replay& replay, double realism) {
    try {
        return replayToJson(replay, realism).dump(2) + "\n";
    } catch (const nlohmann::json::type_error&) {  // strict UTF-8: only a partner's file name can break it
        throw InputError("the replay names a partner file whose name is not valid UTF-8 (a replay is UTF-8 "
                         "JSON, and would name it wrongly): rename the file");
    }
}

Replay parseReplay(std::string_view text, const std::string& what) {
    const nlohmann::json doc = parseJsonStrict(text, what);
    const JsonReader root(doc, "");
    root.requireObject({"format", "version", "seed", "index", "image_size", "realism", "ops"});
    if (root.has("realism")) (void)root.member("realism").numberIn(0, 1);  // informative: checked, not kept
    const std::string format = root.member("format").string();
    if (format != "auglab-replay")
        root.member("format").fail("expected \"auglab-replay\", got \"" + format + "\"");
    const JsonReader version = root.member("version");
    const std::int64_t v = version.integer(1, INT64_MAX);
    if (v > Replay::kFormatVersion)
        version.fail("replay version " + std::to_string(v) + " is newer than this AugLab reads (" +
                     std::to_string(Replay::kFormatVersion) + ")");
    Replay replay;
    replay.seed = root.member("seed").unsignedInteger();
    replay.index = root.member("index").unsignedInteger();
    const JsonReader size = root.member("image_size");
    if (size.arraySize() != 2) size.fail("expected [width, height]");
    replay.imageWidth = static_cast<int>(size.element(0).integer(1, 1'000'000));
    replay.imageHeight = static_cast<int>(size.element(1).integer(1, 1'000'000));
    const JsonReader ops = root.member("ops");
    int frameW = replay.imageWidth, frameH = replay.imageHeight;  // the image the next op works on
    for (std::size_t i = 0, n = ops.arraySize(); i < n; ++i) {
        JsonReader o = ops.element(i);
        o.requireObject();
        ConcreteOp op;
        op.position = static_cast<std::uint32_t>(i);
        nlohmann::json entry;  // the entry without "position", for the op module's own reader
        if (o.has("position")) {
            op.position = static_cast<std::uint32_t>(o.member("position").integer(0, 1'000'000));
            entry = o.json();
            entry.erase("position");
            o = JsonReader(entry, o.path());
        }
        const std::string name = o.member("op").string();
        const OpDesc* desc = findOp(name);
        if (!desc) o.member("op").fail("unknown op \"" + name + "\"");
        op.id = desc->id;
        op.applied = o.member("applied").boolean();
        if (op.applied) {
            const OpModule& module = opModule(desc->id);
            op.params = module.readReplay(o);
            module.checkReplay(op.params, o, frameW, frameH);
            module.frameAfter(op.params, frameW, frameH);
        } else {
            o.requireObject({"op", "applied"});
        }
        replay.ops.push_back(std::move(op));
    }
    return replay;
}

Replay loadReplay(const std::filesystem::path& path) {
    const std::string text = readFileText(path);
    try {
        return parseReplay(text, path.string());
    } catch (const InputError& e) {
        const std::string msg = e.what();
        if (msg.rfind(path.string(), 0) == 0) throw;
        throw InputError(path.string() + ": " + msg);
    }
}

void saveReplay(const std::filesystem::path& path, const Replay& replay, double realism) {
    writeFileAtomically(path, serializeReplay(replay, realism));
}

}  // namespace auglab
