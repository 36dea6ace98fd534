// Reading the weights files Python writes (weights_file.h): safetensors as
// its specification describes it, .npz as NumPy's savez writes it.
#include <nlohmann/json.hpp>

#include <map>

#include "formats/little_endian.h"
#include "formats/npy_format.h"
#include "formats/weights_file.h"
#include "formats/zip_archive.h"
#include "util/error.h"

namespace trainer {
namespace {

// NumPy's descr of each safetensors dtype (little-endian, or one byte).
const std::map<std::string, std::string>& npy_descrs() {
  static const std::map<std::string, std::string> descrs{{"<f4", "F32"}, {"<f8", "F64"}, {"<f2", "F16"},
                                                         {"<i8", "I64"}, {"<i4", "I32"}, {"|u1", "U8"},
                                                         {"|b1", "BOOL"}, {"|i1", "I8"}, {"<i2", "I16"}};
  return descrs;
}

int64_t element_count(const std::vector<int64_t>& shape, const std::string& where) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d)) throw DataError(where + ": shape is not a tensor's");
    count *= d;
  }
  return count;
}

}  // namespace

int64_t dtype_size(const std::string& dtype) {
  static const std::map<std::string, int64_t> sizes{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                                    {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::vector<NamedArray> read_safetensors(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 8) throw DataError(name + ": too short for a safetensors file (no header length)");
  const uint64_t header_size = get_le(bytes.data(), 8);
  if (header_size > bytes.size() - 8) throw DataError(name + ": the header length runs past the file's end");
  const nlohmann::json header =
      nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size), nullptr,
                            /*allow_exceptions=*/false);
  if (!header.is_object()) throw DataError(name + ": the header is not a JSON object: not a safetensors file");
  const uint64_t data_begin = 8 + header_size;
  const uint64_t data_size = bytes.size() - data_begin;
  std::vector<NamedArray> arrays;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string where = name + ": tensor '" + it.key() + "'";
    const nlohmann::json& entry = it.value();
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets") ||
        !entry["dtype"].is_string() || !entry["shape"].is_array() || !entry["data_offsets"].is_array() ||
        entry["data_offsets"].size() != 2)
      throw DataError(where + ": expected dtype, shape and data_offsets");
    NamedArray array;
    array.name = it.key();
    array.dtype = entry["dtype"].get<std::string>();
    if (dtype_size(array.dtype) == 0) throw DataError(where + ": dtype " + array.dtype + " is not one trainer reads");
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_integer()) throw DataError(where + ": the shape holds a non-integer");
      array.shape.push_back(d.get<int64_t>());
    }
    const auto& offsets = entry["data_offsets"];
    if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
      throw DataError(where + ": data_offsets are not byte positions");
    const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (begin > end || end > data_size) throw DataError(where + ": its bytes lie outside the file's data");
    if (static_cast<uint64_t>(element_count(array.shape, where) * dtype_size(array.dtype)) != end - begin)
      throw DataError(where + ": " + std::to_string(end - begin) + " bytes for its shape and dtype");
    array.bytes = bytes.substr(data_begin + begin, end - begin);
    arrays.push_back(std::move(array));
  }
  return arrays;
}

std::vector<NamedArray> read_npz(const std::string& bytes, const std::string& name) {
  std::vector<NamedArray> arrays;
  for (const auto& [member, content] : read_zip_members(bytes, name)) {
    if (member.size() < 5 || member.compare(member.size() - 4, 4, ".npy") != 0) continue;
    const std::string where = name + ":" + member;
    const NpyArray npy = parse_npy(content, where);
    const auto descr = npy_descrs().find(npy.descr);
    if (descr == npy_descrs().end()) throw DataError(where + ": dtype " + npy.descr + " is not one trainer reads");
    if (npy.fortran_order && npy.shape.size() > 1) throw DataError(where + ": Fortran order; save it in C order");
    NamedArray array;
    array.name = member.substr(0, member.size() - 4);
    array.dtype = descr->second;
    array.shape = npy.shape;
    if (static_cast<int64_t>(npy.data.size()) != element_count(array.shape, where) * dtype_size(array.dtype))
      throw DataError(where + ": its data is not its shape's size");
    array.bytes = npy.data;
    arrays.push_back(std::move(array));
  }
  return arrays;
}

}  // namespace trainer
