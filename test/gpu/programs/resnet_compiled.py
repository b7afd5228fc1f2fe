#!/usr/bin/env python3
"""A compiled torchvision ResNet-18 training loop as its users write one: channels_last, bf16
autocast, SGD, torch.compile, no NVTX range anywhere. Prints every step's loss (hex).

    resnet_compiled.py [--steps N]
"""
import argparse

import torch
import torch.nn.functional as F
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torchvision.models.resnet18(num_classes=10).to(dev, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    run = torch.compile(model)
    g = torch.Generator(device=dev).manual_seed(1)
    x = torch.randn(32, 3, 96, 96, device=dev, generator=g).to(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (32,), device=dev, generator=g)
    losses = []
    for _ in range(a.steps):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(run(x).float(), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    print("result: " + " ".join(float(v).hex() for v in torch.stack(losses).tolist()), flush=True)


if __name__ == "__main__":
    main()
