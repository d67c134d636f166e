# Decides the GPU platform once and sets up its compiler. Every GPU source is written in HIP:
#   AMD:    the whole project is compiled by hipcc (CMAKE_CXX_COMPILER=hipcc).
#   NVIDIA: host-only sources go to the C++ compiler, GPU sources to nvcc (mori_gpu_sources()).
set(MORI_GPU_PLATFORM "auto" CACHE STRING "GPU platform: amd, nvidia or auto")
set_property(CACHE MORI_GPU_PLATFORM PROPERTY STRINGS auto amd nvidia)
set(MORI_GPU_ARCHS "" CACHE STRING "GPU targets (AMD: gfx942;gfx950; NVIDIA: 90); empty = platform default")

if(MORI_GPU_PLATFORM STREQUAL "auto")
  if(CMAKE_CXX_COMPILER MATCHES "hipcc|amdclang")
    set(_platform amd)
  else()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      set(_platform nvidia)
    else()
      message(FATAL_ERROR "mori-shmem: no GPU compiler found. For NVIDIA put nvcc on PATH (or set "
                          "CMAKE_CUDA_COMPILER); for AMD configure with -DCMAKE_CXX_COMPILER=hipcc.")
    endif()
  endif()
  set(MORI_GPU_PLATFORM ${_platform} CACHE STRING "GPU platform: amd, nvidia or auto" FORCE)
endif()

if(MORI_GPU_PLATFORM STREQUAL "amd")
  if(NOT CMAKE_CXX_COMPILER MATCHES "hipcc|amdclang")
    message(FATAL_ERROR "mori-shmem: AMD builds compile every source with hipcc; configure with "
                        "-DCMAKE_CXX_COMPILER=hipcc (got ${CMAKE_CXX_COMPILER})")
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} --version OUTPUT_VARIABLE _hipv ERROR_QUIET)
  string(REGEX MATCH "HIP version: ([0-9]+\\.[0-9]+)" _ "${_hipv}")
  set(MORI_HIP_VERSION "${CMAKE_MATCH_1}")
  if(NOT MORI_GPU_ARCHS)
    if(MORI_HIP_VERSION AND MORI_HIP_VERSION VERSION_LESS 6.2)
      # ROCm before 6.2 cannot target gfx942/gfx950; build the CDNA targets it has.
      set(MORI_GPU_ARCHS "gfx90a;gfx940")
      message(STATUS "mori-shmem: HIP ${MORI_HIP_VERSION} predates gfx942/gfx950; building ${MORI_GPU_ARCHS}")
    else()
      set(MORI_GPU_ARCHS "gfx942;gfx950")
    endif()
  endif()
  # Every source is compiled and every program and library linked for every target, unless its
  # target's MORI_TARGET_ARCHS property (or its folder's) names fewer: tests/ and examples/ set it
  # to MORI_TEST_ARCHS, which tools/test.sh sets to one target on a machine without an AMD GPU,
  # where those programs never run on a GPU. In ci5's AMD build (2116 CPU s), links were 1249 s
  # (each test program device-links the runtime for every target) and test sources 402 s.
  set(MORI_TEST_ARCHS "" CACHE STRING
      "AMD: targets that the tests and in-tree examples are compiled and linked for (empty = MORI_GPU_ARCHS)")
  foreach(_arch IN LISTS MORI_TEST_ARCHS)
    if(NOT _arch IN_LIST MORI_GPU_ARCHS)
      message(FATAL_ERROR "mori-shmem: MORI_TEST_ARCHS (${MORI_TEST_ARCHS}) must be among MORI_GPU_ARCHS "
                          "(${MORI_GPU_ARCHS})")
    endif()
  endforeach()
  define_property(TARGET PROPERTY MORI_TARGET_ARCHS INHERITED)
  define_property(DIRECTORY PROPERTY MORI_TARGET_ARCHS INHERITED)
  # Links and configure checks name the targets too: hipcc without --offload-arch runs
  # rocm_agent_enumerator, which prints a Python traceback on a machine without the AMD driver.
  # Its clang leaves per-compile temporary folders behind: they go to the build tree, not /tmp.
  set(_mori_arch_flags "")
  set(MORI_HIP_LINK_ARCH_OPTIONS "")
  foreach(_arch IN LISTS MORI_GPU_ARCHS)
    set(_chosen "$<OR:$<NOT:$<BOOL:$<TARGET_PROPERTY:MORI_TARGET_ARCHS>>>,$<IN_LIST:${_arch},$<TARGET_PROPERTY:MORI_TARGET_ARCHS>>>")
    add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:CXX>,${_chosen}>:--offload-arch=${_arch}>")
    list(APPEND MORI_HIP_LINK_ARCH_OPTIONS "$<${_chosen}:--offload-arch=${_arch}>")
    add_link_options("$<$<AND:$<LINK_LANGUAGE:CXX>,${_chosen}>:--offload-arch=${_arch}>")
    string(APPEND _mori_arch_flags " --offload-arch=${_arch}")
  endforeach()
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tmp)
  set_property(GLOBAL PROPERTY RULE_LAUNCH_COMPILE "${CMAKE_COMMAND} -E env TMPDIR=${CMAKE_BINARY_DIR}/tmp")
  set_property(GLOBAL PROPERTY RULE_LAUNCH_LINK "${CMAKE_COMMAND} -E env TMPDIR=${CMAKE_BINARY_DIR}/tmp")
  # hipcc (ROCm 5.x) forces every device function inline (-amdgpu-early-inline-all,
  # -amdgpu-function-calls=false) unless told --hipcc-func-supp. The device library's general
  # paths are compiled at the device link of each program (-fgpu-rdc); the package passes the flag
  # to that link, so their cold parts (waits, error reports) stay out of line.
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "--hipcc-func-supp${_mori_arch_flags}")
  check_cxx_source_compiles("int main() { return 0; }" MORI_HIPCC_FUNC_SUPP)
  unset(CMAKE_REQUIRED_FLAGS)
  set(MORI_HIP_DEVICE_LINK_OPTIONS "")
  if(MORI_HIPCC_FUNC_SUPP)
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:--hipcc-func-supp>)
    list(APPEND MORI_HIP_DEVICE_LINK_OPTIONS --hipcc-func-supp)
  endif()
  # The device link reads the compiler's bitcode with lld, which must be the compiler's own LLVM
  # version: Debian's ROCm 5.2 hipcc is clang 15 while /usr/bin/lld is LLVM 14.
  string(REGEX MATCH "clang version ([0-9]+)" _ "${_hipv}")
  if(CMAKE_MATCH_1 AND EXISTS "/usr/lib/llvm-${CMAKE_MATCH_1}/bin/ld.lld")
    list(APPEND MORI_HIP_DEVICE_LINK_OPTIONS "-B/usr/lib/llvm-${CMAKE_MATCH_1}/bin")
  endif()
  # The device link of relocatable device code (-fgpu-rdc). Its own image object carries no
  # .note.GNU-stack: say the stack is not executable.
  set(MORI_HIP_RDC_LINK_OPTIONS -fgpu-rdc --hip-link ${MORI_HIP_DEVICE_LINK_OPTIONS} "LINKER:-z,noexecstack")
  set(MORI_PLATFORM_AMD 1)
  set(MORI_PLATFORM_NVIDIA 0)
  set(MORI_GPU_LANG CXX)
elseif(MORI_GPU_PLATFORM STREQUAL "nvidia")
  if(NOT MORI_GPU_ARCHS)
    set(MORI_GPU_ARCHS 90)
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${MORI_GPU_ARCHS})
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  # One static CUDA runtime inside libmori_shmem (as NCCL does); the user's own runtime registers
  # the user's kernels. Handles (streams, pointers) are the driver's and pass between the two.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  # The device API is relocatable device code (the device library, shmem/device): every CUDA
  # source is compiled with -rdc and every program and shared library is device-linked.
  set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(MORI_PLATFORM_AMD 0)
  set(MORI_PLATFORM_NVIDIA 1)
  set(MORI_GPU_LANG CUDA)
else()
  message(FATAL_ERROR "MORI_GPU_PLATFORM must be amd, nvidia or auto (got '${MORI_GPU_PLATFORM}')")
endif()
message(STATUS "mori-shmem: platform ${MORI_GPU_PLATFORM}, targets ${MORI_GPU_ARCHS}")

# Marks sources that contain device code (they are HIP: nvcc compiles them on NVIDIA).
function(mori_gpu_sources)
  set_source_files_properties(${ARGN} PROPERTIES MORI_GPU_SOURCE ON)
  if(MORI_GPU_PLATFORM STREQUAL "nvidia")
    set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_SOURCE_DIR} PROPERTIES LANGUAGE CUDA)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

# hipcc's options for a source of host code only: compile it as C++, as the host compiler does on
# NVIDIA, instead of as HIP for the host and once more for every GPU target; the offloading flags
# every source gets are unused there, which clang would report.
set(MORI_AMD_HOST_CXX_OPTIONS -xc++ -Wno-unused-command-line-argument)

# Test sources without device code (not marked by mori_gpu_sources() in this folder) take
# MORI_AMD_HOST_CXX_OPTIONS on AMD (test_env.cpp: 2.3 instead of 6.5 CPU seconds). A folder that
# sets MORI_TEST_SOURCES_AS_HIP keeps them HIP (the SDMA tests: issue 25 asks for both targets).
function(mori_test_host_sources)
  if(NOT MORI_GPU_PLATFORM STREQUAL "amd" OR MORI_TEST_SOURCES_AS_HIP)
    return()
  endif()
  foreach(_src IN LISTS ARGN)
    get_source_file_property(_gpu ${_src} MORI_GPU_SOURCE)
    if(_src MATCHES "\\.(cpp|cc|cxx)$" AND NOT _gpu)
      set_property(SOURCE ${_src} APPEND PROPERTY COMPILE_OPTIONS ${MORI_AMD_HOST_CXX_OPTIONS})
    endif()
  endforeach()
endfunction()

# A target of host code only (the runtime's host objects): its C++ sources take
# MORI_AMD_HOST_CXX_OPTIONS on AMD.
function(mori_host_only target)
  if(MORI_GPU_PLATFORM STREQUAL "amd")
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${MORI_AMD_HOST_CXX_OPTIONS}>")
  endif()
endfunction()

# Links the GPU runtime into a target that calls it from host code.
function(mori_link_gpu_runtime target)
  if(MORI_GPU_PLATFORM STREQUAL "nvidia")
    target_link_libraries(${target} PRIVATE CUDA::cudart_static)
  endif()
endfunction()

# Warnings are errors on every compiler the project uses.
function(mori_warnings target)
  if(NOT MORI_WERROR)
    return()
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Werror>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
endfunction()
