// Micro-probe behind the NIC model's launch configuration: can a small kernel launched on its own
// stream run while another kernel already has a block on every SM? The NIC model is such a small
// kernel, launched after the test kernel it serves, which spins until the model completes its
// WQEs: if the model cannot join, the test times out.
//
// A "filler" kernel puts `fillerBlocksPerSm` x SMs blocks of `fillerThreads` threads on the GPU
// and spins until a "guest" kernel (1 block of 128 threads, on a non-blocking stream, launched
// 50 ms later) sets a flag, or until 2 s pass. Variants change the filler's static shared memory
// and either kernel's preferred shared-memory carveout (cudaFuncAttributePreferredSharedMemoryCarveout,
// -1: not set). Prints one JSON object per variant: joined (the guest ran while the filler held
// every SM) and the time the guest took to run.
#include <stdio.h>
#include <unistd.h>

#include "micro_check.hpp"
#include "mori/platform/atomic.hpp"
#include "mori/platform/clock.hpp"
#include "mori/platform/gpu_runtime.hpp"

namespace g = mori::gpu;

// Spins until *flag != 0 or the deadline; counts blocks that saw the flag.
template <int SMEM>
__global__ void filler(const uint32_t* flag, uint64_t deadlineTicks, uint32_t* sawFlag) {
  __shared__ volatile uint32_t scratch[SMEM / 4 > 0 ? SMEM / 4 : 1];
  if (SMEM > 0 && threadIdx.x == 0) scratch[0] = 1;
  const uint64_t start = g::wallClock();
  while (g::atomicLoad<g::Order::Relaxed, g::Scope::System>(flag) == 0u) {
    if (g::wallClock() - start > deadlineTicks) return;
  }
  if (threadIdx.x == 0) atomicAdd(sawFlag, SMEM > 0 ? scratch[0] : 1u);
}

__global__ void guest(uint32_t* flag) {
  if (threadIdx.x == 0) g::atomicStore<g::Order::Relaxed, g::Scope::System>(flag, 1u);
}

struct Variant {
  const char* name;
  int fillerSmem;  // static shared memory of the filler: 0 or 8 bytes
  int fillerThreads;
  int fillerPerSm;
  int fillerCarveout;  // -1: not set
  int guestCarveout;   // -1: not set
};

template <int SMEM>
void launchFiller(const Variant& v, int sms, hipStream_t s, const uint32_t* flag, uint64_t ticks, uint32_t* saw) {
  if (v.fillerCarveout >= 0)
    MICRO_OK(hipFuncSetAttribute(reinterpret_cast<const void*>(&filler<SMEM>),
                                 hipFuncAttributePreferredSharedMemoryCarveout, v.fillerCarveout));
  filler<SMEM><<<sms * v.fillerPerSm, v.fillerThreads, 0, s>>>(flag, ticks, saw);
}

int main() {
  int sms = 0;
  MICRO_OK(hipSetDevice(0));
  MICRO_OK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
  hipStream_t a, b;
  MICRO_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  MICRO_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  uint32_t *flag, *saw;
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&flag), sizeof(uint32_t)));
  MICRO_OK(hipMalloc(reinterpret_cast<void**>(&saw), sizeof(uint32_t)));
  const uint64_t ticks = g::nsToWallTicks(2000000000ull);
  // Carveout hints are sticky per function: variants that set one come after those that do not.
  const Variant variants[] = {
      {"filler_smem0", 0, 256, 1, -1, -1},
      {"filler_smem8", 8, 256, 1, -1, -1},
      {"filler_smem8_guest_carveout0", 8, 256, 1, -1, 0},
      {"filler_smem8_guest_carveout100", 8, 256, 1, -1, 100},
      {"filler_smem8_both_carveout0", 8, 256, 1, 0, 0},
      {"filler_smem8_filler_carveout100_guest0", 8, 256, 1, 100, 0},
      {"filler_smem8_both_carveout100", 8, 256, 1, 100, 100},
  };
  for (const Variant& v : variants) {
    MICRO_OK(hipMemset(flag, 0, sizeof(uint32_t)));
    MICRO_OK(hipMemset(saw, 0, sizeof(uint32_t)));
    MICRO_OK(hipDeviceSynchronize());
    if (v.guestCarveout >= 0)
      MICRO_OK(hipFuncSetAttribute(reinterpret_cast<const void*>(&guest), hipFuncAttributePreferredSharedMemoryCarveout,
                                   v.guestCarveout));
    if (v.fillerSmem > 0)
      launchFiller<8>(v, sms, a, flag, ticks, saw);
    else
      launchFiller<0>(v, sms, a, flag, ticks, saw);
    MICRO_OK(hipGetLastError());
    usleep(50000);
    hipEvent_t start, stop;
    MICRO_OK(hipEventCreate(&start));
    MICRO_OK(hipEventCreate(&stop));
    MICRO_OK(hipEventRecord(start, b));
    guest<<<1, 128, 0, b>>>(flag);
    MICRO_OK(hipGetLastError());
    MICRO_OK(hipEventRecord(stop, b));
    MICRO_OK(hipDeviceSynchronize());
    float ms = 0;
    MICRO_OK(hipEventElapsedTime(&ms, start, stop));
    uint32_t sawHost = 0;
    MICRO_OK(hipMemcpy(&sawHost, saw, sizeof(uint32_t), hipMemcpyDeviceToHost));
    const int blocks = sms * v.fillerPerSm;
    printf(
        "{\"variant\": \"%s\", \"filler_blocks\": %d, \"filler_threads\": %d, \"filler_smem\": %d, "
        "\"filler_carveout\": %d, \"guest_carveout\": %d, \"joined\": %s, \"filler_blocks_saw_flag\": %u, "
        "\"guest_ms\": %.3f}\n",
        v.name, blocks, v.fillerThreads, v.fillerSmem, v.fillerCarveout, v.guestCarveout,
        sawHost == static_cast<uint32_t>(blocks) ? "true" : "false", sawHost, ms);
    MICRO_OK(hipEventDestroy(start));
    MICRO_OK(hipEventDestroy(stop));
  }
  return 0;
}
