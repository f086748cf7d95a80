#include "replay.h"

#include "atomic_file.h"
#include "error.h"
#include "json_reader.h"

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

const char* interpolationName(Interpolation i) { return i == Interpolation::Nearest ? "nearest" : "linear"; }

const char* borderName(BorderMode b) {
    switch (b) {
        case BorderMode::Constant: return "constant";
        case BorderMode::Replicate: return "replicate";
        case BorderMode::Reflect: return "reflect";
        case BorderMode::Reflect101: return "reflect_101";
        case BorderMode::Wrap: return "wrap";
    }
    return "constant";
}

namespace {

Json rgbJson(const Rgb& c) { return Json::array({c[0], c[1], c[2]}); }

Rgb readRgb(const JsonReader& r) {
    if (r.arraySize() != 3) r.fail("expected [r, g, b] with 3 integers 0..255");
    Rgb c{};
    for (std::size_t i = 0; i < 3; ++i) c[i] = static_cast<std::uint8_t>(r.element(i).integer(0, 255));
    return c;
}

struct OpJsonWriter {
    Json& j;
    void operator()(const AffineParams& a) const {
        j["rotate_deg"] = a.rotate_deg;
        j["scale_x"] = a.scale_x;
        j["scale_y"] = a.scale_y;
        j["shear_x_deg"] = a.shear_x_deg;
        j["shear_y_deg"] = a.shear_y_deg;
        j["translate_x_px"] = a.translate_x_px;
        j["translate_y_px"] = a.translate_y_px;
        j["interpolation"] = interpolationName(a.interpolation);
        j["border"] = borderName(a.border);
        j["fill"] = rgbJson(a.fill);
    }
    void operator()(const FlipParams&) const {}
    void operator()(const GrayParams&) const {}
    void operator()(const DropoutParams& d) const {
        Json holes = Json::array();
        for (const Hole& h : d.holes) holes.push_back(Json::array({h.x, h.y, h.w, h.h}));
        j["holes"] = holes;
        if (d.fillMode == Fill::Mode::Constant) {
            j["fill"] = rgbJson(d.fill);
        } else if (d.fillMode == Fill::Mode::RandomUniform) {
            j["fill"] = "random_uniform";
            Json colours = Json::array();
            for (const Rgb& c : d.holeColours) colours.push_back(rgbJson(c));
            j["hole_colours"] = colours;
        } else {
            j["fill"] = "random";
            j["noise_seed"] = std::to_string(d.noiseSeed);  // a string: doubles would round it
        }
        if (d.unitPx[0] > 0) j["unit_px"] = Json::array({d.unitPx[0], d.unitPx[1]});  // grid_dropout
    }
    void operator()(const CropParams& c) const {
        j["crop"] = Json::array({c.x, c.y, c.width, c.height});
        j["size"] = Json::array({c.outHeight, c.outWidth});
        j["interpolation"] = interpolationName(c.interpolation);
    }
    void operator()(const DeotteParams& d) const {
        j["rotation_deg"] = d.rotation_deg;
        j["shear_deg"] = d.shear_deg;
        j["height_zoom"] = d.height_zoom;
        j["width_zoom"] = d.width_zoom;
        j["height_shift_px"] = d.height_shift_px;
        j["width_shift_px"] = d.width_shift_px;
    }
    void operator()(const BrightnessContrastParams& b) const {
        j["brightness"] = b.brightness;
        j["contrast"] = b.contrast;
        j["brightness_by_max"] = b.brightness_by_max;
    }
    void operator()(const HsvParams& h) const {
        j["hue_shift_deg"] = h.hue_shift_deg;
        j["sat_shift"] = h.sat_shift;
        j["val_shift"] = h.val_shift;
    }
    void operator()(const BlurParams& b) const { j["sigma_px"] = b.sigma_px; }
    void operator()(const NoiseParams& n) const {
        j["std_frac"] = n.std_frac;
        j["mean_frac"] = n.mean_frac;
        j["per_channel"] = n.per_channel;
        j["noise_seed"] = std::to_string(n.noiseSeed);  // a string: doubles would round it
    }
};

double num(const JsonReader& r, std::string_view key, double lower, double upper) {
    return r.member(key).numberIn(lower, upper);
}

/// The holes and fill of coarse_dropout, and of grid_dropout with its unit.
DropoutParams readDropout(const JsonReader& r, bool grid) {
    if (grid)
        r.requireObject({"op", "applied", "holes", "fill", "hole_colours", "noise_seed", "unit_px"});
    else
        r.requireObject({"op", "applied", "holes", "fill", "hole_colours", "noise_seed"});
    DropoutParams d;
    const JsonReader holes = r.member("holes");
    for (std::size_t i = 0, n = holes.arraySize(); i < n; ++i) {
        const JsonReader h = holes.element(i);
        if (h.arraySize() != 4) h.fail("expected [x, y, w, h]");
        d.holes.push_back(Hole{static_cast<int>(h.element(0).integer(0, 1'000'000)),
                               static_cast<int>(h.element(1).integer(0, 1'000'000)),
                               static_cast<int>(h.element(2).integer(0, 1'000'000)),
                               static_cast<int>(h.element(3).integer(0, 1'000'000))});
    }
    const JsonReader fill = r.member("fill");
    if (fill.json().is_string()) {
        const std::string mode = fill.string();
        if (mode == "random") {
            d.fillMode = Fill::Mode::Random;
            d.noiseSeed = r.member("noise_seed").unsignedInteger64();
        } else if (mode == "random_uniform") {
            d.fillMode = Fill::Mode::RandomUniform;
            const JsonReader colours = r.member("hole_colours");
            if (colours.arraySize() != d.holes.size())
                colours.fail("expected one colour per hole (" + std::to_string(d.holes.size()) + ")");
            for (std::size_t i = 0; i < d.holes.size(); ++i) d.holeColours.push_back(readRgb(colours.element(i)));
        } else {
            fill.fail("unknown fill \"" + mode + "\"");
        }
    } else {
        d.fill = readRgb(fill);
    }
    if (d.fillMode != Fill::Mode::Random && r.has("noise_seed"))
        r.member("noise_seed").fail("only used with fill \"random\"");
    if (d.fillMode != Fill::Mode::RandomUniform && r.has("hole_colours"))
        r.member("hole_colours").fail("only used with fill \"random_uniform\"");
    if (grid) {
        const JsonReader unit = r.member("unit_px");
        if (unit.arraySize() != 2) unit.fail("expected [width, height] of the grid unit");
        d.unitPx = {static_cast<int>(unit.element(0).integer(1, 1'000'000)),
                    static_cast<int>(unit.element(1).integer(1, 1'000'000))};
    }
    return d;
}

OpParams readParams(const JsonReader& r, const OpDesc& desc) {
    switch (desc.id) {
        case OpId::Affine: {
            r.requireObject({"op", "applied", "rotate_deg", "scale_x", "scale_y", "shear_x_deg", "shear_y_deg",
                             "translate_x_px", "translate_y_px", "interpolation", "border", "fill"});
            AffineParams a;
            a.rotate_deg = num(r, "rotate_deg", -1e6, 1e6);
            a.scale_x = num(r, "scale_x", 1e-6, 1e6);
            a.scale_y = num(r, "scale_y", 1e-6, 1e6);
            a.shear_x_deg = num(r, "shear_x_deg", -89.9, 89.9);
            a.shear_y_deg = num(r, "shear_y_deg", -89.9, 89.9);
            a.translate_x_px = static_cast<int>(r.member("translate_x_px").integer(-1'000'000, 1'000'000));
            a.translate_y_px = static_cast<int>(r.member("translate_y_px").integer(-1'000'000, 1'000'000));
            const JsonReader interp = r.member("interpolation");
            try {
                a.interpolation = interpolationFromName(interp.string());
            } catch (const InputError& e) {
                interp.fail(e.what());
            }
            const JsonReader border = r.member("border");
            try {
                a.border = borderFromName(border.string());
            } catch (const InputError& e) {
                border.fail(e.what());
            }
            a.fill = readRgb(r.member("fill"));
            return a;
        }
        case OpId::HorizontalFlip:
        case OpId::VerticalFlip: r.requireObject({"op", "applied"}); return FlipParams{};
        case OpId::ToGray: r.requireObject({"op", "applied"}); return GrayParams{};
        case OpId::CoarseDropout:
        case OpId::GridDropout: return readDropout(r, desc.id == OpId::GridDropout);
        case OpId::RandomResizedCrop: {
            r.requireObject({"op", "applied", "crop", "size", "interpolation"});
            CropParams c;
            const JsonReader crop = r.member("crop");
            if (crop.arraySize() != 4) crop.fail("expected [x, y, width, height]");
            c.x = static_cast<int>(crop.element(0).integer(0, 1'000'000));
            c.y = static_cast<int>(crop.element(1).integer(0, 1'000'000));
            c.width = static_cast<int>(crop.element(2).integer(1, 1'000'000));
            c.height = static_cast<int>(crop.element(3).integer(1, 1'000'000));
            const JsonReader size = r.member("size");
            if (size.arraySize() != 2) size.fail("expected [height, width]");
            c.outHeight = static_cast<int>(size.element(0).integer(1, 16384));
            c.outWidth = static_cast<int>(size.element(1).integer(1, 16384));
            const JsonReader interp = r.member("interpolation");
            try {
                c.interpolation = interpolationFromName(interp.string());
            } catch (const InputError& e) {
                interp.fail(e.what());
            }
            return c;
        }
        case OpId::DeotteAffine: {
            r.requireObject({"op", "applied", "rotation_deg", "shear_deg", "height_zoom", "width_zoom",
                             "height_shift_px", "width_shift_px"});
            const double big = 1e9;
            return DeotteParams{num(r, "rotation_deg", -big, big),    num(r, "shear_deg", -big, big),
                                num(r, "height_zoom", -big, big),     num(r, "width_zoom", -big, big),
                                num(r, "height_shift_px", -big, big), num(r, "width_shift_px", -big, big)};
        }
        case OpId::BrightnessContrast: {
            r.requireObject({"op", "applied", "brightness", "contrast", "brightness_by_max"});
            return BrightnessContrastParams{num(r, "brightness", -1, 1), num(r, "contrast", -1, 5),
                                            r.member("brightness_by_max").boolean()};
        }
        case OpId::HueSaturationValue:
            r.requireObject({"op", "applied", "hue_shift_deg", "sat_shift", "val_shift"});
            return HsvParams{num(r, "hue_shift_deg", -180, 180), num(r, "sat_shift", -255, 255),
                             num(r, "val_shift", -255, 255)};
        case OpId::GaussianBlur:
            r.requireObject({"op", "applied", "sigma_px"});
            return BlurParams{num(r, "sigma_px", 0, 50)};
        case OpId::GaussNoise:
            r.requireObject({"op", "applied", "std_frac", "mean_frac", "per_channel", "noise_seed"});
            return NoiseParams{num(r, "std_frac", 0, 1), num(r, "mean_frac", -1, 1), r.member("per_channel").boolean(),
                               r.member("noise_seed").unsignedInteger64()};
    }
    r.fail("internal: unknown op");
}

}  // namespace

void frameSize(const Replay& replay, std::size_t op, int& width, int& height) {
    width = replay.imageWidth;
    height = replay.imageHeight;
    for (std::size_t i = 0; i < op && i < replay.ops.size(); ++i)
        if (const auto* c = std::get_if<CropParams>(&replay.ops[i].params); c && replay.ops[i].applied) {
            width = c->outWidth;
            height = c->outHeight;
        }
}

std::vector<double> drawnValues(const ConcreteOp& op, std::string_view key, int imageWidth, int imageHeight) {
    if (!op.applied) return {};
    std::vector<double> v;
    if (const auto* a = std::get_if<AffineParams>(&op.params)) {
        if (key == "rotate_deg") v = {a->rotate_deg};
        else if (key == "scale_x") v = {a->scale_x};
        else if (key == "scale_y") v = {a->scale_y};
        else if (key == "shear_x_deg") v = {a->shear_x_deg};
        else if (key == "shear_y_deg") v = {a->shear_y_deg};
        else if (key == "translate_x_frac") v = {double(a->translate_x_px) / imageWidth};
        else if (key == "translate_y_frac") v = {double(a->translate_y_px) / imageHeight};
    } else if (const auto* d = std::get_if<DropoutParams>(&op.params)) {
        if (key == "holes") v = {double(d->holes.size())};
        for (const Hole& h : d->holes) {
            if (key == "hole_height_frac") v.push_back(double(h.h) / imageHeight);
            else if (key == "hole_width_frac") v.push_back(double(h.w) / imageWidth);
            else if (key == "hole_height_px") v.push_back(h.h);
            else if (key == "hole_width_px") v.push_back(h.w);
        }
        if (key == "unit_size_px" && d->unitPx[0] > 0) v = {double(d->unitPx[0])};
    } else if (const auto* c = std::get_if<CropParams>(&op.params)) {
        // The crop's share of the image's area, and its aspect ratio.
        if (key == "scale") v = {double(c->width) * c->height / (double(imageWidth) * imageHeight)};
        else if (key == "ratio") v = {double(c->width) / c->height};
    } else if (const auto* g = std::get_if<DeotteParams>(&op.params)) {
        // The drawn values themselves (their spread is the std the key sets).
        if (key == "rotation_std_deg") v = {g->rotation_deg};
        else if (key == "shear_std_deg") v = {g->shear_deg};
        else if (key == "zoom_std") v = {g->height_zoom, g->width_zoom};
        else if (key == "shift_std_px") v = {g->height_shift_px, g->width_shift_px};
    } else if (const auto* b = std::get_if<BrightnessContrastParams>(&op.params)) {
        if (key == "brightness") v = {b->brightness};
        else if (key == "contrast") v = {b->contrast};
    } else if (const auto* h = std::get_if<HsvParams>(&op.params)) {
        if (key == "hue_shift_deg") v = {h->hue_shift_deg};
        else if (key == "sat_shift") v = {h->sat_shift};
        else if (key == "val_shift") v = {h->val_shift};
    } else if (const auto* g = std::get_if<BlurParams>(&op.params)) {
        if (key == "sigma_px") v = {g->sigma_px};
    } else if (const auto* n = std::get_if<NoiseParams>(&op.params)) {
        if (key == "std_frac") v = {n->std_frac};
        else if (key == "mean_frac") v = {n->mean_frac};
    }
    return v;
}

Json replayToJson(const Replay& replay) {
    Json j;
    j["format"] = "auglab-replay";
    j["version"] = Replay::kFormatVersion;
    j["seed"] = replay.seed;
    j["index"] = replay.index;
    j["image_size"] = Json::array({replay.imageWidth, replay.imageHeight});
    j["ops"] = Json::array();
    for (const ConcreteOp& op : replay.ops) {
        Json o;
        o["op"] = opDesc(op.id).name;
        o["applied"] = op.applied;
        if (op.applied) std::visit(OpJsonWriter{o}, op.params);
        j["ops"].push_back(o);
    }
    return j;
}

std::string serializeReplay(const Replay& replay) { return replayToJson(replay).dump(2) + "\n"; }

Replay parseReplay(std::string_view text, const std::string& what) {
    const nlohmann::json doc = parseJsonStrict(text, what);
    const JsonReader root(doc, "");
    root.requireObject({"format", "version", "seed", "index", "image_size", "ops"});
    const std::string format = root.member("format").string();
    if (format != "auglab-replay") root.member("format").fail("expected \"auglab-replay\", got \"" + format + "\"");
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
    bool cropped = false, pixelOpApplied = false;
    for (std::size_t i = 0, n = ops.arraySize(); i < n; ++i) {
        const JsonReader o = ops.element(i);
        o.requireObject();
        const std::string name = o.member("op").string();
        const OpDesc* desc = findOp(name);
        if (!desc) o.member("op").fail("unknown op \"" + name + "\"");
        ConcreteOp op;
        op.id = desc->id;
        op.applied = o.member("applied").boolean();
        if (op.applied) {
            op.params = readParams(o, *desc);
            if (const auto* d = std::get_if<DropoutParams>(&op.params))
                for (std::size_t h = 0; h < d->holes.size(); ++h) {
                    const Hole& hole = d->holes[h];
                    if (hole.x + hole.w > frameW || hole.y + hole.h > frameH)
                        o.member("holes").element(h).fail("hole lies outside the " + std::to_string(frameW) + "x" +
                                                          std::to_string(frameH) + " image");
                }
            if (const auto* c = std::get_if<CropParams>(&op.params)) {
                if (cropped) o.member("op").fail("a second random_resized_crop");
                if (pixelOpApplied) o.member("op").fail("random_resized_crop after a pixel op");
                if (c->x + c->width > frameW || c->y + c->height > frameH)
                    o.member("crop").fail("crop lies outside the " + std::to_string(frameW) + "x" +
                                          std::to_string(frameH) + " image");
                cropped = true;
                frameW = c->outWidth;
                frameH = c->outHeight;
            }
            pixelOpApplied = pixelOpApplied || desc->category == OpCategory::Pixel;
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

void saveReplay(const std::filesystem::path& path, const Replay& replay) {
    writeFileAtomically(path, serializeReplay(replay));
}

}  // namespace auglab
