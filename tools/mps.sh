# Sourced by tools/gpu_suite.sh and tools/run.sh: CUDA MPS for PEs that share one NVIDIA GPU.
# Without MPS the driver time-slices processes on a GPU, so a kernel that waits for another
# process's kernel never sees it run; under MPS their kernels run at the same time. AMD GPUs need
# nothing: the hardware scheduler runs several processes' queues at once.
#
#   mps_start   starts the control daemon (pipe and log directories under /tmp unless
#               CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY are set) and exports them so
#               every process of the job connects; uses a daemon that already answers there.
#               Returns 1, saying why, when MPS cannot be started.
#   mps_stop    stops a daemon that mps_start started (no-op otherwise); also run on EXIT.

MORI_MPS_STARTED=0

mps_control_bin() {
  command -v nvidia-cuda-mps-control 2> /dev/null ||
    { [ -x /usr/local/nvidia/bin/nvidia-cuda-mps-control ] && echo /usr/local/nvidia/bin/nvidia-cuda-mps-control; }
}

mps_start() {
  local bin
  bin=$(mps_control_bin) || true
  if [ -z "$bin" ]; then
    echo "mps: nvidia-cuda-mps-control not found: PEs sharing a GPU will be time-sliced" >&2
    return 1
  fi
  export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/mori-mps-pipe}
  export CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/tmp/mori-mps-log}
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if echo get_server_list | timeout 10 "$bin" > /dev/null 2>&1; then
    echo "mps: using the control daemon already running at $CUDA_MPS_PIPE_DIRECTORY"
    return 0
  fi
  if ! "$bin" -d; then
    echo "mps: '$bin -d' failed (see $CUDA_MPS_LOG_DIRECTORY/control.log)" >&2
    return 1
  fi
  MORI_MPS_STARTED=1
  trap mps_stop EXIT
  trap 'mps_stop; exit 130' INT TERM
  local i
  for i in $(seq 50); do
    echo get_server_list | timeout 10 "$bin" > /dev/null 2>&1 && break
    sleep 0.1
  done
  echo "mps: control daemon started (pipe $CUDA_MPS_PIPE_DIRECTORY)"
}

mps_stop() {
  [ "$MORI_MPS_STARTED" = 1 ] || return 0
  MORI_MPS_STARTED=0
  echo quit | timeout 30 "$(mps_control_bin)" > /dev/null 2>&1 || true
  echo "mps: control daemon stopped"
}
