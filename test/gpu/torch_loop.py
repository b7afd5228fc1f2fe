#!/usr/bin/env python3
"""PyTorch training loops under libroofline, for the checks on an H100 80GB HBM3.

    torch_loop.py SHIM.so conv|transformer|graphed STEPS

SHIM.so is build/test/libroofline_pyshim.so (test/gpu/python_shim.cpp). Each step is an NVTX
range "step <n>" (torch.cuda.nvtx) holding zero_grad, forward, backward and AdamW; PyTorch runs
backward on its autograd thread, outside the main thread's range unless
ROOFLINE_PUSH_POP_SCOPE=process. AdamW creates its state on the first step, so step 0 launches
kernels the later steps do not. `graphed` is the transformer block as a graphed callable
(torch.cuda.make_graphed_callables: its forward and backward are CUDA graph launches) with
fused AdamW, as graph-captured training runs. RL=0 runs the loop without libroofline (for the cost baseline);
RL_OUT names the recording to save; RL_STEP_TIMES=1 prints the host's time in each step range.
"""
import ctypes
import os
import sys
import time

import torch


def build(model, dev):
    torch.manual_seed(0)
    if model == "conv":
        net = torch.nn.Sequential(
            torch.nn.Conv2d(3, 64, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(dev)
        x = torch.randn(32, 3, 64, 64, device=dev)
        y = torch.randint(0, 10, (32,), device=dev)
        return net, lambda: torch.nn.functional.cross_entropy(net(x), y)
    # No dropout: its work depends on each step's random mask, so the FLOPs of the steps ncu and
    # libroofline measure would differ (2 of 75 launches did, with equal totals, on 2026-11-23).
    net = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                           dropout=0.0, batch_first=True).to(dev)
    x = torch.randn(8, 256, 512, device=dev)
    if model == "graphed":  # warm-up on a side stream and capture happen here, before step 0
        net = torch.cuda.make_graphed_callables(net, (x,))
    return net, lambda: net(x).square().mean()


def main():
    shim_path, model, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    profile = os.environ.get("RL", "1") == "1"
    shim = ctypes.CDLL(shim_path) if profile else None
    net, loss_fn = build(model, "cuda")
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, fused=model == "graphed")
    if profile and shim.rl_start() != 0:
        sys.exit("rl_start failed")
    t0 = time.time()
    n, losses = 0, []
    step_times = os.environ.get("RL_STEP_TIMES") == "1"
    while True:
        ts = time.perf_counter()
        torch.cuda.nvtx.range_push(f"step {n}")
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
        if step_times:  # the host's time in the step range, as libroofline's table measures it
            print(f"step {n} {1e3 * (time.perf_counter() - ts):.3f} ms")
        losses.append(loss.item())
        n += 1
        if n >= steps and not (profile and shim.rl_needs_pass()):
            break
        if n >= 500:
            break
    torch.cuda.synchronize()
    print(f"{model}: {n} steps in {time.time() - t0:.3f} s, last loss {losses[-1]:.6f}")
    if profile:
        shim.rl_stop(os.environ.get("RL_OUT", "").encode())


if __name__ == "__main__":
    main()
