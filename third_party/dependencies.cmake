# How trainer finds its dependencies: Debian's system packages through CMake.
# Each missing dependency stops the configure step with the package to install;
# `scripts/install-deps.sh` installs all of them.

macro(trainer_require_package name version debian_package)
  find_package(${name} ${version} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR
      "trainer needs ${name} >= ${version}, which CMake could not find.\n"
      "On Debian/Ubuntu: sudo apt-get install ${debian_package}\n"
      "(or run scripts/install-deps.sh, which installs everything trainer needs).\n"
      "For a LibTorch outside the system paths, pass -DCMAKE_PREFIX_PATH=/path/to/libtorch.")
  endif()
  message(STATUS "Found ${name} ${${name}_VERSION}")
endmacro()

trainer_require_package(Torch 1.13 libtorch-dev)
trainer_require_package(yaml-cpp 0.6 libyaml-cpp-dev)
trainer_require_package(CLI11 2.1 libcli11-dev)
trainer_require_package(spdlog 1.9 libspdlog-dev)
trainer_require_package(ZLIB 1.2 zlib1g-dev)
trainer_require_package(PNG 1.6 libpng-dev)
trainer_require_package(JPEG 62 libjpeg-dev)
trainer_require_package(CURL 7.74 libcurl4-openssl-dev)
trainer_require_package(OpenSSL 1.1 libssl-dev)
trainer_require_package(nlohmann_json 3.9 nlohmann-json3-dev)
# TensorBoard event files: the library, and protoc to compile event.proto.
trainer_require_package(Protobuf 3.12 "libprotobuf-dev protobuf-compiler")
if(NOT TARGET protobuf::protoc OR NOT TARGET protobuf::libprotobuf-lite)
  message(FATAL_ERROR "trainer needs protoc and libprotobuf-lite to build TensorBoard event files.\n"
                      "On Debian/Ubuntu: sudo apt-get install protobuf-compiler libprotobuf-dev")
endif()
# Debian keeps some configuration headers (OpenSSL's opensslconf.h,
# libjpeg's jconfig.h) in the multiarch include folder, which the compiler
# searches on its own only under /usr: headers found elsewhere (the GPU
# machine's bundle) need that folder named on their target.
function(trainer_multiarch_include target include_dir probe)
  if(CMAKE_LIBRARY_ARCHITECTURE AND NOT include_dir STREQUAL "/usr/include" AND
     EXISTS "${include_dir}/${CMAKE_LIBRARY_ARCHITECTURE}/${probe}")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                 "${include_dir}/${CMAKE_LIBRARY_ARCHITECTURE}")
  endif()
endfunction()
trainer_multiarch_include(OpenSSL::Crypto "${OPENSSL_INCLUDE_DIR}" openssl/opensslconf.h)
trainer_multiarch_include(JPEG::JPEG "${JPEG_INCLUDE_DIR}" jconfig.h)
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

# yaml-cpp 0.7 (Debian 12) exports the target `yaml-cpp`, 0.8 (Debian 13)
# `yaml-cpp::yaml-cpp`; older configs only set variables.
if(NOT TARGET yaml-cpp AND TARGET yaml-cpp::yaml-cpp)
  add_library(yaml-cpp INTERFACE IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES INTERFACE_LINK_LIBRARIES yaml-cpp::yaml-cpp)
elseif(NOT TARGET yaml-cpp)
  add_library(yaml-cpp INTERFACE IMPORTED)
  set_target_properties(yaml-cpp PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${YAML_CPP_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${YAML_CPP_LIBRARIES}")
endif()

# PyTorch's wheels ship their own, newer fmt in torch/include. spdlog must
# compile against the fmt it was built with, so that fmt's headers come first
# on every compile line. With Debian's packages they are in /usr/include,
# which CMake never writes on a compile line, so this changes nothing there.
if(TARGET fmt::fmt)
  get_target_property(TRAINER_FMT_INCLUDES fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
  if(TRAINER_FMT_INCLUDES)
    include_directories(BEFORE SYSTEM ${TRAINER_FMT_INCLUDES})
  endif()
endif()

# PyTorch's wheels export the std::filesystem functions of the libstdc++ they
# were statically built with (pytorch/pytorch#133437). A reference binds to
# the first library on the link line that defines it, and at run time to the
# first in DT_NEEDED order; libtorch comes before libstdc++ in both, so our
# std::filesystem::remove_all ran libtorch.so's copy and crashed (seen with
# PyTorch 2.11). The shared libstdc++ goes first on every link line, by its
# full path: some toolchains (a relocated GCC whose own library folder holds
# only libstdc++.a) would otherwise link a static libstdc++ after libtorch.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                OUTPUT_VARIABLE TRAINER_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${TRAINER_LIBSTDCXX}")
  set(TRAINER_LIBSTDCXX -lstdc++)
endif()
add_link_options("SHELL:-Wl,--push-state,--no-as-needed ${TRAINER_LIBSTDCXX} -Wl,--pop-state")

find_package(Threads REQUIRED)

# One precompiled <torch/torch.h>, shared by every target that includes torch:
# parsing it costs ~18 s per file on a small machine, the PCH a fraction.
add_library(trainer_torch_pch STATIC ${PROJECT_SOURCE_DIR}/third_party/torch_pch.cpp)
target_link_libraries(trainer_torch_pch PUBLIC ${TORCH_LIBRARIES})
target_precompile_headers(trainer_torch_pch PRIVATE <torch/torch.h>)

function(trainer_use_torch_pch target)
  target_precompile_headers(${target} REUSE_FROM trainer_torch_pch)
endfunction()

# Files that do not include torch skip the PCH: loading its ~0.5 GB costs more
# than compiling them.
function(trainer_without_torch_pch)
  set_source_files_properties(${ARGN} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()
