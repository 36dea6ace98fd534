# How trainer finds its dependencies: Debian's system packages through CMake.
# Each missing dependency stops the configure step with the package to install;
# `scripts/install-deps.sh` installs all of them.

function(trainer_require_package name version debian_package)
  find_package(${name} ${version} QUIET ${ARGN})
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "trainer needs ${name} >= ${version}, which CMake could not find.\n"
      "On Debian/Ubuntu: sudo apt-get install ${debian_package}\n"
      "(or run scripts/install-deps.sh, which installs everything trainer needs).\n"
      "For a LibTorch outside the system paths, pass -DCMAKE_PREFIX_PATH=/path/to/libtorch.")
  endif()
  message(STATUS "Found ${name} ${${name}_VERSION}")
endfunction()

trainer_require_package(Torch 1.13 libtorch-dev)
trainer_require_package(yaml-cpp 0.6 libyaml-cpp-dev)
trainer_require_package(CLI11 2.1 libcli11-dev)
trainer_require_package(spdlog 1.9 libspdlog-dev)
trainer_require_package(ZLIB 1.2 zlib1g-dev)
if(TRAINER_BUILD_TESTS)
  trainer_require_package(Catch2 2.13 catch2)
endif()

# Torch's CMake config appends its own flags (the C++11 ABI define) to
# TORCH_CXX_FLAGS; the imported target already carries them, so nothing else
# is needed here.  TRAINER_TORCH_HAS_CUDA gates every CUDA/NCCL source file.
if(TORCH_CUDA_LIBRARIES OR TARGET torch_cuda)
  set(TRAINER_TORCH_HAS_CUDA ON)
else()
  set(TRAINER_TORCH_HAS_CUDA OFF)
endif()
message(STATUS "LibTorch CUDA support: ${TRAINER_TORCH_HAS_CUDA}")

# yaml-cpp 0.7 exports the target `yaml-cpp`; older configs only set variables.
if(NOT TARGET yaml-cpp)
  add_library(yaml-cpp INTERFACE IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${YAML_CPP_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${YAML_CPP_LIBRARIES}")
endif()
