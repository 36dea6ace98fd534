#pragma once
// The typed experiment. Each section declares its options once, in
// `visit_fields`: key, member (whose initialiser is the default), doc and
// check together. The YAML reader, the YAML writer (`trainer config`) and the
// docs/config-reference.md all walk these declarations, so they cannot drift.
//
// A visitor `v` is called as v(key, member, doc[, check]) or
// v.required(key, member, doc).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/checks.h"
#include "spec/data_source_configs.h"
#include "spec/enums.h"
#include "spec/field_types.h"
#include "spec/image_pipeline_config.h"
#include "spec/layer_spec.h"
#include "spec/optimizer_config.h"
#include "spec/train_config.h"

namespace trainer {

struct ExperimentSection {
  std::string name = "experiment";
  int64_t seed = 42;

  template <class V> void visit_fields(V& v) {
    v("name", name, "Experiment name; runs go to log.dir/NAME/.", directory_name(false));
    v("seed", seed, "Seed of weights, data order and dropout. Same seed and thread count, same run.",
      at_least(0));
  }
};

// How the image data sets bring their files to tensors.
struct ImagesConfig {
  Dims size;
  ResizeMode resize = ResizeMode::kStretch;
  Interpolation interpolation = Interpolation::kBilinear;
  ColorMode color_mode = ColorMode::kRgb;
  PixelScale scale = PixelScale::kUnit;

  // The span of the pixel values `scale` gives (1, 2 or 255): what PSNR and
  // SSIM are taken over.
  double value_range() const {
    return scale == PixelScale::kUnit ? 1.0 : scale == PixelScale::kSymmetric ? 2.0 : 255.0;
  }

  template <class V> void visit_fields(V& v) {
    v("size", size, "[height, width] every image is resized to; empty: the files' own size, which must be "
                    "one for all.");
    v("resize", resize, "stretch to size (Keras's default), or crop: the largest centred window of size's aspect "
                        "ratio first (Keras's crop_to_aspect_ratio).");
    v("interpolation", interpolation, "Resizing: bilinear (half-pixel centres, as Keras, no antialiasing), "
                                      "nearest, or area (the mean of the pixels each output pixel covers).");
    v("color_mode", color_mode, "rgb (3 channels) or grayscale (1: Pillow's luma of colour files).");
    v("scale", scale, "Pixel values: unit [0, 1], symmetric [-1, 1], or none (0 to 255, as Keras's "
                      "image_dataset_from_directory gives them).");
  }
};

struct DataConfig {
  DatasetKind dataset = DatasetKind::kFashionMnist;
  std::string path;
  int64_t num_words = 0;
  int64_t skip_top = 0;
  int64_t maxlen = 0;
  double test_split = 0.2;
  int64_t split_seed = 113;
  int64_t start_char = 1;
  int64_t oov_char = 2;
  int64_t index_from = 3;
  bool download = true;
  std::string url = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/reuters.npz";
  std::string sha256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916";
  std::string cache_dir = "~/.keras/datasets";
  int64_t sequence_length = 0;
  SequenceEnd padding = SequenceEnd::kPre;
  SequenceEnd truncating = SequenceEnd::kPre;
  int64_t max_train_samples = 0;
  int64_t max_valid_samples = 0;
  bool shuffle = true;
  int64_t workers = 1;
  int64_t prefetch = 4;
  DataPlacement on_device = DataPlacement::kAuto;
  std::string validation_path;
  double validation_split = 0.2;
  BadFilePolicy on_bad_file = BadFilePolicy::kError;
  ImagesConfig images;
  PairsConfig pairs;
  TabularConfig tabular;
  int64_t patch_size = 0;
  int64_t patches_per_image = 1;
  int64_t validation_patches_per_image = 0;  // 0: patches_per_image
  CacheMode cache = CacheMode::kMemory;
  MemoryLimit cache_limit{4096};
  AugmentConfig augment;
  DegradeConfig degrade;
  SyntheticConfig synthetic;

  template <class V> void visit_fields(V& v) {
    v("dataset", dataset, "Which data set: reuters, fashion_mnist, mnist, synthetic, image_folder (one "
                          "subfolder of images per class, as Keras's image_dataset_from_directory), image_pairs "
                          "(input images and target images, e.g. blurred and sharp) or image_degrade (sharp images, "
                          "degraded on the fly into inputs: see degrade) or tabular (rows of numbers from a CSV file, a .npy or an "
                          ".npz: see tabular).");
    v("path", path,
      "Where the data is. reuters: Keras's reuters.npz or the folder of the Reuters-21578 .sgm files "
      "(default: $TRAINER_DATA_DIR/reuters.npz or reuters21578/, then cache_dir/reuters.npz, then a download); "
      "fashion_mnist/mnist: the folder of IDX files (default $TRAINER_DATA_DIR/fashion-mnist or mnist/, then "
      "/usr/share/datasets/fashion-mnist for fashion_mnist); image_folder: the training folder, one subfolder "
      "of images per class (required); image_pairs: the folder of the pairs (required); image_degrade: the folder "
      "of the sharp images, searched with its subfolders (required); tabular: the .csv (a header row of column "
      "names), .npy or .npz file (required).");
    v("cache_dir", cache_dir, "reuters: where reuters.npz is looked for and downloaded to (Keras's cache).",
      not_empty());
    v("download", download, "reuters: download reuters.npz when it is nowhere to be found.");
    v("url", url, "reuters: where to download reuters.npz from (Keras's URL).", not_empty());
    v("sha256", sha256, "reuters: SHA-256 the download must have (Keras's); empty = not checked.");
    v("num_words", num_words, "reuters: keep the N most frequent words (Keras num_words); 0 = all.",
      at_least(0));
    v("skip_top", skip_top, "reuters: replace the N most frequent words by oov_char.", at_least(0));
    v("maxlen", maxlen, "reuters: drop newswires longer than this before splitting (Keras); 0 = keep all.",
      at_least(0));
    v("test_split", test_split, "reuters: fraction of newswires held out for validation.",
      Check<double>([](const double& x) { return (x > 0 && x < 1) ? "" : "a number in (0, 1)"; }));
    v("split_seed", split_seed, "reuters, image_folder, image_pairs, image_degrade, tabular: seed of the shuffle "
                                "before the split (Keras's reuters: 113).", at_least(0));
    v("start_char", start_char, "reuters: index that starts every sequence.", at_least(0));
    v("oov_char", oov_char, "reuters: index of out-of-vocabulary words.", at_least(0));
    v("index_from", index_from, "reuters: word indices are shifted up by this.", at_least(0));
    v("sequence_length", sequence_length,
      "reuters: pad or truncate every sequence to this length (Keras pad_sequences maxlen); 0 = "
      "longest.",
      at_least(0));
    v("padding", padding, "reuters: pad at the start (pre) or end (post), as pad_sequences.");
    v("truncating", truncating, "reuters: cut long sequences at the start (pre) or end (post).");
    v("max_train_samples", max_train_samples, "Use only the first N training samples; 0 = all.",
      at_least(0));
    v("max_valid_samples", max_valid_samples, "Use only the first N validation samples; 0 = all.",
      at_least(0));
    v("shuffle", shuffle, "Reshuffle the training set every epoch (seeded by experiment.seed and epoch).");
    v("workers", workers, "Background threads that assemble batches.", int_in_range(1, 64));
    v("prefetch", prefetch, "Batches assembled ahead of the training step.", int_in_range(1, 1024));
    v("on_device", on_device, "GPU runs: keep the training and validation tensors on the GPU and gather each batch "
                              "there (true), keep them in host memory and copy each batch ahead of its step "
                              "(false), or decide from the memory budget (auto: on the GPU when they take at most "
                              "a quarter of it; the log says which). Data sets that make their samples as batches "
                              "are assembled (image_pairs, image_degrade) stay in host memory. A CPU run keeps "
                              "them in host memory, and true says so in its log.");
    v("validation_path", validation_path,
      "image_folder, image_pairs, image_degrade: the folder of validation images; tabular: a file of validation rows (for image_folder with the training "
      "folder's class subfolders); empty: validation_split of the training folder.");
    v("validation_split", validation_split,
      "image_folder, image_pairs, image_degrade and tabular without validation_path: the fraction held out for validation, after a "
      "shuffle seeded by split_seed (the split Keras's image_dataset_from_directory makes with that seed).",
      Check<double>([](const double& x) { return (x > 0 && x < 1) ? "" : "a number in (0, 1)"; }));
    v("on_bad_file", on_bad_file, "An image that cannot be decoded (for trainer predict also a table row, text file "
                                  "or JSON line it cannot read): error (a data error naming it) or skip (left out "
                                  "with a warning, and counted).");
    v("images", images, "How image files become tensors (image_folder, image_pairs, image_degrade: inputs and "
                        "targets alike).");
    v("pairs", pairs, "image_pairs: which folders hold inputs and targets.");
    v("tabular", tabular, "tabular: the target and the features, the task.");
    v("patch_size", patch_size, "image_pairs, image_degrade: the model sees square windows of this many pixels "
                                "cut from the images (the same window of input and target; a random one in "
                                "training, one fixed per sample in validation); 0: whole images, which must then "
                                "be of one size.", at_least(0));
    v("patches_per_image", patches_per_image, "image_pairs, image_degrade with patch_size: samples cut from each "
                                              "image per epoch.", int_in_range(1, 10000));
    v("validation_patches_per_image", validation_patches_per_image,
      "image_pairs, image_degrade with patch_size: samples cut from each validation image (fixed ones); 0: "
      "patches_per_image. Set it to change the training samples an epoch while keeping the held-out samples "
      "that runs are compared on.", int_in_range(0, 10000));
    v("cache", cache, "image_pairs, image_degrade: keep decoded images in memory (8 bits per value) for the next "
                      "epoch, up to cache_limit, or none (decoded on every use).");
    v("cache_limit", cache_limit, "The memory cache's budget for all images together: images past it are "
                                  "decoded whenever they are used (0: no limit).");
    v("augment", augment, "image_pairs, image_degrade: random changes of the training samples, alike on input and "
                          "target.");
    v("degrade", degrade, "image_degrade: how inputs are made from the sharp images.");
    v("synthetic", synthetic, "Options of the synthetic data set.");
  }
};

// Data sets whose targets are images (regression per pixel), not classes.
inline bool has_image_targets(const DataConfig& data) {
  return data.dataset == DatasetKind::kImagePairs || data.dataset == DatasetKind::kImageDegrade;
}

// Data sets whose targets are real values (images, or a regression's), not
// class labels.
inline bool has_real_targets(const DataConfig& data) {
  return has_image_targets(data) ||
         (data.dataset == DatasetKind::kTabular && data.tabular.task == TabularTask::kRegression);
}

// How a GPU computes: the cuDNN and TF32 switches PyTorch users set by hand.
struct GpuConfig {
  bool cudnn_benchmark = true;
  bool tf32 = true;
  bool channels_last = false;
  bool fused_kernels = false;
  bool skip_cancelled_biases = true;

  template <class V> void visit_fields(V& v) {
    v("cudnn_benchmark", cudnn_benchmark, "Let cuDNN time its algorithms for each new convolution shape and keep "
                                          "the fastest (torch.backends.cudnn.benchmark): the shapes of a training "
                                          "run repeat, so the first steps pay for every later one.");
    v("tf32", tf32, "Convolutions in cuDNN may use TF32 on GPUs that have it (PyTorch's default; matrix products "
                    "stay exact fp32, as in PyTorch); false: exact fp32 everywhere (docs/devices.md).");
    v("channels_last", channels_last, "Image models in the channels-last layout on GPUs too (as on CPUs, where "
                                      "oneDNN is fastest so), with fused_kernels every instance norm in trainer's "
                                      "channel-tiled kernels; false: NCHW, which cuDNN ran faster on an H200 with "
                                      "LibTorch's norms (docs/performance.md).");
    v("fused_kernels", fused_kernels,
      "Run each instance norm with the ReLU, dropout and reflection padding after it as one CUDA kernel each way "
      "(docs/devices.md), where the build has trainer's CUDA kernels; false: LibTorch's kernels, one per layer, "
      "which measured as fast on an H200 (docs/performance.md). The same values to within float rounding; dropout "
      "draws other numbers.");
    v("skip_cancelled_biases", skip_cancelled_biases,
      "Run each convolution that an instance norm reads next without adding its bias, which the norm cancels "
      "exactly (its gradient is zero): two passes over the convolution's output fewer a step. The bias stays a "
      "parameter, with its name and value; false: LibTorch's convolutions with their biases (docs/devices.md).");
  }
};

struct ModelConfig {
  InitScheme init = InitScheme::kKeras;
  std::vector<LayerSpec> layers;
  std::string init_from;
  bool init_strict = false;
  NameMap init_rename;
  std::vector<std::string> freeze;

  template <class V> void visit_fields(V& v) {
    v("init", init, "Initialisation: keras (Glorot-uniform kernels, zero biases, uniform +-0.05 "
                    "embeddings) or pytorch (LibTorch's defaults).");
    v("layers", layers, "The layers, in order (see 'Layers').");
    v("init_from", init_from,
      "Start from trained weights: a trainer checkpoint (.pt), a run directory (its best checkpoint, else its "
      "newest), or a .safetensors or .npz file (as trainer export and PyTorch's safetensors write them). Each "
      "tensor whose name and shape match is loaded; the log lists what was loaded, skipped and left at its "
      "initialiser. A new run: the optimizer and the epochs start afresh (unlike --resume). \"\": none.");
    v("init_strict", init_strict, "init_from: every tensor of the model must be loaded, and every tensor of the "
                                  "file used (a config error listing the differences otherwise).");
    v("init_rename", init_rename,
      "init_from: rules renaming the file's tensors before they are matched, in order, {regex: replacement}: "
      "{\"^features\\\\.0\\\\.\": \"conv2d.\"} reads PyTorch's features.0.weight as conv2d.weight. The model's tensors "
      "are named LAYER.TENSOR after trainer summary's layer names (conv2d_1.weight), or as the model holds them "
      "(trainer export's names).");
    v("freeze", freeze, "Layers whose weights do not train, by trainer summary's names; * and ? match any "
                        "characters (conv2d*): no gradients, no optimizer state, counted non-trainable. A "
                        "frozen batchnorm keeps its moving statistics (it runs as at inference). The layer key "
                        "trainable: false does the same for one layer.");
  }
  // `trainer config` leaves out the fine-tuning keys while unused, so that
  // the files of runs that use none read as before they existed.
  bool is_quiet_default(const std::string& key) const {
    return (key == "init_from" && init_from.empty()) || (key == "init_strict" && !init_strict) ||
           (key == "init_rename" && init_rename.rules.empty()) || (key == "freeze" && freeze.empty());
  }
};

struct LossConfig {
  LossKind name = LossKind::kSparseCategoricalCrossentropy;
  bool from_logits = false;
  double epsilon = 1e-3;
  double label_smoothing = 0;
  ClassWeights class_weights;
  std::string path;

  template <class V> void visit_fields(V& v) {
    v("name", name, "sparse_categorical_crossentropy (class labels); mse, mae or l1 (its PyTorch name), or "
                    "charbonnier (sqrt(d^2 + epsilon^2), a smooth L1 used in image restoration) for targets; "
                    "torchscript: a loss written in PyTorch (path). "
                    "Default: sparse_categorical_crossentropy, or l1 for image_pairs.");
    v("path", path,
      "torchscript: the saved TorchScript module (torch.jit.script(m).save(PATH)), relative to where trainer runs: "
      "forward(output, target) returns the batch's mean loss, one number; output is what the model gives (a "
      "last softmax applied), target the labels (int64 class ids) or target images. Its own parameters, if any, "
      "do not train.");
    v("epsilon", epsilon, "charbonnier: where the loss turns from quadratic to linear.", positive());
    v("from_logits", from_logits,
      "sparse_categorical_crossentropy: the model outputs logits, not probabilities. false needs a last "
      "layer with activation: softmax (a config error otherwise). With a final softmax the loss is computed "
      "from its logits either way.");
    v("label_smoothing", label_smoothing,
      "sparse_categorical_crossentropy: the targets become (1 - s) on the label and s / classes on every class, "
      "as Keras's label_smoothing and PyTorch's; in the training and the validation loss.",
      Check<double>([](const double& x) { return (x >= 0 && x < 1) ? "" : "a number in [0, 1)"; }));
    v("class_weights", class_weights,
      "sparse_categorical_crossentropy: each sample's loss weighted by its class's weight, the mean taken over "
      "the weights (PyTorch's weight=); balanced: n / (classes x n_c) from the training labels (scikit-learn's). "
      "The training loss only: validation's stays unweighted, as Keras's class_weight. null: none.");
  }
  // Left out of a run's config.yaml while unused.
  bool is_quiet_default(const std::string& key) const {
    return (key == "label_smoothing" && label_smoothing == 0) || (key == "class_weights" && !class_weights.any()) ||
           (key == "path" && path.empty());
  }
};

struct LogConfig {
  std::string dir = "runs";
  std::string run_name;
  ProgressMode progress = ProgressMode::kAuto;
  double progress_seconds = 60;
  bool tensorboard = true;
  int64_t scalars_every = 20;
  bool step_times = true;

  template <class V> void visit_fields(V& v) {
    v("dir", dir, "Runs are written to DIR/EXPERIMENT_NAME/RUN_NAME/.", not_empty());
    v("run_name", run_name, "Name of this run's directory; default: the start time, YYYYmmdd-HHMMSS.",
      directory_name(true));
    v("progress", progress, "Progress on stderr: auto (a bar redrawn in place on a terminal; elsewhere, as in a "
                            "batch job's log file, a plain line every progress_seconds), always (the bar, even into "
                            "pipes), lines (plain lines, even on a terminal) or never.");
    v("progress_seconds", progress_seconds, "Seconds between plain progress lines (no carriage returns, no escape "
                                            "codes), each the step, times, running loss and metric, and speed.",
      positive());
    v("tensorboard", tensorboard, "Write TensorBoard event files (events.out.tfevents.*) in the run directory: "
      "scalars per step and per epoch, the config, and sample images of image-to-image models.");
    v("scalars_every", scalars_every, "Steps between per-step TensorBoard points (each the mean over those steps).",
      at_least(1));
    v("step_times", step_times, "Time the phases of training steps (data, forward, backward, all-reduce, "
      "optimizer) into metrics.jsonl and TensorBoard: every step on CPUs, one step in 20 on GPUs.");
  }
};

struct DistConfig {
  double timeout = 300;
  double connect_timeout = 60;
  double bucket_mb = 25;

  template <class V> void visit_fields(V& v) {
    v("timeout", timeout, "Seconds a rank may go silent (no heartbeat, or a collective that does not finish) "
      "before every other rank stops with exit code 8, naming it.", positive());
    v("connect_timeout", connect_timeout, "Seconds ranks wait for each other at start: rendezvous and the "
      "preflight all-reduce.", positive());
    v("bucket_mb", bucket_mb, "Gradients are averaged in buckets of about this many MiB, each all-reduced "
      "while backward still runs.", positive());
  }
};

struct LossScaleConfig {
  LossScaling mode = LossScaling::kAuto;
  double initial = 65536;
  int64_t growth_interval = 2000;

  template <class V> void visit_fields(V& v) {
    v("mode", mode, "auto: dynamic loss scaling when the forward pass runs in fp16; dynamic: on any precision; "
      "off: never (fp16 gradients may then underflow to zero).");
    v("initial", initial, "The scale the loss is multiplied by at the start (2^16, as PyTorch's GradScaler).",
      positive());
    v("growth_interval", growth_interval, "The scale doubles after this many steps in a row with finite "
      "gradients; a step with inf/NaN gradients is skipped and halves it.", int_in_range(1, 1000000000));
  }
};

struct ExperimentConfig {
  ExperimentSection experiment;
  DataConfig data;
  ModelConfig model;
  OptimizerConfig optimizer;
  LossConfig loss;
  std::vector<std::string> metrics{"accuracy"};
  TrainConfig train;
  DeviceList devices;
  MemoryLimit memory_limit;
  Precision precision = Precision::kFp32;
  bool mixed_precision = false;
  LossScaleConfig loss_scale;
  int64_t cpu_threads = 0;
  int64_t blas_threads = 1;
  GpuConfig gpu;
  DistConfig dist;
  LogConfig log;

  template <class V> void visit_fields(V& v) {
    v("experiment", experiment, "Name and seed.");
    v("data", data, "The data set and its input pipeline.");
    v("model", model, "The network.");
    v("optimizer", optimizer, "Optimizer, learning rate, schedule and gradient clipping.");
    v("loss", loss, "The training loss.");
    v("metrics", metrics, "Reported besides the loss: accuracy, topK (e.g. top5), precision, recall, f1 (macro "
                          "averages over the classes; with any of them each validation also records every class's "
                          "scores and the confusion matrix), mse, mae; psnr and ssim for image targets. Default: "
                          "accuracy, or psnr and ssim for image_pairs.");
    v("train", train, "Epochs, batch sizes and cadences.");
    v("devices", devices, "cpu, gpu:N, or a list (cpu,cpu / gpu:0,1 / [gpu:0, gpu:1]) or gpu:all: one process "
      "(rank) per entry, data-parallel (docs/distributed.md). GPU indices count the visible GPUs "
      "(CUDA_VISIBLE_DEVICES applies).");
    v("memory_limit", memory_limit, "Per-device (per-rank) memory budget: MiB (4096) or 512MiB, 4GiB; 0 = grow on "
      "demand. GPU: the CUDA caching allocator's share of the card; CPU: what LibTorch allocates. Past it the run "
      "stops with exit code 6.");
    v("precision", precision, "fp32, or bf16 / fp16: forward pass and loss under autocast in that type, weights "
      "and optimizer in fp32. fp16 is for GPUs (CPUs too with LibTorch 2.x) and uses loss scaling (docs/devices.md, "
      "'Mixed precision').");
    v("mixed_precision", mixed_precision, "Autocast in the device's natural type: bf16 on CPUs, fp16 on GPUs "
      "(precision, when not fp32, wins). On a GPU, a model under 1 G forward multiply-adds a step keeps fp32, "
      "and on a CPU without AVX-512-BF16 or AMX (where LibTorch emulates bf16) so does every model; the log "
      "says why (docs/devices.md, 'Small models on a GPU' and 'bf16 on CPUs').");
    v("loss_scale", loss_scale, "Dynamic loss scaling (fp16): skipped steps and the scale are logged.");
    v("cpu_threads", cpu_threads, "Intra-op CPU threads; 0 = the physical cores split between this host's ranks.",
      int_in_range(0, 1024));
    v("blas_threads", blas_threads, "Threads of an OpenBLAS under LibTorch's own; 1 avoids oversubscribing the "
                                    "cores (docs/devices.md).", int_in_range(1, 1024));
    v("gpu", gpu, "GPU runs: cuDNN's algorithm search, TF32 and the image layout.");
    v("dist", dist, "Data-parallel training over several ranks: time-outs and gradient buckets.");
    v("log", log, "Run directory and console output.");
  }
};

}  // namespace trainer
