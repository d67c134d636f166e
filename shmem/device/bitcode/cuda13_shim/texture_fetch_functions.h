// Empty stand-in for a header that CUDA 13 removed and clang's CUDA wrapper still includes
// (__clang_cuda_runtime_wrapper.h). Searched after CUDA's own include path (-idirafter), so a
// toolkit that has the header uses its own. The device library uses no textures.
#pragma once
