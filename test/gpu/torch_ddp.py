#!/usr/bin/env python3
"""A data-parallel (DDP, NCCL) transformer training loop, one process per GPU, for the checks on
the GPU test machines:

    torchrun --nproc-per-node N torch_ddp.py STEPS

Each rank takes the GPU of its LOCAL_RANK and the same data (seeded), so every rank launches the
same kernels and the gradients' all-reduce (NCCL kernels) runs in every step. Each step is an NVTX
range "step <n>". Prints the rank's last loss, which must not change when the job is profiled.
Deterministic, so that the loss can be compared exactly: attention runs PyTorch's math backend
(the memory-efficient one's backward adds with atomics: on two H200s the unprofiled 20-step job
ended at 0.925694 in one run and 0.925695 in another) and deterministic algorithms are required.
"""
import os
import sys

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS, deterministic
import time

import torch
import torch.distributed as dist


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cuda.enable_flash_sdp(False)
    torch.backends.cuda.enable_mem_efficient_sdp(False)
    torch.backends.cuda.enable_cudnn_sdp(False)
    dev = torch.device("cuda", local)
    net = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                           dropout=0.0, batch_first=True).to(dev)
    model = torch.nn.parallel.DistributedDataParallel(net, device_ids=[local])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(8, 256, 512, device=dev)
    t0 = time.time()
    loss = None
    for n in range(steps):
        torch.cuda.nvtx.range_push(f"step {n}")
        opt.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"rank {rank} of {world}: {steps} steps in {time.time() - t0:.3f} s, "
          f"last loss {loss.item():.6f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
