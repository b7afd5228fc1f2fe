#!/usr/bin/env python3
"""One PyTorch trainer for the compatibility matrix of libroofline's PyTorch hook (test/gpu/
torch_matrix.sh): each row runs this program unmodified, once plain and once under `roofline
run`, and compares what it prints. Nothing in it knows about libroofline.

    torch_matrix.py --model gpt --compile default --amp bf16 --steps 30
    torchrun --nproc-per-node 2 torch_matrix.py --dist fsdp2 --steps 20

Models: `gpt`, a small pre-norm GPT (linear input projection, causal
scaled_dot_product_attention, GELU MLP, fused AdamW); `cnn`, a small ResNet-style network
(convolutions, batch norm, SGD with momentum); `resnet18`, torchvision's ResNet-18 on 112 x 112
images (fp32 convolutions run cuDNN's TF32 tensor-core kernels by default). Every step is an NVTX range "step <n>"
(torch.cuda.nvtx), as trainers mark them. The program is deterministic (seeded data and weights,
deterministic algorithms, cuBLAS workspace pinned): it prints every step's loss as a hex float, so
two runs can be compared bit for bit.
"""
import argparse
import contextlib
import os
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic cuBLAS

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, features=64, d=256, heads=4, layers=4, classes=256, checkpoint=False):
        super().__init__()
        self.inp = nn.Linear(features, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)
        self.checkpoint = checkpoint

    def forward(self, x):
        x = self.inp(x)
        for block in self.blocks:
            if self.checkpoint:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return self.head(self.ln(x))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


class CNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32),
                                  nn.ReLU())
        self.stage1 = nn.Sequential(Residual(32), Residual(32))
        self.down = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(64), nn.ReLU())
        self.stage2 = nn.Sequential(Residual(64), Residual(64))
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(x.mean(dim=(2, 3)))


class MeanPool(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3), keepdim=True)


def data(a, rank):
    """Seeded synthetic batches on the CPU: (inputs, targets) per step."""
    g = torch.Generator().manual_seed(1234 + rank)
    n = a.steps * a.batch
    if a.model == "gpt":
        x = torch.randn(n, a.seq, 64, generator=g)
        y = torch.randint(0, 256, (n, a.seq), generator=g)
    else:
        side = 112 if a.model == "resnet18" else 64
        x = torch.randn(n, 3, side, side, generator=g)
        y = torch.randint(0, 10, (n,), generator=g)
    return torch.utils.data.TensorDataset(x, y)


def batches(a, rank):
    ds = data(a, rank)
    if a.loader == "none":
        for i in range(a.steps):
            yield ds[i * a.batch:(i + 1) * a.batch]
        return
    loader = torch.utils.data.DataLoader(
        ds, batch_size=a.batch, shuffle=False, num_workers=2, persistent_workers=True,
        multiprocessing_context=a.loader, pin_memory=True)
    yield from loader


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", choices=["gpt", "cnn", "resnet18"], default="gpt")
    p.add_argument("--size", choices=["small", "gpt2"], default="small",
                   help="gpt: small (width 256, 4 blocks) or gpt2 (GPT-2 small's 768 x 12 blocks, "
                        "12 heads; a 256-class head)")
    p.add_argument("--compile", choices=["none", "default", "max-autotune", "reduce-overhead"],
                   default="none")
    p.add_argument("--amp", choices=["none", "bf16", "fp16"], default="none")
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--loader", choices=["none", "fork", "spawn"], default="none",
                   help="a DataLoader with 2 worker processes started this way")
    p.add_argument("--checkpoint", action="store_true", help="activation checkpointing per block")
    p.add_argument("--own-profiler", action="store_true",
                   help="steps 3 to 5 under the program's own torch.profiler.profile")
    p.add_argument("--dist", choices=["none", "ddp", "fsdp2"], default="none")
    p.add_argument("--no-nvtx", action="store_true",
                   help="no NVTX range around the steps, as most programs are written")
    p.add_argument("--slow-rank", type=int, default=-1,
                   help="this rank sleeps --slow-ms before the steps --slow-steps (a straggler)")
    p.add_argument("--slow-steps", type=int, nargs="*", default=[])
    p.add_argument("--slow-ms", type=float, default=50.0)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=128)
    a = p.parse_args()

    rank, local = 0, int(os.environ.get("LOCAL_RANK", "0"))
    if a.dist != "none":
        import torch.distributed as dist
        torch.cuda.set_device(local)
        dist.init_process_group("nccl")
        rank = dist.get_rank()
    dev = torch.device("cuda", local)
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False

    shape = {"small": {}, "gpt2": {"d": 768, "heads": 12, "layers": 12}}[a.size]
    if a.model == "gpt":
        model = GPT(checkpoint=a.checkpoint, **shape)
    elif a.model == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=10)
        model.avgpool = MeanPool()  # adaptive pooling's backward is not deterministic
    else:
        model = CNN()
    model = model.to(dev)
    fmt = torch.channels_last if a.channels_last else torch.contiguous_format
    model = model.to(memory_format=fmt)
    if a.dist == "ddp":
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local])
    elif a.dist == "fsdp2":
        from torch.distributed.fsdp import fully_shard
        for block in getattr(model, "blocks", []):
            fully_shard(block)
        fully_shard(model)
    if a.model == "gpt":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=a.dist != "fsdp2")
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    run = model if a.compile == "none" else torch.compile(
        model, mode=None if a.compile == "default" else a.compile)
    amp = {"none": None, "bf16": torch.bfloat16, "fp16": torch.float16}[a.amp]
    scaler = torch.amp.GradScaler("cuda") if a.amp == "fp16" else None

    def loss_of(x, y):
        out = run(x)
        if a.model == "gpt":
            return F.cross_entropy(out.float().flatten(0, 1), y.flatten())
        return F.cross_entropy(out.float(), y)

    profiler = contextlib.nullcontext()
    losses = []
    t0 = time.perf_counter()
    steady = None  # the steps after the first 20: the loop's own speed, warm-up left out
    for n, (x, y) in enumerate(batches(a, rank)):
        if n == 20 and a.steps > 40:
            torch.cuda.synchronize()
            steady = time.perf_counter()
        if a.own_profiler and n == 3:
            profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                          torch.profiler.ProfilerActivity.CUDA])
            profiler.__enter__()
        if rank == a.slow_rank and n in a.slow_steps:
            time.sleep(a.slow_ms / 1e3)  # the host falls behind: its GPU idles, the others wait
        if not a.no_nvtx:
            torch.cuda.nvtx.range_push(f"step {n}")
        if a.compile == "reduce-overhead":
            torch.compiler.cudagraph_mark_step_begin()
        x = x.to(dev, non_blocking=True).to(memory_format=fmt) if x.dim() == 4 else x.to(dev)
        y = y.to(dev)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp or torch.float32, enabled=amp is not None):
            loss = loss_of(x, y)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        losses.append(loss.detach().clone())
        if not a.no_nvtx:
            torch.cuda.nvtx.range_pop()
        if a.own_profiler and n == 5:
            profiler.__exit__(None, None, None)
            print(f"own profiler: {len(profiler.key_averages())} operators", flush=True)
    torch.cuda.synchronize()
    if steady is not None:
        print(f"rank {rank}: steady {1e3 * (time.perf_counter() - steady) / (a.steps - 20):.3f} ms "
              f"per step over steps 20-{a.steps - 1}", flush=True)
    values = torch.stack(losses).tolist()
    print(f"rank {rank}: {len(values)} steps in {time.perf_counter() - t0:.3f} s, last loss "
          f"{values[-1]:.6f}", flush=True)
    print(f"rank {rank} losses " + " ".join(float(v).hex() for v in values), flush=True)
    if a.dist != "none":
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
