// The host memory left to this process: /proc/meminfo's MemAvailable, and a
// control group's limit when it is lower.
#include <catch2/catch.hpp>

#include "device/host_memory.h"

using namespace trainer;

TEST_CASE("MemAvailable and a cgroup's limit give the memory left", "[device][memory]") {
  const std::string meminfo = "MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   12000000 kB\n";
  CHECK(parse_mem_available(meminfo) == int64_t{12000000} * 1024);
  CHECK_FALSE(parse_mem_available("MemTotal: 100 kB\n").has_value());
  CHECK_FALSE(parse_mem_available("MemAvailable: lots\n").has_value());
  CHECK(cgroup_memory_left("1000000\n", "300000\n") == 700000);
  CHECK(cgroup_memory_left("1000\n", "3000\n") == 0);  // over its limit: nothing left
  CHECK_FALSE(cgroup_memory_left("max\n", "300000\n").has_value());
  CHECK_FALSE(cgroup_memory_left("", "").has_value());
  // Linux always says.
  const std::optional<int64_t> here = available_host_memory();
  REQUIRE(here.has_value());
  CHECK(*here > 0);
}
