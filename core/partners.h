#pragma once
// The partner images of mixing ops. A sample's replay names its partners by their index in
// the pool it was drawn from (PartnerPool); before rendering, bindPartners() loads each one and
// resizes it on the host to the plan's output, so that every backend mixes it in as a second
// source of the same size (plan.h MixStep).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "plan.h"
#include "source_levels.h"

namespace auglab {

/// Gives image `index` of the pool, holding at least the level an outW x outH output reads
/// (partnerLevel); InputError when it cannot be read.
using PartnerLoader = std::function<std::shared_ptr<SourceLevels>(std::uint64_t index, int outW, int outH)>;

/// Whether `plan` mixes in a partner (a MixStep).
bool needsPartners(const Plan& plan);

/// The level of a width x height partner that an outW x outH output reads: 0 for full-resolution
/// outputs (`sampling` Source), else the pre-filtered level a tile of that size reads.
int partnerLevel(int width, int height, int outW, int outH, SourceSampling sampling);

/// `source` resized to outW x outH as cv2.resize INTER_LINEAR does (pixel centres aligned, edges
/// repeated), from the level partnerLevel() names, with `channels` channels (an alpha channel is
/// dropped, or added opaque).
Image resizePartner(SourceLevels& source, int outW, int outH, int channels, SourceSampling sampling);

/// Gives every MixStep of `plan` its partner: load(partnerIndex, ...) resized to the plan's output
/// size with `channels` channels. A failing load's InputError is rethrown saying which partner.
void bindPartners(Plan& plan, int channels, const PartnerLoader& load, SourceSampling sampling);

/// One cell's image for composeGrid: level `level` of a fullWidth x fullHeight image (null: the
/// cell keeps the fill).
struct GridSource {
    const Image* image = nullptr;
    int level = 0;
    int fullWidth = 0, fullHeight = 0;
};

/// The canvas of the 4-image grid (MosaicParams) at outW x outH with `channels` channels: each cell's
/// image scaled into its cell as cv2.resize does (`labels`: nearest neighbour picking
/// floor(x * w / w'), as for masks; else the grid's interpolation), cut where the cell ends; outside
/// an image (contain's padding) the fill.
Image composeGrid(const MosaicParams& m, int outW, int outH, int channels, bool labels, const Rgb& fill,
                  const std::function<GridSource(const MosaicCell&)>& source);

/// A loader for a pool of one image: the image itself.
PartnerLoader selfPartner(SourceLevels& source);

/// Sets partnerPath of the replay's mixing ops records to name(partner).
void namePartners(Replay& replay, const std::function<std::string(std::uint64_t)>& name);

}  // namespace auglab
