#pragma once
// The files of the image-to-image data sets (torch-free).
//
// image_pairs: the input/target pairs of a folder. Every image
// below the folder whose path has a folder named `input` (data.pairs.input,
// e.g. "blur") pairs with the file at the same path with that folder named
// `target` ("sharp") instead. One rule covers both layouts in use:
//   ROOT/blur/x.png          <-> ROOT/sharp/x.png
//   ROOT/SCENE/blur/0001.png <-> ROOT/SCENE/sharp/0001.png   (GoPro, as
//                                                             deblurring papers use it)
#include <string>
#include <vector>

namespace trainer {

struct ImagePair {
  std::string input, target;  // full paths
};

// The pairs in sorted order of the input's path. An input without its
// target, or a target without its input, is a DataError naming the file and
// the one missing; so is a folder without pairs.
std::vector<ImagePair> index_image_pairs(const std::string& root, const std::string& input, const std::string& target);

// image_degrade: every image file below `root` (subfolders too), full paths
// in sorted order. A missing folder, or one without images, is a DataError.
std::vector<std::string> index_images_below(const std::string& root);

}  // namespace trainer
