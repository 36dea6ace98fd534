#pragma once
// A pickle reader for one job: numpy object arrays of integer lists, as
// np.save(allow_pickle=True) writes them (Keras's reuters.npz `x`). It
// interprets the opcodes into plain values and never runs code: the only
// callables it accepts are numpy's array and dtype reconstructors.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

// The elements of a pickled 1-D numpy object array whose items are lists
// (or tuples) of integers. `name` is used in error messages; throws DataError.
std::vector<std::vector<int64_t>> unpickle_int_list_array(const std::string& pickle, const std::string& name);

}  // namespace trainer
