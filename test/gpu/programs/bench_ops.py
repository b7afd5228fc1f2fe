#!/usr/bin/env python3
"""A benchmark script as people write one: six operations, each warmed up, then timed 10 times
with CUDA events, no NVTX range anywhere. Prints each one's median time and a checksum.

    bench_ops.py
"""
import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    a = torch.randn(2048, 2048, device=dev)
    b = torch.randn(2048, 2048, device=dev)
    h = a.half()
    img = torch.randn(16, 64, 56, 56, device=dev)
    w = torch.randn(64, 64, 3, 3, device=dev)
    ops = {
        "matmul fp32": lambda: a @ b,
        "matmul fp16": lambda: h @ h,
        "conv2d": lambda: F.conv2d(img, w, padding=1),
        "softmax": lambda: torch.softmax(a, dim=-1),
        "layer_norm": lambda: F.layer_norm(a, (2048,)),
        "add": lambda: a + b,
    }
    check = 0.0
    for name, op in ops.items():
        for _ in range(3):
            op()
        times = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = op()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        check += float(out.double().sum())
        print(f"{name}: {sorted(times)[5]:.3f} ms")
    print(f"result: {check.hex()}", flush=True)


if __name__ == "__main__":
    main()
