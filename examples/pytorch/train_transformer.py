#!/usr/bin/env python3
"""A small PyTorch training loop written the way real trainers are: a transformer encoder
(embedding, N encoder layers, a classifier head) trained with bf16 autocast and fused AdamW,
one NVTX range per step ("Train step <n>"), loss read back every few steps. Nothing in it knows
about libroofline:

    roofline run -o train.rfl -- python3 train_transformer.py --steps 40
    roofline report train.rfl --group-by op

--emit-nvtx wraps the loop in torch.autograd.profiler.emit_nvtx() (PyTorch's per-op NVTX
ranges, as used with Nsight tools); --step-times prints each step's time, synchronized
(torch.cuda.synchronize() before and after), for overhead measurements.
"""
import argparse
import contextlib
import time

import torch


class Classifier(torch.nn.Module):
    def __init__(self, vocab, d_model, heads, ff, layers, classes):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d_model)
        layer = torch.nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d_model, classes)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--emit-nvtx", action="store_true")
    p.add_argument("--step-times", action="store_true")
    p.add_argument("--dtype", choices=["bf16", "fp16", "fp32"], default="bf16")
    a = p.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Classifier(32000, 512, 8, 2048, a.layers, 10).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, 32000, (a.batch, a.seq), device=dev)
    labels = torch.randint(0, 10, (a.batch,), device=dev)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}[a.dtype]
    nvtx = torch.autograd.profiler.emit_nvtx() if a.emit_nvtx else contextlib.nullcontext()
    losses = []
    t0 = time.perf_counter()
    with nvtx:
        for n in range(a.steps):
            if a.step_times:
                torch.cuda.synchronize()
                ts = time.perf_counter()
            torch.cuda.nvtx.range_push(f"Train step {n}")
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
                loss = torch.nn.functional.cross_entropy(model(tokens), labels)
            loss.backward()
            opt.step()
            torch.cuda.nvtx.range_pop()
            if a.step_times:
                torch.cuda.synchronize()
                print(f"step {n} {1e3 * (time.perf_counter() - ts):.3f} ms", flush=True)
            if n % 10 == 9 or n == a.steps - 1:
                losses.append(loss.item())
    torch.cuda.synchronize()
    print(f"{a.steps} steps in {time.perf_counter() - t0:.3f} s, "
          f"last loss {losses[-1]:.6f}", flush=True)


if __name__ == "__main__":
    main()
