#include "infer/weights_file.h"

#include <zlib.h>

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace trainer {
namespace {

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::string npy_descr(const std::string& dtype) {
  static const std::map<std::string, std::string> descr{{"F32", "<f4"}, {"F64", "<f8"}, {"F16", "<f2"},
                                                        {"I64", "<i8"}, {"I32", "<i4"}, {"U8", "|u1"},
                                                        {"BOOL", "|b1"}};
  const auto found = descr.find(dtype);
  if (found == descr.end()) throw std::invalid_argument("no NumPy dtype for " + dtype);
  return found->second;
}

// NumPy's format 1.0: magic, version, header length, a Python dict literal
// padded with spaces so that the data starts at a multiple of 64.
std::string npy_bytes(const NamedArray& array) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i) shape += std::to_string(array.shape[i]) + ", ";
  if (array.shape.size() > 1) shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1) shape.pop_back();  // "(32,)"
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(array.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  put_le(out, header.size(), 2);
  return out + header + array.bytes;
}

uint32_t crc_of(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t at = 0;
  while (at < bytes.size()) {  // crc32 takes a uInt length
    const size_t chunk = std::min<size_t>(bytes.size() - at, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(chunk));
    at += chunk;
  }
  return static_cast<uint32_t>(crc);
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

namespace {

// The fields a zip member's local header and its central directory entry
// share, from "version needed" to the extra field's length: a stored
// (uncompressed) member dated 1980-01-01, so that the output does not
// depend on the clock.
void put_member_fields(std::string& out, uint32_t crc, uint64_t size, size_t name_size) {
  constexpr uint16_t kVersion = 20;  // 2.0: what stored members need
  constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
  put_le(out, kVersion, 2);
  put_le(out, 0, 2);  // flags
  put_le(out, 0, 2);  // stored
  put_le(out, 0, 2);  // time
  put_le(out, kDosDate, 2);
  put_le(out, crc, 4);
  put_le(out, size, 4);  // compressed
  put_le(out, size, 4);
  put_le(out, name_size, 2);
  put_le(out, 0, 2);  // extra
}

}  // namespace

std::string npz_bytes(const std::vector<NamedArray>& arrays) {
  std::string out, directory;
  for (const NamedArray& array : arrays) {
    const std::string name = array.name + ".npy";
    const std::string content = npy_bytes(array);
    if (content.size() >= 0xffffffffull || out.size() >= 0xffffffffull)
      throw std::length_error("over 4 GiB: .npz files that large need ZIP64; use safetensors");
    const uint32_t crc = crc_of(content);
    const uint64_t local_offset = out.size();
    put_le(out, 0x04034b50, 4);
    put_member_fields(out, crc, content.size(), name.size());
    out += name;
    out += content;
    put_le(directory, 0x02014b50, 4);
    put_le(directory, 20, 2);  // made by: 2.0
    put_member_fields(directory, crc, content.size(), name.size());
    put_le(directory, 0, 2);  // comment
    put_le(directory, 0, 2);  // disk
    put_le(directory, 0, 2);  // internal attributes
    put_le(directory, 0, 4);  // external attributes
    put_le(directory, local_offset, 4);
    directory += name;
  }
  if (arrays.size() >= 0xffff || out.size() >= 0xffffffffull)
    throw std::length_error("too many tensors or bytes for a zip without ZIP64; use safetensors");
  const uint64_t directory_offset = out.size();
  out += directory;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, arrays.size(), 2);
  put_le(out, arrays.size(), 2);
  put_le(out, directory.size(), 4);
  put_le(out, directory_offset, 4);
  put_le(out, 0, 2);  // comment
  return out;
}

}  // namespace trainer
