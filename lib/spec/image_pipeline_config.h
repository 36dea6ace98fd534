#pragma once
// The image-to-image data sets' pipeline settings: augmentations applied to
// both images of a pair alike, and the degradations image_degrade makes its
// inputs with.
#include "spec/checks.h"
#include "spec/field_types.h"

namespace trainer {

// Random changes of the training patches, the same on input and target.
struct AugmentConfig {
  bool flip_horizontal = false;
  bool flip_vertical = false;
  bool rotate90 = false;
  double brightness = 0;

  bool any() const { return flip_horizontal || flip_vertical || rotate90 || brightness > 0; }

  template <class V> void visit_fields(V& v) {
    v("flip_horizontal", flip_horizontal, "Mirror left-right with probability 1/2.");
    v("flip_vertical", flip_vertical, "Mirror top-bottom with probability 1/2.");
    v("rotate90", rotate90, "Rotate by 0, 90, 180 or 270 degrees, each equally likely (square patches; 0 or 180 "
                            "on others).");
    v("brightness", brightness, "Add one offset drawn from [-b, b] of the full range (0.1: up to 25 of 255) to "
                                "every pixel of both images, clipped to the range (Keras's RandomBrightness).",
      Check<double>([](const double& x) { return (x >= 0 && x <= 1) ? "" : "a number in [0, 1]"; }));
  }
};

// Camera shake: the point spread function of a random camera trajectory.
struct MotionBlurConfig {
  double probability = 1;
  Span length{5, 25};

  template <class V> void visit_fields(V& v) {
    v("probability", probability, "Share of inputs blurred this way.", probability_check());
    v("length", length, "Length in pixels of the camera's path during the exposure, drawn from [low, high].",
      span_within(1, 200));
  }
  static Check<double> probability_check() {
    return [](const double& x) { return (x >= 0 && x <= 1) ? "" : std::string("a number in [0, 1]"); };
  }
};

struct GaussianBlurConfig {
  double probability = 0;
  Span sigma{0.5, 2};

  template <class V> void visit_fields(V& v) {
    v("probability", probability, "Share of inputs blurred this way.", MotionBlurConfig::probability_check());
    v("sigma", sigma, "Standard deviation in pixels, drawn from [low, high].", span_within(0.1, 20));
  }
};

struct NoiseConfig {
  double probability = 0;
  Span sigma{0.005, 0.03};

  template <class V> void visit_fields(V& v) {
    v("probability", probability, "Share of inputs given Gaussian noise.", MotionBlurConfig::probability_check());
    v("sigma", sigma, "Standard deviation as a fraction of the full range (0.01: 2.55 of 255), drawn from "
                      "[low, high].", span_within(0, 1));
  }
};

struct JpegConfig {
  double probability = 0;
  Span quality{30, 90};

  template <class V> void visit_fields(V& v) {
    v("probability", probability, "Share of inputs passed through JPEG compression.",
      MotionBlurConfig::probability_check());
    v("quality", quality, "libjpeg quality, drawn from [low, high] and rounded.", span_within(1, 100));
  }
};

// image_degrade: how a sharp image becomes its degraded input, in this order.
struct DegradeConfig {
  int64_t seed = 0;
  MotionBlurConfig motion_blur;
  GaussianBlurConfig gaussian_blur;
  NoiseConfig noise;
  JpegConfig jpeg;
  DataPlacement on_device = DataPlacement::kAuto;

  template <class V> void visit_fields(V& v) {
    v("seed", seed, "Seeds every degradation: the same seed gives the same pairs (training pairs are drawn "
                    "afresh each epoch; validation pairs are the same every epoch).", at_least(0));
    v("motion_blur", motion_blur, "Motion blur along a random camera trajectory (Boracchi and Foi's model, as "
                                  "DeblurGAN made its training set).");
    v("gaussian_blur", gaussian_blur, "Out-of-focus blur.");
    v("noise", noise, "Sensor noise.");
    v("jpeg", jpeg, "JPEG compression artefacts.");
    v("on_device", on_device,
      "Where the blurs, the noise and the augmentations are applied: on the step's device, to sharp windows cut "
      "on the CPU (true; the blurs as one FFT convolution per batch), or on the CPU as each sample is made "
      "(false). auto: on the device when it is a GPU. Either gives the same pairs, to within a grey level; "
      "JPEG compression stays on the CPU.");
  }
};

}  // namespace trainer
