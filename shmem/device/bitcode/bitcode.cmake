# The device library as LLVM bitcode, one file per GPU architecture, for JIT compilers that link
# bitcode (Triton: mori_shmem.triton, docs/TRITON.md):
#   <build>/lib/mori_shmem_device_<arch>.bc   (sm90, gfx942, gfx90a, ...), installed into lib/
# Contents: the device library's sources (this folder's parent: the device state and the general
# paths) plus bitcode/jit_api.cpp (C-named entry points over the inline device API), compiled by
# clang as CUDA / HIP device code and linked with llvm-link; the functions' target attributes are
# then removed so that a JIT inlines them (strip_function_attrs.cmake). On NVIDIA the device state
# is declared constant so that a JIT's loops read it once (constant_state.cmake), and the inline
# API calls the general paths through pointers (general_path_calls.cpp). nvcc cannot emit LLVM
# bitcode.
#
# MORI_SHMEM_BITCODE: AUTO (build when a suitable clang is found), ON (fail without one), OFF.
# clang 19 or newer: sm_90 and gfx942 need it; gfx950 needs clang 20.
#   NVIDIA: clang's CUDA wrapper includes texture_fetch_functions.h, which CUDA 13 removed; an
#   empty stand-in (cuda13_shim/) is put after CUDA's own include path. libcu++ comes from CUDA's
#   cccl/ folder.
#   AMD: -nogpulib; the HIP headers' helpers (hip.bc, ockl.bc, the wave64 control) are linked in
#   from the ROCm device libraries and internalized: Triton links its own ockl only when the
#   kernel itself calls it, and the library's error reports (printf) need it.
# Included from shmem/device/CMakeLists.txt after the mori_shmem_device target exists.
set(MORI_SHMEM_BITCODE AUTO CACHE STRING "Build the device library as LLVM bitcode for Triton (AUTO, ON, OFF)")
set_property(CACHE MORI_SHMEM_BITCODE PROPERTY STRINGS AUTO ON OFF)

function(mori_bitcode_unavailable why)
  if(MORI_SHMEM_BITCODE STREQUAL "ON")
    message(FATAL_ERROR "mori-shmem: MORI_SHMEM_BITCODE=ON but ${why}")
  endif()
  message(STATUS "mori-shmem: device library bitcode not built: ${why}")
endfunction()

function(mori_add_device_bitcode)
  if(MORI_SHMEM_BITCODE STREQUAL "OFF")
    message(STATUS "mori-shmem: device library bitcode not built (MORI_SHMEM_BITCODE=OFF)")
    return()
  endif()
  find_program(MORI_BITCODE_CLANG NAMES clang-21 clang-20 clang-19 clang
               DOC "clang (19 or newer) that compiles the device library to LLVM bitcode")
  if(NOT MORI_BITCODE_CLANG)
    mori_bitcode_unavailable("no clang found (set MORI_BITCODE_CLANG)")
    return()
  endif()
  execute_process(COMMAND ${MORI_BITCODE_CLANG} --version OUTPUT_VARIABLE _v ERROR_QUIET)
  string(REGEX MATCH "clang version ([0-9]+)" _ "${_v}")
  set(_major "${CMAKE_MATCH_1}")
  if(NOT _major OR _major LESS 19)
    mori_bitcode_unavailable("${MORI_BITCODE_CLANG} is clang ${_major}; 19 or newer is needed")
    return()
  endif()
  get_filename_component(_clang_dir ${MORI_BITCODE_CLANG} DIRECTORY)
  get_filename_component(_clang_real ${MORI_BITCODE_CLANG} REALPATH)
  get_filename_component(_clang_real_dir ${_clang_real} DIRECTORY)
  find_program(MORI_BITCODE_LLVM_LINK NAMES llvm-link-${_major} llvm-link HINTS ${_clang_real_dir} ${_clang_dir}
               NO_DEFAULT_PATH)
  if(NOT MORI_BITCODE_LLVM_LINK)
    find_program(MORI_BITCODE_LLVM_LINK NAMES llvm-link-${_major})
  endif()
  foreach(_tool IN ITEMS llvm-as)
    string(TOUPPER "${_tool}" _var)
    string(REPLACE "-" "_" _var "MORI_BITCODE_${_var}")
    find_program(${_var} NAMES ${_tool}-${_major} ${_tool} HINTS ${_clang_real_dir} ${_clang_dir} NO_DEFAULT_PATH)
    if(NOT ${_var})
      find_program(${_var} NAMES ${_tool}-${_major})
    endif()
  endforeach()
  if(NOT MORI_BITCODE_LLVM_LINK OR NOT MORI_BITCODE_LLVM_AS)
    mori_bitcode_unavailable("llvm-link and llvm-as ${_major} were not both found next to ${MORI_BITCODE_CLANG}")
    return()
  endif()

  set(_dir ${CMAKE_CURRENT_SOURCE_DIR})
  get_target_property(_sources mori_shmem_device SOURCES)  # the device library's sources, as listed there
  set(_common -std=c++17 -O2 -fgpu-rdc --cuda-device-only -emit-llvm -c -Wall -Wextra -Werror
              -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include -I${PROJECT_SOURCE_DIR})
  set(_link_extra "")
  set(_archs "")
  set(_glue "")  # NVIDIA: the general paths' calls through pointers (below)
  set(_renames "")
  if(MORI_GPU_PLATFORM STREQUAL "nvidia")
    foreach(_a IN LISTS MORI_GPU_ARCHS)
      string(REGEX REPLACE "[^0-9]" "" _n "${_a}")
      list(APPEND _archs "sm${_n}")
    endforeach()
    get_filename_component(_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
    # Triton sets nvvm-reflect-ftz to 1 (flush denormals in libdevice); the module flags of linked
    # bitcode must agree.
    list(APPEND _common -x cuda --cuda-path=${_cuda_root} -Wno-unknown-cuda-version -fcuda-flush-denormals-to-zero
         -idirafter ${_dir}/bitcode/cuda13_shim)
    foreach(_inc IN LISTS CUDAToolkit_INCLUDE_DIRS)
      if(EXISTS ${_inc}/cccl/cuda/atomic)
        list(APPEND _common -isystem ${_inc}/cccl)
      endif()
    endforeach()
    # The inline API calls the general paths through pointers (bitcode/general_path_calls.cpp,
    # which lists them and says why): the library's own sources define each as <name>_impl.
    set(_glue bitcode/general_path_calls.cpp)
    file(READ ${_dir}/${_glue} _text)
    string(REGEX MATCHALL " X\\(mori_shmemi_[a-z_0-9]+\\)" _paths "${_text}")
    foreach(_p IN LISTS _paths)
      string(REGEX REPLACE " X\\((mori_shmemi_[a-z_0-9]+)\\)" "\\1" _p "${_p}")
      list(APPEND _renames -D${_p}=${_p}_impl)
    endforeach()
    if(NOT _renames)
      message(FATAL_ERROR "mori-shmem: no general paths listed in ${_dir}/${_glue}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_dir}/${_glue})
  else()
    set(_archs ${MORI_SHMEM_BITCODE_AMD_ARCHS})
    if(NOT _archs)
      set(_archs gfx942 gfx90a)
      if(_major GREATER_EQUAL 20)
        list(APPEND _archs gfx950)
      endif()
    endif()
    find_path(MORI_ROCM_BITCODE_DIR ockl.bc PATHS ${ROCM_PATH}/amdgcn/bitcode /opt/rocm/amdgcn/bitcode
              /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode DOC "ROCm device libraries (ockl.bc)")
    if(NOT MORI_ROCM_BITCODE_DIR)
      mori_bitcode_unavailable("the ROCm device libraries (ockl.bc, hip.bc) were not found (set MORI_ROCM_BITCODE_DIR)")
      return()
    endif()
    list(APPEND _common -x hip -nogpulib)
    set(_link_extra --internalize --only-needed ${MORI_ROCM_BITCODE_DIR}/hip.bc ${MORI_ROCM_BITCODE_DIR}/ockl.bc
                    ${MORI_ROCM_BITCODE_DIR}/oclc_wavefrontsize64_on.bc)
  endif()

  set(_outputs "")
  foreach(_arch IN LISTS _archs)
    set(_objdir ${CMAKE_CURRENT_BINARY_DIR}/bitcode/${_arch})
    if(MORI_GPU_PLATFORM STREQUAL "nvidia")
      string(REPLACE "sm" "sm_" _gpu "${_arch}")
      set(_target --cuda-gpu-arch=${_gpu})
    else()
      set(_target --offload-arch=${_arch})
    endif()
    set(_parts "")
    foreach(_src IN LISTS _sources ITEMS bitcode/jit_api.cpp ${_glue})
      get_filename_component(_name ${_src} NAME_WE)
      set(_defs "")
      if(NOT _src MATCHES "^bitcode/")
        # definitions (the checks) as in the device library (CMakeLists.txt next to this folder);
        # renamed general paths
        get_source_file_property(_src_defs ${_src} COMPILE_DEFINITIONS)
        if(_src_defs)
          list(TRANSFORM _src_defs PREPEND -D)
          list(APPEND _defs ${_src_defs})
        endif()
        list(APPEND _defs ${_renames})
      endif()
      add_custom_command(
        OUTPUT ${_objdir}/${_name}.bc
        COMMAND ${CMAKE_COMMAND} -E make_directory ${_objdir}
        COMMAND ${MORI_BITCODE_CLANG} ${_common} ${_target} ${_defs} -MD -MF ${_objdir}/${_name}.d ${_dir}/${_src} -o
                ${_objdir}/${_name}.bc
        DEPENDS ${_dir}/${_src}
        DEPFILE ${_objdir}/${_name}.d
        COMMENT "Device library bitcode ${_arch}: ${_src}"
        VERBATIM)
      list(APPEND _parts ${_objdir}/${_name}.bc)
    endforeach()
    set(_out ${PROJECT_BINARY_DIR}/lib/mori_shmem_device_${_arch}.bc)
    # Link the library (every function), then what it needs of the ROCm libraries (llvm-link's
    # --only-needed applies to every file after the first, so the library is linked alone first),
    # then drop the per-function target attributes (bitcode/strip_function_attrs.cmake) and, on
    # NVIDIA, declare the device state constant (bitcode/constant_state.cmake).
    set(_final ${_objdir}/stripped.ll)
    set(_constant_cmd "")
    if(MORI_GPU_PLATFORM STREQUAL "nvidia")
      set(_final ${_objdir}/final.ll)
      set(_constant_cmd COMMAND ${CMAKE_COMMAND} -DIN=${_objdir}/stripped.ll -DOUT=${_final} -P
                        ${_dir}/bitcode/constant_state.cmake)
    endif()
    add_custom_command(
      OUTPUT ${_out}
      COMMAND ${MORI_BITCODE_LLVM_LINK} ${_parts} -o ${_objdir}/library.bc
      COMMAND ${MORI_BITCODE_LLVM_LINK} ${_objdir}/library.bc ${_link_extra} -S -o ${_objdir}/linked.ll
      COMMAND ${CMAKE_COMMAND} -DIN=${_objdir}/linked.ll -DOUT=${_objdir}/stripped.ll -P
              ${_dir}/bitcode/strip_function_attrs.cmake
      ${_constant_cmd}
      COMMAND ${MORI_BITCODE_LLVM_AS} ${_final} -o ${_out}
      DEPENDS ${_parts} ${_dir}/bitcode/strip_function_attrs.cmake ${_dir}/bitcode/constant_state.cmake
      COMMENT "Device library bitcode ${_arch}: link"
      VERBATIM)
    list(APPEND _outputs ${_out})
  endforeach()
  add_custom_target(mori_shmem_bitcode ALL DEPENDS ${_outputs})
  install(FILES ${_outputs} DESTINATION ${CMAKE_INSTALL_LIBDIR})
  message(STATUS "mori-shmem: device library bitcode for ${_archs} (${MORI_BITCODE_CLANG})")
endfunction()

mori_add_device_bitcode()
