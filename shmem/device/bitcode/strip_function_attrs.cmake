# cmake -DIN=<file.ll> -DOUT=<file.ll> -P strip_function_attrs.cmake
# Removes the function attributes that keep LLVM from inlining the bitcode's functions into a JIT's
# kernel: clang writes target-cpu / target-features and the denormal mode on every function, the
# JIT's kernel carries none (or others), and the inliner refuses callees whose attributes are not
# compatible with the caller's (measured with Triton 3.6: every mori_shmem_jit_* call stayed a
# call until these were removed). Code generation takes them from the JIT's target instead.
file(READ "${IN}" _ir)
string(REGEX REPLACE " \"(target-cpu|target-features|denormal-fp-math|denormal-fp-math-f32)\"=\"[^\"]*\"" "" _ir
                     "${_ir}")
file(WRITE "${OUT}" "${_ir}")
