// What coarse_dropout and grid_dropout share (dropout_common.h).

#include "ops/dropout_common.h"

#include <cmath>
#include <string>

#include "export_common.h"
#include "ops/replay_fields.h"
#include "plan_builder.h"
#include "targets.h"

namespace auglab::dropout {

using namespace replay_fields;

void writeReplay(const DropoutParams& d, nlohmann::ordered_json& j) {
    using Json = nlohmann::ordered_json;
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

DropoutParams readReplay(const JsonReader& r, bool grid) {
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
            for (std::size_t i = 0; i < d.holes.size(); ++i)
                d.holeColours.push_back(readRgb(colours.element(i)));
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

void checkHoles(const DropoutParams& d, const JsonReader& o, int frameW, int frameH) {
    for (std::size_t h = 0; h < d.holes.size(); ++h) {
        const Hole& hole = d.holes[h];
        if (hole.x + hole.w > frameW || hole.y + hole.h > frameH)
            o.member("holes").element(h).fail("hole lies outside the " + std::to_string(frameW) + "x" +
                                              std::to_string(frameH) + " image");
    }
}

std::vector<double> drawnValues(const DropoutParams& d, std::string_view key, int imageWidth,
                                int imageHeight) {
    std::vector<double> v;
    if (key == "holes") v = {double(d.holes.size())};
    for (const Hole& h : d.holes) {
        if (key == "hole_height_frac")
            v.push_back(double(h.h) / imageHeight);
        else if (key == "hole_width_frac")
            v.push_back(double(h.w) / imageWidth);
        else if (key == "hole_height_px")
            v.push_back(h.h);
        else if (key == "hole_width_px")
            v.push_back(h.w);
    }
    if (key == "unit_size_px" && d.unitPx[0] > 0) v = {double(d.unitPx[0])};
    return v;
}

DropoutStep step(const DropoutParams& d, double sx, double sy) {
    DropoutStep s;
    s.mode = d.fillMode;
    s.fill = d.fill;
    s.seed = d.noiseSeed;
    for (std::size_t i = 0; i < d.holes.size(); ++i) {
        const Hole& h = d.holes[i];
        // Scale hole edges, not sizes, so neighbouring holes stay adjacent in a tile.
        const int x0 = static_cast<int>(std::lround(h.x * sx)),
                  x1 = static_cast<int>(std::lround((h.x + h.w) * sx));
        const int y0 = static_cast<int>(std::lround(h.y * sy)),
                  y1 = static_cast<int>(std::lround((h.y + h.h) * sy));
        // A hole that covers no pixel at this size paints nothing: left out, so that GPU kernels,
        // which test every hole per pixel, do not pay for the fine grids of grid_dropout in tiles.
        if (x1 <= x0 || y1 <= y0) continue;
        s.holes.push_back(Hole{x0, y0, x1 - x0, y1 - y0});
        if (d.fillMode == Fill::Mode::RandomUniform && i < d.holeColours.size())
            s.colours.push_back(d.holeColours[i]);
    }
    return s;
}

bool leftOutOf(const exporting::ExportedOp& e, PythonExport& x) {
    if (x.target == PythonTarget::TfDeotte) {
        exporting::notInTfDeotte(e, x);
        return true;
    }
    if (x.target == PythonTarget::Dali) {
        x.lines += "    # " + e.label() + "\n";
        exporting::notExported(e, x,
                               e.label() +
                                   ": fn.erase needs the number of regions fixed per pipeline: not exported "
                                   "(use the albumentations export for cutout and grid dropout).");
        return true;
    }
    return false;
}

void DropoutModule::writeReplay(const OpParams& params, nlohmann::ordered_json& j) const {
    dropout::writeReplay(std::get<DropoutParams>(params), j);
}

OpParams DropoutModule::readReplay(const JsonReader& r) const {
    return dropout::readReplay(r, grid_);
}

void DropoutModule::checkReplay(const OpParams& params, const JsonReader& o, int frameW, int frameH) const {
    checkHoles(std::get<DropoutParams>(params), o, frameW, frameH);
}

std::vector<double> DropoutModule::drawnValues(const OpParams& params, std::string_view key, int width,
                                               int height) const {
    return dropout::drawnValues(std::get<DropoutParams>(params), key, width, height);
}

bool DropoutModule::moveTargets(const OpParams& params, TargetFrame& f) const {
    f.holes = std::get<DropoutParams>(params).holes;
    return true;
}

void DropoutModule::lower(const OpParams& params, PlanBuilder& b) const {
    const auto& p = std::get<DropoutParams>(params);
    if (p.holes.empty()) return;  // nothing to paint (xy_masking's default counts are 0): no pass
    b.pixel(step(p, b.sx(), b.sy()));
}

}  // namespace auglab::dropout
