#pragma once
// Every mode the experiment file can name, with its spellings.
#include "spec/enum_names.h"

namespace trainer {

enum class DatasetKind { kReuters, kFashionMnist, kMnist, kSynthetic, kImageFolder, kImagePairs, kImageDegrade, kTabular };
template <> struct EnumTable<DatasetKind> {
  static constexpr EnumName<DatasetKind> entries[] = {
      {DatasetKind::kReuters, "reuters"},
      {DatasetKind::kFashionMnist, "fashion_mnist"},
      {DatasetKind::kMnist, "mnist"},
      {DatasetKind::kSynthetic, "synthetic"},
      {DatasetKind::kImageFolder, "image_folder"},
      {DatasetKind::kImagePairs, "image_pairs"},
      {DatasetKind::kImageDegrade, "image_degrade"},
      {DatasetKind::kTabular, "tabular"}};
};

// What a file that cannot be read does to the data set: stops the run (a data
// error naming it) or is left out with a warning, and counted.
enum class BadFilePolicy { kError, kSkip };
template <> struct EnumTable<BadFilePolicy> {
  static constexpr EnumName<BadFilePolicy> entries[] = {{BadFilePolicy::kError, "error"},
                                                        {BadFilePolicy::kSkip, "skip"}};
};

// What a tabular data set's target column holds: class labels (integers,
// or names numbered in sorted order) or real values to regress.
enum class TabularTask { kClassification, kRegression };
template <> struct EnumTable<TabularTask> {
  static constexpr EnumName<TabularTask> entries[] = {{TabularTask::kClassification, "classification"},
                                                      {TabularTask::kRegression, "regression"}};
};

// Where decoded images are kept between epochs: in memory (up to
// data.cache_limit, beyond which the rest are decoded whenever they are
// used) or nowhere (decoded on every use).
enum class CacheMode { kMemory, kNone };
template <> struct EnumTable<CacheMode> {
  static constexpr EnumName<CacheMode> entries[] = {{CacheMode::kMemory, "memory"}, {CacheMode::kNone, "none"}};
};

// Where a training set that fits is kept on a GPU run: on the device
// (batches gathered there, no copies per step), in host memory (batches
// copied to the device ahead of the step), or decided from the memory
// budget (auto). CPU runs keep it where it is.
enum class DataPlacement { kAuto, kDevice, kHost };
template <> struct EnumTable<DataPlacement> {
  static constexpr EnumName<DataPlacement> entries[] = {
      {DataPlacement::kAuto, "auto"}, {DataPlacement::kDevice, "true"}, {DataPlacement::kHost, "false"}};
};

// train.cuda_graph: capture the training step as a CUDA graph where the run
// allows it (auto), always (on: a prevented capture is a config error), or
// never (off).
enum class CudaGraphMode { kAuto, kOn, kOff };
template <> struct EnumTable<CudaGraphMode> {
  static constexpr EnumName<CudaGraphMode> entries[] = {
      {CudaGraphMode::kAuto, "auto"}, {CudaGraphMode::kOn, "on"}, {CudaGraphMode::kOff, "off"}};
};

// Images brought to data.images.size: stretched (Keras's default), or
// centre-cropped to its aspect ratio first (Keras's crop_to_aspect_ratio).
enum class ResizeMode { kStretch, kCrop };
template <> struct EnumTable<ResizeMode> {
  static constexpr EnumName<ResizeMode> entries[] = {{ResizeMode::kStretch, "stretch"}, {ResizeMode::kCrop, "crop"}};
};

// Keras's color_mode (rgba is not read).
enum class ColorMode { kRgb, kGrayscale };
template <> struct EnumTable<ColorMode> {
  static constexpr EnumName<ColorMode> entries[] = {{ColorMode::kRgb, "rgb"}, {ColorMode::kGrayscale, "grayscale"}};
};

// Pixel values as the model sees them: unit [0, 1], symmetric [-1, 1], or
// none, the 0..255 of the file (Keras's image_dataset_from_directory).
enum class PixelScale { kUnit, kSymmetric, kNone };
template <> struct EnumTable<PixelScale> {
  static constexpr EnumName<PixelScale> entries[] = {
      {PixelScale::kUnit, "unit"}, {PixelScale::kSymmetric, "symmetric"}, {PixelScale::kNone, "none"}};
};

// Which end of a sequence pad_sequences pads or truncates (Keras: "pre").
enum class SequenceEnd { kPre, kPost };
template <> struct EnumTable<SequenceEnd> {
  static constexpr EnumName<SequenceEnd> entries[] = {{SequenceEnd::kPre, "pre"},
                                                      {SequenceEnd::kPost, "post"}};
};

enum class Activation {
  kLinear, kRelu, kTanh, kSigmoid, kGelu, kSoftmax, kLeakyRelu, kElu, kSilu, kSwish, kSoftplus
};
template <> struct EnumTable<Activation> {
  static constexpr EnumName<Activation> entries[] = {
      {Activation::kLinear, "linear"},        {Activation::kRelu, "relu"},
      {Activation::kTanh, "tanh"},            {Activation::kSigmoid, "sigmoid"},
      {Activation::kGelu, "gelu"},            {Activation::kSoftmax, "softmax"},
      {Activation::kLeakyRelu, "leaky_relu"}, {Activation::kElu, "elu"},
      {Activation::kSilu, "silu"},            {Activation::kSwish, "swish"},
      {Activation::kSoftplus, "softplus"}};
};

// A layer's kernel_initializer / bias_initializer (Keras's names); `default`
// follows model.init.
enum class Initializer { kDefault, kGlorotUniform, kHeNormal, kHeUniform, kOrthogonal, kZeros, kOnes, kPytorch };
template <> struct EnumTable<Initializer> {
  static constexpr EnumName<Initializer> entries[] = {
      {Initializer::kDefault, "default"},     {Initializer::kGlorotUniform, "glorot_uniform"},
      {Initializer::kHeNormal, "he_normal"},  {Initializer::kHeUniform, "he_uniform"},
      {Initializer::kOrthogonal, "orthogonal"}, {Initializer::kZeros, "zeros"},
      {Initializer::kOnes, "ones"},           {Initializer::kPytorch, "pytorch"}};
};

// How upsampling2d fills the new pixels (Keras UpSampling2D interpolation),
// and how images are resized (area: the mean of the pixels each output
// pixel covers).
enum class Interpolation { kNearest, kBilinear, kArea };
template <> struct EnumTable<Interpolation> {
  static constexpr EnumName<Interpolation> entries[] = {{Interpolation::kNearest, "nearest"},
                                                        {Interpolation::kBilinear, "bilinear"},
                                                        {Interpolation::kArea, "area"}};
};

// Keras: Glorot-uniform kernels, zero biases, uniform(-0.05, 0.05) embeddings.
enum class InitScheme { kKeras, kPytorch };
template <> struct EnumTable<InitScheme> {
  static constexpr EnumName<InitScheme> entries[] = {{InitScheme::kKeras, "keras"},
                                                     {InitScheme::kPytorch, "pytorch"}};
};

enum class ScheduleKind { kConstant, kStep, kExponential, kCosine };
template <> struct EnumTable<ScheduleKind> {
  static constexpr EnumName<ScheduleKind> entries[] = {
      {ScheduleKind::kConstant, "constant"}, {ScheduleKind::kStep, "step"},
      {ScheduleKind::kExponential, "exponential"}, {ScheduleKind::kCosine, "cosine"}};
};

enum class LossKind { kSparseCategoricalCrossentropy, kMse, kMae, kL1, kCharbonnier, kTorchScript };
template <> struct EnumTable<LossKind> {
  static constexpr EnumName<LossKind> entries[] = {
      {LossKind::kSparseCategoricalCrossentropy, "sparse_categorical_crossentropy"},
      {LossKind::kMse, "mse"},
      {LossKind::kMae, "mae"},
      {LossKind::kL1, "l1"},
      {LossKind::kCharbonnier, "charbonnier"},
      {LossKind::kTorchScript, "torchscript"}};
};

enum class Precision { kFp32, kBf16, kFp16 };
template <> struct EnumTable<Precision> {
  static constexpr EnumName<Precision> entries[] = {
      {Precision::kFp32, "fp32"}, {Precision::kBf16, "bf16"}, {Precision::kFp16, "fp16"}};
};

// Dynamic loss scaling: with fp16 only (auto), on every run, or never.
enum class LossScaling { kAuto, kDynamic, kOff };
template <> struct EnumTable<LossScaling> {
  static constexpr EnumName<LossScaling> entries[] = {
      {LossScaling::kAuto, "auto"}, {LossScaling::kDynamic, "dynamic"}, {LossScaling::kOff, "off"}};
};

enum class ConvPadding { kValid, kSame, kExplicit };
template <> struct EnumTable<ConvPadding> {
  static constexpr EnumName<ConvPadding> entries[] = {
      {ConvPadding::kValid, "valid"}, {ConvPadding::kSame, "same"}, {ConvPadding::kExplicit, "explicit"}};
};

// always: the bar even into pipes; lines: plain lines even on a terminal.
enum class ProgressMode { kAuto, kAlways, kLines, kNever };
template <> struct EnumTable<ProgressMode> {
  static constexpr EnumName<ProgressMode> entries[] = {{ProgressMode::kAuto, "auto"},
                                                       {ProgressMode::kAlways, "always"},
                                                       {ProgressMode::kLines, "lines"},
                                                       {ProgressMode::kNever, "never"}};
};

// The signal that asks a run to save and exit for a requeue.
enum class RequeueSignal { kUsr1, kUsr2, kNone };
template <> struct EnumTable<RequeueSignal> {
  static constexpr EnumName<RequeueSignal> entries[] = {
      {RequeueSignal::kUsr1, "usr1"}, {RequeueSignal::kUsr2, "usr2"}, {RequeueSignal::kNone, "none"}};
};

enum class MonitorMode { kAuto, kMin, kMax };
template <> struct EnumTable<MonitorMode> {
  static constexpr EnumName<MonitorMode> entries[] = {
      {MonitorMode::kAuto, "auto"}, {MonitorMode::kMin, "min"}, {MonitorMode::kMax, "max"}};
};

}  // namespace trainer
