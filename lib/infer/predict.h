#pragma once
// `trainer predict`: a checkpoint's model applied to new inputs. An image
// classifier gives each file's top-k classes, one JSON line per file; an
// image-to-image model (image_pairs, image_degrade) writes each output image
// at its input's full size, whole or in tiles; tabular and reuters models
// read rows and texts (predict_rows.h).
#include <cstdint>
#include <string>

#include "infer/tile_options.h"
#include "spec/experiment_config.h"

namespace trainer {

struct PredictOptions {
  std::string checkpoint;
  std::string run_dir;  // the run the checkpoint belongs to; empty when none
  std::string input;    // an image file, or a folder searched with its subfolders; rows or texts (predict_rows.h)
  std::string output;  // a folder; classifiers without one print to stdout
  int64_t top_k = 5;
  bool overwrite = false;  // replace outputs that exist (never the inputs)
  TileOptions tiles;
};

// Returns the number of files (rows, sequences) predicted. Throws DataError naming a file that
// cannot be read (skipped with a warning under data.on_bad_file: skip),
// IoError naming an output that cannot be written; every file written is
// complete (written under a temporary name, then renamed). UsageError, before
// anything is read, when an output would replace an input, another output,
// or (without `overwrite`) a file that exists: predict_outputs.h.
int64_t run_predict(const ExperimentConfig& config, const PredictOptions& options);

}  // namespace trainer
