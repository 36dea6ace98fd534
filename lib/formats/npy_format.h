#pragma once
// numpy's .npy format: magic, version, a Python-dict header (descr,
// fortran_order, shape), then the data, or a pickle for object arrays.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct NpyArray {
  std::string descr;  // "<i8", "|u1", "|O", ...
  bool fortran_order = false;
  std::vector<int64_t> shape;
  std::string data;  // raw little-endian values, or the pickle when descr is "|O"
  // Elements the shape declares (checked to fit 64 bits; not yet against data).
  int64_t count() const;
  int64_t count_ = 1;
};

// A whole .npy file (format 1.0) of C-order `data` of `descr` ("<f4").
std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const std::string& data);

NpyArray parse_npy(const std::string& bytes, const std::string& name);

// Integer arrays of any width/signedness as int64. Throws DataError for
// other dtypes.
std::vector<int64_t> npy_to_int64(const NpyArray& array, const std::string& name);

// Float (4 or 8 byte) or integer arrays as double, in C order. Throws
// DataError for other dtypes, Fortran order, or data short of the shape.
std::vector<double> npy_to_double(const NpyArray& array, const std::string& name);

}  // namespace trainer
