#include "partners.h"

#include <cstring>

#include <map>
#include <tuple>

#include "cpu_backend.h"
#include "error.h"
#include "ops/op_list.h"
#include "plan_builder.h"

namespace auglab {

bool needsPartners(const Plan& plan) {
    for (const PlanStage& stage : plan.stages)
        for (const PixelStep& step : stage.ops)
            if (std::holds_alternative<MixStep>(step)) return true;
    return false;
}

int partnerLevel(int width, int height, int outW, int outH, SourceSampling sampling) {
    if (sampling == SourceSampling::Source) return 0;
    const double scale = std::min(static_cast<double>(outW) / width, static_cast<double>(outH) / height);
    return SourceLevels::levelForScale(scale, width, height);
}

Image resizePartner(SourceLevels& source, int outW, int outH, int channels, SourceSampling sampling) {
    PlanBuilder b(source.width(), source.height(), outW, outH, sampling);
    b.resampling(Interpolation::Linear, BorderMode::Replicate, Rgb{0, 0, 0});
    const Plan plan = b.finish();
    const Image resized = executePlanCpu(source, plan, RowLoop{nullptr});
    if (resized.channels == channels) return resized;
    Image out(outW, outH, channels, 255);
    const int common = std::min(channels, resized.channels);
    for (int y = 0; y < outH; ++y)
        for (int x = 0; x < outW; ++x)
            for (int c = 0; c < common; ++c) out.at(x, y)[c] = resized.at(x, y)[c];
    return out;
}

Image composeGrid(const MosaicParams& m, int outW, int outH, int channels, bool labels, const Rgb& fill,
                  const std::function<GridSource(const MosaicCell&)>& source) {
    Image canvas(outW, outH, channels);
    // The fill: one row made pixel by pixel, the others copied from it.
    for (int x = 0; x < outW; ++x) {
        std::uint8_t* p = canvas.at(x, 0);
        for (int c = 0; c < channels; ++c) p[c] = c < 3 ? fill[static_cast<std::size_t>(c)] : 255;
    }
    const std::size_t rowBytes = static_cast<std::size_t>(outW) * channels;
    for (int y = 1; y < outH; ++y) std::memcpy(canvas.row(y), canvas.row(0), rowBytes);
    const double sx = double(outW) / m.targetW, sy = double(outH) / m.targetH;
    const Matrix3 toOut = resizeMatrix(m.targetW, m.targetH, outW, outH);
    for (const MosaicCell& cell : m.cells) {
        const GridSource s = source(cell);
        if (!s.image) continue;
        const MosaicPlacement place = mosaicPlacement(m, cell, s.fullWidth, s.fullHeight);
        // The cell, and within it the resized image's extent (contain pads around it), in output pixels.
        const int cx0 = static_cast<int>(std::lround(cell.rect.x * sx)),
                  cy0 = static_cast<int>(std::lround(cell.rect.y * sy));
        const int cx1 = static_cast<int>(std::lround((cell.rect.x + cell.rect.w) * sx));
        const int cy1 = static_cast<int>(std::lround((cell.rect.y + cell.rect.h) * sy));
        const int ix0 = std::max(cx0, static_cast<int>(std::lround(place.offsetX * sx)));
        const int iy0 = std::max(cy0, static_cast<int>(std::lround(place.offsetY * sy)));
        const int ix1 = std::min(cx1, static_cast<int>(std::lround((place.offsetX + place.resizedW) * sx)));
        const int iy1 = std::min(cy1, static_cast<int>(std::lround((place.offsetY + place.resizedH) * sy)));
        if (ix1 <= ix0 || iy1 <= iy0) continue;
        // Image pixels to canvas pixels: cv2.resize's centre-aligned map, or for labels and nearest
        // images INTER_NEAREST's floor(x * w / w') (the map moved by half a resized pixel, which the
        // warp's rounding makes a floor).
        const bool floorMap = labels || m.interpolation == Interpolation::Nearest;
        const Matrix3 forward = floorMap ? Matrix3::translation(place.offsetX, place.offsetY) *
                                               Matrix3::scaling(double(place.resizedW) / s.fullWidth,
                                                                double(place.resizedH) / s.fullHeight) *
                                               Matrix3::translation(0.5, 0.5)
                                         : place.forward;
        const Matrix3 inverse =
            levelMatrix(s.level) * forward.inverse() * toOut.inverse() * Matrix3::translation(ix0, iy0);
        WarpStep w;
        w.inverse = {inverse(0, 0), inverse(0, 1), inverse(0, 2),
                     inverse(1, 0), inverse(1, 1), inverse(1, 2)};
        w.inputWidth = s.image->width;
        w.inputHeight = s.image->height;
        w.interpolation = floorMap ? Interpolation::Nearest : m.interpolation;
        w.border = BorderMode::Replicate;  // cv2.resize repeats the edge
        Image piece(ix1 - ix0, iy1 - iy0, s.image->channels, Image::Uninitialised{});
        warpRows(*s.image, piece, w, 0, piece.height);
        const int common = std::min(channels, piece.channels);
        for (int y = 0; y < piece.height; ++y) {
            if (piece.channels == channels) {  // whole rows
                std::memcpy(canvas.at(ix0, iy0 + y), piece.row(y),
                            static_cast<std::size_t>(piece.width) * channels);
                continue;
            }
            for (int x = 0; x < piece.width; ++x) {
                std::uint8_t* d = canvas.at(ix0 + x, iy0 + y);
                const std::uint8_t* p = piece.at(x, y);
                for (int c = 0; c < common; ++c) d[c] = p[c];
            }
        }
    }
    return canvas;
}

void bindPartners(Plan& plan, int channels, const PartnerLoader& load, SourceSampling sampling) {
    // Each partner resized once per stage size.
    std::map<std::tuple<std::uint64_t, int, int>, std::shared_ptr<const Image>> resized;
    for (PlanStage& stage : plan.stages) {
        const int w = stage.width, h = stage.height;
        for (PixelStep& step : stage.ops) {
            auto* mix = std::get_if<MixStep>(&step);
            if (!mix || mix->partner) continue;
            if (mix->grid) {
                // The grid's canvas: every cell's image (the sample's own too) loaded and composed here.
                std::vector<std::shared_ptr<SourceLevels>> held;
                auto source = [&](const MosaicCell& cell) {
                    std::shared_ptr<SourceLevels> s;
                    try {
                        s = load(cell.partner, w, h);
                    } catch (const InputError& e) {
                        throw InputError("partner image " + std::to_string(cell.partner) + ": " + e.what());
                    }
                    if (!s)
                        throw InputError("partner image " + std::to_string(cell.partner) + " is not loaded");
                    held.push_back(s);
                    const int level = partnerLevel(s->width(), s->height(), w, h, sampling);
                    const int k = std::max(level, s->firstLevel());
                    return GridSource{&s->level(k), k, s->width(), s->height()};
                };
                mix->partner = std::make_shared<const Image>(
                    composeGrid(*mix->grid, w, h, channels, false, mix->grid->fill, source));
                continue;
            }
            auto& image = resized[{mix->partnerIndex, w, h}];
            if (!image) {
                std::shared_ptr<SourceLevels> source;
                try {
                    source = load(mix->partnerIndex, w, h);
                } catch (const InputError& e) {
                    throw InputError("partner image " + std::to_string(mix->partnerIndex) + ": " + e.what());
                }
                if (!source)
                    throw InputError("partner image " + std::to_string(mix->partnerIndex) + " is not loaded");
                image = std::make_shared<const Image>(resizePartner(*source, w, h, channels, sampling));
            }
            mix->partner = image;
        }
    }
}

PartnerLoader selfPartner(SourceLevels& source) {
    // A non-owning pointer: the caller keeps the source alive while it renders.
    return [&source](std::uint64_t, int, int) {
        return std::shared_ptr<SourceLevels>(&source, [](SourceLevels*) {});
    };
}

void namePartners(Replay& replay, const std::function<std::string(std::uint64_t)>& name) {
    for (ConcreteOp& op : replay.ops) {
        if (!op.applied) continue;
        if (auto* m = std::get_if<MixParams>(&op.params)) m->partnerPath = name(m->partner);
        if (auto* g = std::get_if<MosaicParams>(&op.params))
            for (MosaicCell& c : g->cells)
                if (!c.primary) c.partnerPath = name(c.partner);
    }
}

}  // namespace auglab
