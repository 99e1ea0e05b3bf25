"""vram-guard against real frameworks on a real GPU (run under LD_PRELOAD=libvramguard.so; see device-session.sh).

Checks PyTorch (default and expandable-segments allocators), a second process sharing the quota through
HCN_ALLOCATION_ID, CuPy and JAX when importable. Prints one 'ok'/'FAIL' line per check; exit 1 on any FAIL.
"""
import ctypes
import os
import subprocess
import sys

guard = ctypes.CDLL(None)
guard.hcn_vram_guard_used_bytes.restype = ctypes.c_ulonglong
guard.hcn_vram_guard_quota_bytes.restype = ctypes.c_ulonglong
used = guard.hcn_vram_guard_used_bytes
QUOTA = guard.hcn_vram_guard_quota_bytes()
fails = 0


def check(condition, what):
    global fails
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    fails += 0 if condition else 1


def holder():
    """Child: takes 60 % of the quota through PyTorch, says so, waits for a line on stdin."""
    import torch

    block = torch.empty(int(QUOTA * 0.6), dtype=torch.uint8, device="cuda")
    print("held %d" % used(), flush=True)
    sys.stdin.readline()
    del block


def torch_checks():
    import torch

    free, total = torch.cuda.mem_get_info()
    check(total == QUOTA, "torch.cuda.mem_get_info total == quota (%d)" % total)
    a = torch.empty(QUOTA // 2, dtype=torch.uint8, device="cuda")
    check(used() >= QUOTA // 2, "torch allocation of half the quota is counted (used=%d)" % used())
    try:
        torch.empty(QUOTA, dtype=torch.uint8, device="cuda")
        check(False, "torch allocation over the quota refused")
    except torch.OutOfMemoryError:
        check(True, "torch allocation over the quota refused (OutOfMemoryError)")
    a.fill_(7)
    torch.cuda.synchronize()
    check(int(a[12345].item()) == 7, "a kernel writes the guarded memory")
    del a
    torch.cuda.empty_cache()
    check(used() == 0, "empty_cache credits everything back (used=%d)" % used())

    child = subprocess.Popen([sys.executable, __file__, "hold"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline().strip()
    check(line.startswith("held"), "second process holds 60%% of the shared quota (%s)" % line)
    try:
        torch.empty(int(QUOTA * 0.6), dtype=torch.uint8, device="cuda")
        check(False, "this process is refused while the other holds the quota")
    except torch.OutOfMemoryError:
        check(True, "this process is refused while the other holds the quota")
    child.stdin.write("\n")
    child.stdin.flush()
    child.wait(timeout=60)
    b = torch.empty(int(QUOTA * 0.6), dtype=torch.uint8, device="cuda")
    check(b.numel() > 0, "after the other process exits, the same allocation succeeds")
    del b
    torch.cuda.empty_cache()


def cupy_checks():
    try:
        import cupy
    except Exception as error:  # noqa: BLE001
        print("skip CuPy (%s)" % error)
        return
    free, total = cupy.cuda.runtime.memGetInfo()
    check(total == QUOTA, "cupy memGetInfo total == quota (%d)" % total)
    pool = cupy.get_default_memory_pool()
    x = cupy.ones(QUOTA // 4 // 4, dtype=cupy.float32)
    check(used() >= QUOTA // 4, "cupy allocation counted (used=%d)" % used())
    try:
        cupy.empty(QUOTA, dtype=cupy.uint8)
        check(False, "cupy allocation over the quota refused")
    except cupy.cuda.memory.OutOfMemoryError:
        check(True, "cupy allocation over the quota refused")
    del x
    pool.free_all_blocks()


def jax_checks():
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
    except Exception as error:  # noqa: BLE001
        print("skip JAX (%s)" % error)
        return
    before = used()
    x = jnp.ones((QUOTA // 8 // 4,), dtype=jnp.float32).block_until_ready()
    check(used() - before >= QUOTA // 8, "jax allocation counted (used=%d)" % used())
    try:
        jnp.ones((QUOTA // 4,), dtype=jnp.float32).block_until_ready()
        check(False, "jax allocation over the quota refused")
    except Exception as error:  # noqa: BLE001
        check("RESOURCE_EXHAUSTED" in str(error) or "memory" in str(error).lower(), "jax allocation over the quota refused (%s)" % str(error)[:80])
    del x


if __name__ == "__main__":
    if sys.argv[1:] == ["hold"]:
        holder()
        sys.exit(0)
    what = sys.argv[1] if len(sys.argv) > 1 else "torch"
    {"torch": torch_checks, "cupy": cupy_checks, "jax": jax_checks}[what]()
    print("frameworks-check %s: %s" % (what, "FAIL" if fails else "PASS"))
    sys.exit(1 if fails else 0)
