#!/usr/bin/env bash
# Run the vram-guard checks against a REAL GPU (libcuda via Python ctypes)
# with the guard preloaded.  Needs an NVIDIA GPU + driver; NOT run in CI /
# on the build machine (no GPU there).  Usage: scripts/real-gpu-check.sh
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
make -C "$here" libvramguard.so >/dev/null
export LD_PRELOAD="$here/libvramguard.so"
export HCN_VRAM_QUOTA_BYTES="${HCN_VRAM_QUOTA_BYTES:-256Mi}"
export HCN_ALLOCATION_ID="${HCN_ALLOCATION_ID:-real-gpu-check-$$}"
python3 - <<'PY'
import ctypes, os, sys
cuda = ctypes.CDLL("libcuda.so.1")
guard = ctypes.CDLL(None)
used = guard.hcn_vram_guard_used_bytes; used.restype = ctypes.c_ulonglong
guard.hcn_vram_guard_quota_bytes.restype = ctypes.c_ulonglong
guard.hcn_vram_guard_shm_name.restype = ctypes.c_char_p
quota = guard.hcn_vram_guard_quota_bytes()
fails = 0
def check(c, what):
    global fails
    print(("ok   " if c else "FAIL ") + what); fails += (not c)
assert cuda.cuInit(0) == 0
dev = ctypes.c_int(); ctx = ctypes.c_void_p()
cuda.cuDeviceGet(ctypes.byref(dev), 0)
assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cuda.cuCtxSetCurrent(ctx) == 0
alloc, free = cuda.cuMemAlloc_v2, cuda.cuMemFree_v2        # dlsym path
alloc.argtypes = [ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_size_t]
free.argtypes = [ctypes.c_ulonglong]
p = ctypes.c_ulonglong()
check(alloc(ctypes.byref(p), quota + 1) == 2, "alloc over quota -> CUDA_ERROR_OUT_OF_MEMORY")
check(alloc(ctypes.byref(p), quota // 2) == 0 and used() == quota // 2, "alloc half quota accounted")
check(free(p) == 0 and used() == 0, "free credited")
f = ctypes.c_size_t(); t = ctypes.c_size_t()
cuda.cuMemGetInfo_v2(ctypes.byref(f), ctypes.byref(t))
check(t.value == quota and f.value <= quota, "cuMemGetInfo_v2 clamped (total=%d free=%d)" % (t.value, f.value))
pfn = ctypes.c_void_p()
gpa = cuda.cuGetProcAddress_v2 if hasattr(cuda, "cuGetProcAddress_v2") else None
if gpa:
    gpa.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_ulonglong, ctypes.c_void_p]
    check(gpa(b"cuMemAlloc", ctypes.byref(pfn), 12000, 0, None) == 0, "cuGetProcAddress_v2(cuMemAlloc)")
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_size_t)(pfn.value)
    check(fn(ctypes.byref(p), quota + 1) == 2, "proc-address pointer enforces quota")
try:
    nvml = ctypes.CDLL("libnvidia-ml.so.1"); nvml.nvmlInit_v2()
    h = ctypes.c_void_p(); nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h))
    mem = (ctypes.c_ulonglong * 3)()
    check(nvml.nvmlDeviceGetMemoryInfo(h, mem) == 0 and mem[0] == quota, "nvmlDeviceGetMemoryInfo clamped")
    class MemV2(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint), ("total", ctypes.c_ulonglong), ("reserved", ctypes.c_ulonglong),
                    ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]
    m2 = MemV2(version=ctypes.sizeof(MemV2) | (2 << 24))
    ok = nvml.nvmlDeviceGetMemoryInfo_v2(h, ctypes.byref(m2)) == 0
    check(ok and m2.total == quota and m2.reserved + m2.used + m2.free == quota,
          "nvmlDeviceGetMemoryInfo_v2 clamped (total=%d reserved=%d used=%d free=%d)" % (m2.total, m2.reserved, m2.used, m2.free))
except OSError:
    print("skip NVML (libnvidia-ml not found)")
name = guard.hcn_vram_guard_shm_name()
if name: ctypes.CDLL("librt.so.1").shm_unlink(name)
print("real-gpu-check: %s" % ("FAIL" if fails else "PASS")); sys.exit(1 if fails else 0)
PY
