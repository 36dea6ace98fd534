#include "watch/sample_image_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {

std::string sample_file_name(const std::string& image_name) {
  std::string name = image_name;
  std::replace(name.begin(), name.end(), '/', '-');
  return name + ".png";
}

void SampleImageFiles::on_images(const std::vector<NamedImage>& images, int64_t global_step) {
  const std::string dir = run_dir_ + "/samples";
  try {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw write_failure(dir, error.value());
    for (const NamedImage& image : images)
      write_file_atomic(dir + "/" + sample_file_name(image.name), image.image.png);
    // Last, so that a reader that finds this step finds its pictures.
    write_file_atomic(dir + "/step", std::to_string(global_step) + "\n");
  } catch (const Error& e) {
    // The pictures are for looking at: never a reason to stop training.
    if (!warned_) log().warn("the sample pictures were not written: {}", e.what());
    warned_ = true;
  }
}

}  // namespace trainer
