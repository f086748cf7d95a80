#pragma once
// The registration list: every op, in the order the GUI lists them. An op is its module (core/ops/,
// docs/adding-an-op.md) plus one entry in each of the three lists below: its id, the type of its
// drawn parameters, and its module.

#include <array>
#include <variant>

#include "ops/advanced_blur.h"
#include "ops/affine.h"
#include "ops/brightness_contrast.h"
#include "ops/channel_dropout.h"
#include "ops/channel_mix.h"
#include "ops/clahe.h"
#include "ops/color_jitter.h"
#include "ops/crop_pad.h"
#include "ops/defocus.h"
#include "ops/deotte_affine.h"
#include "ops/distortion.h"
#include "ops/downscale.h"
#include "ops/dropout.h"
#include "ops/equalize.h"
#include "ops/fancy_pca.h"
#include "ops/flip.h"
#include "ops/gauss_noise.h"
#include "ops/gaussian_blur.h"
#include "ops/hue_saturation_value.h"
#include "ops/image_compression.h"
#include "ops/iso_noise.h"
#include "ops/kernel_blur.h"
#include "ops/levels.h"
#include "ops/mix.h"
#include "ops/mosaic.h"
#include "ops/motion_blur.h"
#include "ops/multiplicative_noise.h"
#include "ops/no_op.h"
#include "ops/perspective.h"
#include "ops/pixel_dropout.h"
#include "ops/planckian_jitter.h"
#include "ops/random_fog.h"
#include "ops/random_gamma.h"
#include "ops/random_grid_shuffle.h"
#include "ops/random_rain.h"
#include "ops/random_resized_crop.h"
#include "ops/random_shadow.h"
#include "ops/random_sun_flare.h"
#include "ops/random_tone_curve.h"
#include "ops/resize.h"
#include "ops/rgb_shift.h"
#include "ops/ringing_overshoot.h"
#include "ops/rotate90.h"
#include "ops/safe_rotate.h"
#include "ops/salt_and_pepper.h"
#include "ops/sharpen.h"
#include "ops/to_gray.h"
#include "ops/training.h"

namespace auglab {

enum class OpId {
    Affine,
    SafeRotate,
    HorizontalFlip,
    VerticalFlip,
    Perspective,
    GridDistortion,
    OpticalDistortion,
    ElasticTransform,
    RandomGridShuffle,
    RandomResizedCrop,
    RandomSizedCrop,
    Resize,
    LongestMaxSize,
    SmallestMaxSize,
    RandomScale,
    RandomRotate90,
    Transpose,
    D4,
    PadIfNeeded,
    RandomCrop,
    CenterCrop,
    Crop,
    DeotteAffine,
    CoarseDropout,
    GridDropout,
    XyMasking,
    PixelDropout,
    BrightnessContrast,
    HueSaturationValue,
    ColorJitter,
    Equalize,
    Clahe,
    FancyPca,
    RandomGamma,
    InvertImg,
    Solarize,
    Posterize,
    RgbShift,
    ChannelDropout,
    ChannelShuffle,
    ToSepia,
    RandomToneCurve,
    PlanckianJitter,
    GaussianBlur,
    BoxBlur,
    MedianBlur,
    MotionBlur,
    Defocus,
    RingingOvershoot,
    AdvancedBlur,
    Sharpen,
    Emboss,
    GaussNoise,
    MultiplicativeNoise,
    IsoNoise,
    SaltAndPepper,
    RandomFog,
    RandomRain,
    RandomShadow,
    RandomSunFlare,
    ImageCompression,
    Downscale,
    ToGray,
    Mixup,
    Cutmix,
    Mosaic,
    NoOp,
    Normalize,
    ToFloat,
    FromFloat,
    ToTensor,
};

/// The concrete parameters of one op of one sample (a replay's entry). Ops that draw the same kind
/// of thing share a type (the flips, the dropouts).
using OpParams =
    std::variant<AffineParams, FlipParams, DropoutParams, BrightnessContrastParams, HsvParams, BlurParams,
                 NoiseParams, GrayParams, CropParams, DeotteParams, PerspectiveParams, MixParams,
                 MosaicParams, TrainingParams, GammaParams, LevelParams, NoOpParams, ChannelShiftParams,
                 KernelSizeParams, MotionBlurParams, KernelEffectParams, ResizeParams, Rot90Params,
                 CropPadParams, ChannelDropParams, ToneCurveParams, CompressionParams, SepiaParams,
                 ChannelShuffleParams, MultiplyParams, SafeRotateParams, GridDistortionParams,
                 OpticalDistortionParams, ElasticParams, GridShuffleParams, DownscaleParams,
                 ColorJitterParams, EqualizeParams, IsoNoiseParams, ClaheParams, FancyPcaParams, FogParams,
                 ShadowParams, RainParams, SunFlareParams, DefocusParams,
                 PixelDropoutParams, RingingParams, AdvancedBlurParams, SaltPepperParams,
                 PlanckianParams>;

/// The module of every op, in OpId order.
inline const std::array<const OpModule*, 71>& opModules() {
    static const std::array<const OpModule*, 71> modules{
        &affineModule(),
        &safeRotateModule(),
        &horizontalFlipModule(),
        &verticalFlipModule(),
        &perspectiveModule(),
        &gridDistortionModule(),
        &opticalDistortionModule(),
        &elasticTransformModule(),
        &randomGridShuffleModule(),
        &randomResizedCropModule(),
        &randomSizedCropModule(),
        &resizeModule(),
        &longestMaxSizeModule(),
        &smallestMaxSizeModule(),
        &randomScaleModule(),
        &randomRotate90Module(),
        &transposeModule(),
        &d4Module(),
        &padIfNeededModule(),
        &randomCropModule(),
        &centerCropModule(),
        &cropModule(),
        &deotteAffineModule(),
        &coarseDropoutModule(),
        &gridDropoutModule(),
        &xyMaskingModule(),
        &pixelDropoutModule(),
        &brightnessContrastModule(),
        &hueSaturationValueModule(),
        &colorJitterModule(),
        &equalizeModule(),
        &claheModule(),
        &fancyPcaModule(),
        &randomGammaModule(),
        &invertImgModule(),
        &solarizeModule(),
        &posterizeModule(),
        &rgbShiftModule(),
        &channelDropoutModule(),
        &channelShuffleModule(),
        &toSepiaModule(),
        &randomToneCurveModule(),
        &planckianJitterModule(),
        &gaussianBlurModule(),
        &boxBlurModule(),
        &medianBlurModule(),
        &motionBlurModule(),
        &defocusModule(),
        &ringingOvershootModule(),
        &advancedBlurModule(),
        &sharpenModule(),
        &embossModule(),
        &gaussNoiseModule(),
        &multiplicativeNoiseModule(),
        &isoNoiseModule(),
        &saltAndPepperModule(),
        &randomFogModule(),
        &randomRainModule(),
        &randomShadowModule(),
        &randomSunFlareModule(),
        &imageCompressionModule(),
        &downscaleModule(),
        &toGrayModule(),
        &mixupModule(),
        &cutmixModule(),
        &mosaicModule(),
        &noOpModule(),
        &normalizeModule(),
        &toFloatModule(),
        &fromFloatModule(),
        &toTensorModule(),
    };
    return modules;
}

}  // namespace auglab
