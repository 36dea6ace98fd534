#include "formats/npy_format.h"

#include <cstring>
#include <regex>

#include "formats/little_endian.h"
#include "util/error.h"

namespace trainer {

namespace {

// One dimension of the header's shape; its product with the others must fit
// 64 bits, since a crafted header may declare any size.
int64_t element_count(const std::vector<std::string>& dims, std::vector<int64_t>& shape, const std::string& name) {
  int64_t count = 1;
  for (const std::string& text : dims) {
    int64_t dim = 0;
    for (char digit : text)
      if (__builtin_mul_overflow(dim, int64_t{10}, &dim) || __builtin_add_overflow(dim, int64_t{digit - '0'}, &dim))
        throw DataError(name + ": .npy shape dimension " + text + " is too large");
    shape.push_back(dim);
    if (__builtin_mul_overflow(count, dim, &count))
      throw DataError(name + ": .npy shape has more elements than 64 bits can count");
  }
  return count;
}

}  // namespace

int64_t NpyArray::count() const { return count_; }

// Magic, version, header length, then a Python dict literal padded with
// spaces so that the data starts at a multiple of 64.
std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const std::string& data) {
  std::string dims = "(";
  for (size_t i = 0; i < shape.size(); ++i) dims += std::to_string(shape[i]) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  else if (shape.size() == 1) dims.pop_back();  // "(32,)"
  dims += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  put_le(out, header.size(), 2);
  return out + header + data;
}

NpyArray parse_npy(const std::string& bytes, const std::string& name) {
  static const std::string kMagic = "\x93NUMPY";
  if (bytes.compare(0, kMagic.size(), kMagic) != 0 || bytes.size() < 10)
    throw DataError(name + ": not a .npy array (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  const size_t width = major == 1 ? 2 : 4;
  if (major < 1 || major > 3) throw DataError(name + ": .npy format version " + std::to_string(major) + " is not supported");
  size_t header_length = 0;
  for (size_t i = 0; i < width; ++i) header_length |= size_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  const size_t data_start = 8 + width + header_length;
  if (bytes.size() < data_start) throw DataError(name + ": .npy header is truncated");
  const std::string header = bytes.substr(8 + width, header_length);

  static const std::regex descr(R"('descr'\s*:\s*'([^']+)')"), fortran(R"('fortran_order'\s*:\s*(True|False))"),
      shape(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch m_descr, m_fortran, m_shape;
  if (!std::regex_search(header, m_descr, descr) || !std::regex_search(header, m_fortran, fortran) ||
      !std::regex_search(header, m_shape, shape))
    throw DataError(name + ": malformed .npy header: " + header);

  NpyArray array;
  array.descr = m_descr[1].str();
  array.fortran_order = m_fortran[1].str() == "True";
  const std::string dims = m_shape[1].str();
  static const std::regex number(R"(\d+)");
  std::vector<std::string> dim_texts;
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number); it != std::sregex_iterator(); ++it)
    dim_texts.push_back(it->str());
  array.count_ = element_count(dim_texts, array.shape, name);
  array.data = bytes.substr(data_start);
  return array;
}

std::vector<int64_t> npy_to_int64(const NpyArray& array, const std::string& name) {
  static const std::regex integer(R"(^([<|=])([iu])([1248])$)");
  std::smatch match;
  if (!std::regex_match(array.descr, match, integer))
    throw DataError(name + ": expected an integer array, found dtype '" + array.descr + "'");
  const bool is_signed = match[2].str() == "i";
  const size_t width = std::stoul(match[3].str());
  const int64_t count = array.count();
  // Against the bytes present, without multiplying: the count may be huge.
  if (array.data.size() % width != 0 || static_cast<uint64_t>(count) != array.data.size() / width)
    throw DataError(name + ": holds " + std::to_string(array.data.size()) + " bytes of data, but its shape declares " +
                    std::to_string(count) + " values of " + std::to_string(width) + " bytes (truncated?)");
  std::vector<int64_t> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t value = 0;
    for (size_t b = width; b-- > 0;) value = (value << 8) | static_cast<unsigned char>(array.data[i * width + b]);
    if (is_signed && width < 8 && (value >> (8 * width - 1)) & 1) value |= ~uint64_t{0} << (8 * width);
    out[static_cast<size_t>(i)] = static_cast<int64_t>(value);
  }
  return out;
}

std::vector<double> npy_to_double(const NpyArray& array, const std::string& name) {
  if (array.fortran_order && array.shape.size() > 1)
    throw DataError(name + ": the array is in Fortran order", "save it with numpy in C order (np.ascontiguousarray)");
  static const std::regex floating(R"(^([<|=])f([48])$)");
  std::smatch match;
  if (!std::regex_match(array.descr, match, floating)) {
    const std::vector<int64_t> integers = npy_to_int64(array, name);
    return {integers.begin(), integers.end()};
  }
  const size_t width = std::stoul(match[2].str());
  const int64_t count = array.count();
  if (array.data.size() % width != 0 || static_cast<uint64_t>(count) != array.data.size() / width)
    throw DataError(name + ": holds " + std::to_string(array.data.size()) + " bytes of data, but its shape declares " +
                    std::to_string(count) + " values of " + std::to_string(width) + " bytes (truncated?)");
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (width == 4) {
      float value;
      std::memcpy(&value, array.data.data() + i * 4, 4);
      out[static_cast<size_t>(i)] = value;
    } else {
      std::memcpy(&out[static_cast<size_t>(i)], array.data.data() + i * 8, 8);
    }
  }
  return out;
}

}  // namespace trainer
