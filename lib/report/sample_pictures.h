#pragma once
// The sample pictures a run keeps in RUN_DIR/samples/
// (watch/sample_image_files.h), read for the report, and their section of
// the report: one row a validation sample, one column a picture (input,
// output, target), each embedded as a PNG data URI so that the report stays
// one file. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct SamplePicture {
  std::string sample;  // "valid-0"
  std::string role;    // "input", "output", "target"
  std::string png;     // the file's bytes
};

struct SamplePictures {
  int64_t step = -1;  // the global step they were made after; -1: unknown
  std::vector<SamplePicture> pictures;  // by sample, then input, output, target
};

// RUN_DIR/samples/*.png; none where the folder is missing. Files whose names
// are not SAMPLE-ROLE.png are left out.
SamplePictures read_sample_pictures(const std::string& run_dir);

// The report's HTML for them; `label` (a run's name, when several runs are
// compared) heads it.
std::string render_sample_pictures(const SamplePictures& samples, const std::string& label);

}  // namespace trainer
