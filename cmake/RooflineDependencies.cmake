# Every third-party package libroofline needs, found once, with a message that says how to get it.
find_package(CUDAToolkit 12.6 REQUIRED)

# One CUPTI generation only (host API + range profiler, CUDA >= 12.6/13): fail here, not at run time.
foreach(header cupti_profiler_host.h cupti_range_profiler.h)
  find_file(ROOFLINE_${header}_PATH ${header} PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(NOT ROOFLINE_${header}_PATH)
    message(FATAL_ERROR
      "libroofline needs CUPTI's ${header} (CUPTI host API + range profiler, CUDA 12.6 or newer; "
      "CUDA 13 is what we test). It is not in ${CUDAToolkit_INCLUDE_DIRS}. Install the CUDA "
      "toolkit's CUPTI component or point CUDAToolkit_ROOT at a toolkit that has it.")
  endif()
endforeach()
if(NOT TARGET CUDA::cupti)
  message(FATAL_ERROR "FindCUDAToolkit found no CUPTI library (CUDA::cupti): install CUPTI with the toolkit.")
endif()

if(NOT TARGET CUDA::nvtx3)
  message(FATAL_ERROR "FindCUDAToolkit found no NVTX 3 headers (CUDA::nvtx3): install the toolkit's NVTX component.")
endif()
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)

macro(roofline_require package hint)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "libroofline needs ${package}: ${hint}")
  endif()
endmacro()

roofline_require(spdlog "apt-get install libspdlog-dev" CONFIG)
roofline_require(nlohmann_json "apt-get install nlohmann-json3-dev" CONFIG)
roofline_require(CLI11 "apt-get install libcli11-dev" CONFIG)
roofline_require(zstd "apt-get install libzstd-dev (compresses counter-data images in recordings)" CONFIG)
if(TARGET zstd::libzstd_shared)
  set(ROOFLINE_ZSTD_TARGET zstd::libzstd_shared)
else()
  set(ROOFLINE_ZSTD_TARGET zstd::libzstd_static)
endif()

# cuDNN drives the bundled benchmarks (next issues). Optional for the library itself.
find_package(CUDNN)
if(CUDNN_FOUND)
  message(STATUS "cuDNN ${CUDNN_VERSION}: ${CUDNN_LIBRARY}")
else()
  message(STATUS "cuDNN not found: the cuDNN benchmarks will not be built")
endif()

if(ROOFLINE_BUILD_TESTS)
  roofline_require(GTest "apt-get install libgtest-dev")
endif()

# google-benchmark measures the ProfileScope hot path (benchmarks/); optional.
find_package(benchmark CONFIG QUIET)
