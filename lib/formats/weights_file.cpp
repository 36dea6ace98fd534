#include "formats/weights_file.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "formats/little_endian.h"
#include "formats/npy_format.h"
#include "formats/zip_writer.h"

namespace trainer {
namespace {

std::string npy_descr(const std::string& dtype) {
  static const std::map<std::string, std::string> descr{{"F32", "<f4"}, {"F64", "<f8"}, {"F16", "<f2"},
                                                        {"I64", "<i8"}, {"I32", "<i4"}, {"U8", "|u1"},
                                                        {"BOOL", "|b1"}};
  const auto found = descr.find(dtype);
  if (found == descr.end()) throw std::invalid_argument("no NumPy dtype for " + dtype);
  return found->second;
}

}  // namespace

std::string safetensors_bytes(const std::vector<NamedArray>& arrays, const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header;
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const NamedArray& array : arrays) {
    header[array.name] = {{"dtype", array.dtype}, {"shape", array.shape}, {"data_offsets", {offset, offset + array.bytes.size()}}};
    offset += array.bytes.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  std::string out;
  out.reserve(8 + text.size() + offset);
  put_le(out, text.size(), 8);
  out += text;
  for (const NamedArray& array : arrays) out += array.bytes;
  return out;
}

std::string npz_bytes(const std::vector<NamedArray>& arrays) {
  try {
    ZipWriter zip;
    for (const NamedArray& array : arrays)
      zip.add(array.name + ".npy", npy_bytes(npy_descr(array.dtype), array.shape, array.bytes));
    return zip.finish();
  } catch (const std::length_error& e) {
    throw std::length_error(std::string(e.what()) + "; use safetensors");
  }
}

}  // namespace trainer
