#include <filesystem>
#include <memory>

#include "commands.h"
#include "runs/checkpoint_choice.h"
#include "infer/predict.h"

namespace trainer::app {

void add_predict_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    CheckpointArgs checkpoint;
    PredictOptions predict;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "predict", "Apply a checkpoint's model to new inputs: a classifier's top classes (a regression's values) as "
                 "JSON lines, an image-to-image model's output images at full size");
  args->checkpoint.add_to(*command, args->experiment);
  auto& p = args->predict;
  command
      ->add_option("--input", p.input,
                   "An image file, or a folder of them (subfolders searched); tabular: a .csv, .npy or .npz of rows; "
                   "reuters: a text file, a folder of .txt files, or a .jsonl or .npy of token ids")
      ->required();
  command->add_option("--output", p.output,
                      "Folder for the results: predictions.jsonl (classifiers, tables, texts; default: standard output) or the "
                      "output images, as PNG at the inputs' relative paths (a.jpg -> a.png; inputs sharing a name but not "
                      "the extension keep it: a.jpg.png)");
  command->add_flag("--overwrite", p.overwrite,
                    "Replace output files that exist (outputs never replace inputs: the output folder must lie "
                    "outside the input folder)");
  command->add_option("--top-k", p.top_k, "Classes listed per file (row, text), most probable first")
      ->default_val(5)
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  command->add_option("--tile", p.tiles.tile,
                      "Image models: cut images into tiles of this side (pixels), read and written a row of tiles at a "
                      "time, to bound memory; 0: whole images")
      ->default_val(0)
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  command->add_option("--overlap", p.tiles.overlap, "Image models: context each tile reads beyond what it writes")
      ->default_val(32)
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  command->add_option("--multiple", p.tiles.multiple,
                      "Image models: pad each piece to sides that are multiples of this (2^k for k stride-2 layers)")
      ->default_val(16)
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  command->callback([args, &selected] {
    selected = [args] {
      const CheckpointChoice choice = args->checkpoint.choose(args->experiment, "predict");
      PredictOptions options = args->predict;
      options.checkpoint = choice.checkpoint;
      if (!choice.run_config.empty()) options.run_dir = std::filesystem::path(choice.run_config).parent_path().string();
      run_predict(experiment_for_checkpoint(args->experiment.file, args->experiment.overrides, choice), options);
    };
  });
}

}  // namespace trainer::app
