# cmake -DIN=<file.ll> -DOUT=<file.ll> -P constant_state.cmake
# Declares the device state, mori_shmem_device_states, an LLVM `constant` (NVIDIA bitcode).
# Device code never writes it: the runtime copies it between kernels, as nvcc's __constant__
# contract says, and nvcc's optimizer treats its loads as invariant. clang declares a __constant__
# variable a mutable global, and a JIT's LLVM must then reload the state after every fence or
# call: in Triton 3.6's code for a loop of put + quiet, every iteration re-read the magic word,
# the heap's base and size and the RDMA counts behind the fence (ld.const in the loop), where the
# C++ kernel reads them once before it.
# A `constant` global lets LLVM hoist those loads. It stays externally_initialized, so LLVM never
# folds its zero initializer into the loads (the runtime binds the real state after loading).
file(READ "${IN}" _ir)
set(_from "@mori_shmem_device_states = ([a-z_ ]*)addrspace\\(4\\) externally_initialized global ")
string(REGEX MATCH "${_from}" _found "${_ir}")
if(NOT _found)
  message(FATAL_ERROR "constant_state.cmake: ${IN} does not define mori_shmem_device_states as an "
                      "externally_initialized addrspace(4) global (clang's form of a __constant__ variable)")
endif()
string(REGEX REPLACE "${_from}" "@mori_shmem_device_states = \\1addrspace(4) externally_initialized constant "
                     _ir "${_ir}")
file(WRITE "${OUT}" "${_ir}")
