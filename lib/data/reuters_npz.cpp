#include "data/reuters_npz.h"

#include "formats/file_bytes.h"
#include "formats/npy_format.h"
#include "formats/python_pickle.h"
#include "formats/zip_archive.h"
#include "util/error.h"

namespace trainer {
RawReuters read_reuters_npz(const std::string& path) {
  const auto members = read_zip_members(read_file_bytes(path), path);
  const auto member = [&](const std::string& key) -> const std::string& {
    auto found = members.find(key + ".npy");
    if (found == members.end()) throw DataError(path + ": has no array '" + key + "' (expected x and y, as Keras writes)");
    return found->second;
  };
  const NpyArray x = parse_npy(member("x"), path + ":x.npy");
  const NpyArray y = parse_npy(member("y"), path + ":y.npy");
  RawReuters raw;
  if (x.descr == "|O") {
    raw.sequences = unpickle_int_list_array(x.data, path + ":x.npy");
  } else {
    // A plain 2-D integer array (already padded) works too.
    const auto values = npy_to_int64(x, path + ":x.npy");
    if (x.shape.size() != 2 || x.fortran_order) throw DataError(path + ": x must be a list of sequences or a C-order 2-D array");
    if (x.shape[1] == 0 && x.shape[0] > 0) throw DataError(path + ": x is a 2-D array of empty rows");
    for (int64_t row = 0; row < x.shape[0]; ++row)
      raw.sequences.emplace_back(values.begin() + row * x.shape[1], values.begin() + (row + 1) * x.shape[1]);
  }
  raw.labels = npy_to_int64(y, path + ":y.npy");
  if (raw.labels.size() != raw.sequences.size())
    throw DataError(path + ": x has " + std::to_string(raw.sequences.size()) + " sequences but y has " +
                    std::to_string(raw.labels.size()) + " labels");
  return raw;
}

// Far above Reuters' 30,979 words and 46 topics.
constexpr int64_t kMaxWordId = int64_t{1} << 31;
constexpr int64_t kMaxLabel = int64_t{1} << 16;

void check_reuters_ranges(const RawReuters& raw, const std::string& path) {
  for (size_t i = 0; i < raw.labels.size(); ++i)
    if (raw.labels[i] < 0 || raw.labels[i] >= kMaxLabel)
      throw DataError(path + ":y.npy: label " + std::to_string(raw.labels[i]) + " at index " + std::to_string(i) +
                          " is not a topic number (0 to " + std::to_string(kMaxLabel - 1) + ")",
                      "re-create or re-download the file");
  for (size_t i = 0; i < raw.sequences.size(); ++i)
    for (size_t j = 0; j < raw.sequences[i].size(); ++j)
      if (raw.sequences[i][j] < 0 || raw.sequences[i][j] >= kMaxWordId)
        throw DataError(path + ":x.npy: word id " + std::to_string(raw.sequences[i][j]) + " (sequence " +
                            std::to_string(i) + ", position " + std::to_string(j) +
                            ") is not a word index (0 to 2^31 - 1)",
                        "re-create or re-download the file");
}

}  // namespace trainer
