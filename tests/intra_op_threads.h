#pragma once
// Sets LibTorch's intra-op thread count for one test, then puts it back:
// tests of what happens with several threads need them on a machine whose
// default is one (LibTorch counts physical cores).
#include <ATen/Parallel.h>

namespace trainer::testing {

struct IntraOpThreads {
  explicit IntraOpThreads(int threads) : before(at::get_num_threads()) { at::set_num_threads(threads); }
  ~IntraOpThreads() { at::set_num_threads(before); }
  IntraOpThreads(const IntraOpThreads&) = delete;
  IntraOpThreads& operator=(const IntraOpThreads&) = delete;
  int before;
};

}  // namespace trainer::testing
