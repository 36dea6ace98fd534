#include "kernels/intra_op.h"

#include <ATen/Parallel.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "intra_op_threads.h"


TEST_CASE("intra_op_chunks covers the range once, split among the intra-op threads", "[intra_op]") {
  const trainer::testing::IntraOpThreads two(2);
  std::vector<int> visits(100000, 0);
  std::mutex guard;
  std::set<std::thread::id> threads;
  trainer::intra_op_chunks(0, static_cast<int64_t>(visits.size()), 1000, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) ++visits[i];
    // Busy long enough that a pool handing every chunk to one thread shows.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(guard);
    threads.insert(std::this_thread::get_id());
  });
  CHECK(std::count(visits.begin(), visits.end(), 1) == static_cast<std::ptrdiff_t>(visits.size()));
  // The bug this guards: at::parallel_for compiled without OpenMP runs the
  // whole range in one call on the calling thread.
  CHECK(threads.size() == 2);
}

TEST_CASE("intra_op_chunks runs a range within the grain in one call on the caller", "[intra_op]") {
  const trainer::testing::IntraOpThreads two(2);
  std::vector<std::pair<int64_t, int64_t>> calls;
  std::thread::id ran_on;
  trainer::intra_op_chunks(5, 900, 1000, [&](int64_t first, int64_t last) {
    calls.emplace_back(first, last);
    ran_on = std::this_thread::get_id();
  });
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == std::make_pair(int64_t{5}, int64_t{900}));
  CHECK(ran_on == std::this_thread::get_id());
}
