// How fast GPU threads post WQEs, measured through the NIC model in sink mode
// (MORI_NIC_MODEL_SINK=1: WQEs are consumed and completed without moving data, so the posting
// mechanism and the model's consumption bound the rate, not data movement). PE 0 posts 8-byte
// thread-scope puts to PE 1; PE 1 only takes part in init and barriers. Modes:
//   warp_one_qp   every lane of every warp posts to QP 0: one reservation and one doorbell per
//                 warp and round (aggregation), one QP carries everything
//   warp_per_qp   warp w posts to QP w % numQp: aggregation, all QPs
//   lane_per_qp   lane l posts to QP l % numQp: lanes of a warp never share a QP, so every WQE
//                 takes its own reservation and doorbell
// Prints one JSON object per mode on stdout. Options: --ctas N --threads N --iters N.
// Exits 77 (skipped) without two GPUs for two PEs.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mori/shmem_device.h"

namespace {

enum Mode { kWarpOneQp = 0, kWarpPerQp = 1, kLanePerQp = 2 };
const char* modeName(int m) {
  return m == kWarpOneQp ? "warp_one_qp" : m == kWarpPerQp ? "warp_per_qp" : "lane_per_qp";
}

template <int MODE>
__global__ void postKernel(uint64_t* dst, const uint64_t* src, int peer, int iters, int numQp) {
  const int width = mori::gpu::waveSize();
  const uint64_t tid = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  const int warp = static_cast<int>(tid / static_cast<uint64_t>(width));
  const int qp = MODE == kWarpOneQp ? 0 : MODE == kWarpPerQp ? warp % numQp : mori::gpu::laneId() % numQp;
  for (int i = 0; i < iters; ++i) mori_shmem_putmem_nbi_thread(dst + tid, src + tid, sizeof(uint64_t), peer, qp);
  __syncthreads();
  if (threadIdx.x == 0) mori_shmem_quiet();
}

template <int MODE>
float timeMode(uint64_t* dst, const uint64_t* src, int ctas, int threads, int iters, int numQp) {
  postKernel<MODE><<<ctas, threads>>>(dst, src, 1, 2, numQp);  // warm-up
  if (hipGetLastError() != hipSuccess) return -1;
  hipEvent_t start, stop;
  (void)hipEventCreate(&start);
  (void)hipEventCreate(&stop);
  (void)hipEventRecord(start, 0);
  postKernel<MODE><<<ctas, threads>>>(dst, src, 1, iters, numQp);
  if (hipGetLastError() != hipSuccess) return -1;
  (void)hipEventRecord(stop, 0);
  float ms = -1;
  if (hipEventSynchronize(stop) == hipSuccess) (void)hipEventElapsedTime(&ms, start, stop);
  (void)hipEventDestroy(start);
  (void)hipEventDestroy(stop);
  return ms;
}

int argInt(int argc, char** argv, const char* name, int def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], name)) return atoi(argv[i + 1]);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, gpus = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (hipGetDeviceCount(&gpus) != hipSuccess) gpus = 0;
  // Two PEs on two GPUs, or on one GPU that runs both processes' kernels at once (CUDA MPS).
  char how[256] = "";
  if (gpus > 0) (void)hipSetDevice(rank % gpus);
  const bool shared = gpus == 1 && size == 2;
  int mine = size == 2 && (gpus >= 2 || (shared && mori_shmem_gpu_sharing_concurrent(0, 2, how, sizeof(how)) == 1)),
      all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    if (rank == 0)
      printf("SKIPPED: needs 2 PEs on 2 GPUs, or on one GPU running both at once (%d PEs, %d GPUs visible%s%s)\n", size,
             gpus, *how ? "; " : "", how);
    MPI_Finalize();
    return 77;
  }
  // Sharing a GPU, PE 0's grid leaves the SMs for PE 1 and both NIC models (see gridShare in the tests).
  int sms = 132;
  (void)hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, rank % (gpus > 0 ? gpus : 1));
  const int ctas = argInt(argc, argv, "--ctas", shared ? sms / 2 - 1 : 132),
            threads = argInt(argc, argv, "--threads", 256);
  const int iters = argInt(argc, argv, "--iters", 64);
  const char* q = getenv("MORI_SHMEM_NUM_QP_PER_PE");
  const int numQp = q && *q ? atoi(q) : 2;  // the runtime's default
  const char* p = getenv("MORI_NIC_MODEL_PROVIDER");
  const char* provider = p && *p ? p : "mlx5";
  const char* s = getenv("MORI_NIC_MODEL_SINK");
  const bool sink = s && !strcmp(s, "1");

  if (mori_shmem_init() != 0) {
    fprintf(stderr, "PE %d: mori_shmem_init failed\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const size_t n = static_cast<size_t>(ctas) * threads;
  auto* dst = static_cast<uint64_t*>(mori_shmem_calloc(n, sizeof(uint64_t)));
  auto* src = static_cast<uint64_t*>(mori_shmem_calloc(n, sizeof(uint64_t)));
  int failed = !dst || !src;
  mori_shmem_barrier_all();
  if (rank == 0 && !failed) {
    for (int m = kWarpOneQp; m <= kLanePerQp; ++m) {
      const float ms = m == kWarpOneQp   ? timeMode<kWarpOneQp>(dst, src, ctas, threads, iters, numQp)
                       : m == kWarpPerQp ? timeMode<kWarpPerQp>(dst, src, ctas, threads, iters, numQp)
                                         : timeMode<kLanePerQp>(dst, src, ctas, threads, iters, numQp);
      char why[512] = "";
      if (ms < 0) {
        fprintf(stderr, "PE 0: %s failed: %s\n", modeName(m), mori_shmem_device_error(why, sizeof(why)) ? why : "?");
        failed = 1;
        break;
      }
      const double wqes = static_cast<double>(n) * iters, sec = ms * 1e-3;
      const int qps = m == kWarpOneQp ? 1 : numQp;
      printf(
          "{\"bench\": \"nic_model_rate\", \"provider\": \"%s\", \"sink\": %s, \"mode\": \"%s\", \"ctas\": %d, "
          "\"threads\": %d, \"iters\": %d, \"qps\": %d, \"wqes\": %.0f, \"seconds\": %.6f, "
          "\"wqes_per_s_gpu\": %.0f, \"wqes_per_s_per_qp\": %.0f}\n",
          provider, sink ? "true" : "false", modeName(m), ctas, threads, iters, qps, wqes, sec, wqes / sec,
          wqes / sec / qps);
      fflush(stdout);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!failed) {
    mori_shmem_barrier_all();
    mori_shmem_free(src);
    mori_shmem_free(dst);
    mori_shmem_finalize();
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}
