#pragma once
// The image-to-image data sets' pipeline settings: augmentations applied to
// both images of a pair alike, and the degradations image_degrade makes its
// inputs with.
#include "spec/checks.h"
#include "spec/field_types.h"

namespace trainer {

// Random changes of the training samples: of image_folder's images, and of
// the image pairs' patches (the same on input and target).
struct AugmentConfig {
  bool flip_horizontal = false;
  bool flip_vertical = false;
  bool rotate90 = false;
  double brightness = 0;
  // image_folder only: a classifier's input alone changes.
  int64_t crop_padding = 0;
  double rotation = 0;
  double contrast = 0;
  double saturation = 0;

  bool any() const { return flip_horizontal || flip_vertical || rotate90 || brightness > 0 || classifier_only(); }
  // The ones that would move or recolour a target image differently from its input.
  bool classifier_only() const { return crop_padding > 0 || rotation > 0 || contrast > 0 || saturation > 0; }

  template <class V> void visit_fields(V& v) {
    v("flip_horizontal", flip_horizontal, "Mirror left-right with probability 1/2.");
    v("flip_vertical", flip_vertical, "Mirror top-bottom with probability 1/2.");
    v("rotate90", rotate90, "Rotate by 0, 90, 180 or 270 degrees, each equally likely (square patches; 0 or 180 "
                            "on others).");
    v("brightness", brightness, "Add one offset drawn from [-b, b] of the full range (0.1: up to 25 of 255) to "
                                "every pixel of both images, clipped to the range (Keras's RandomBrightness).",
      Check<double>([](const double& x) { return (x >= 0 && x <= 1) ? "" : "a number in [0, 1]"; }));
    v("crop_padding", crop_padding, "image_folder: pad every side by this many black pixels, then cut a window "
                                    "of the image's size at a random place (torchvision's RandomCrop(size, "
                                    "padding)). 0: none.",
      Check<int64_t>([](const int64_t& x) { return (x >= 0 && x <= 256) ? "" : "pixels from 0 to 256"; }));
    v("rotation", rotation, "image_folder: rotate by an angle drawn from [-r, r] degrees about the centre, "
                            "bilinear, corners filled black (Keras's RandomRotation, torchvision's RandomRotation). "
                            "0: none.",
      Check<double>([](const double& x) { return (x >= 0 && x <= 180) ? "" : "degrees from 0 to 180"; }));
    v("contrast", contrast, "image_folder: scale each image's distance from its mean grey by a factor drawn "
                            "from [1 - c, 1 + c] (torchvision's ColorJitter contrast), clipped to the range.",
      Check<double>([](const double& x) { return (x >= 0 && x < 1) ? "" : "a number in [0, 1)"; }));
    v("saturation", saturation, "image_folder, rgb: blend each pixel with its grey by a factor drawn from "
                                "[1 - s, 1 + s] (torchvision's ColorJitter saturation), clipped to the range.",
      Check<double>([](const double& x) { return (x >= 0 && x < 1) ? "" : "a number in [0, 1)"; }));
  }
  // Left out of a run's config.yaml while unused.
  bool is_quiet_default(const std::string& key) const {
    return (key == "crop_padding" && crop_padding == 0) || (key == "rotation" && rotation == 0) ||
           (key == "contrast" && contrast == 0) || (key == "saturation" && saturation == 0);
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
