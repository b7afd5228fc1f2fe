#!/usr/bin/env python3
"""A PyTorch model's forward captured in a CUDA graph (torch.cuda.graph) and replayed, for
`roofline run` on an H100 80GB HBM3:

    roofline run [-m kernel] -o graph.rfl -- python3 torch_graph.py REPLAYS

Warm-up runs eagerly on a side stream (as PyTorch requires before capture), then the capture,
then REPLAYS graph replays, each in an NVTX range "replay <n>". Prints the kernels of one eager
forward for comparison (torch.profiler is not used: it would be a second CUPTI client).
"""
import sys

import torch


def main():
    replays = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    dev = torch.device("cuda")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(),
                              torch.nn.Linear(2048, 512)).to(dev)
    x = torch.randn(64, 512, device=dev)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            net(x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        y = net(x)
    for i in range(replays):
        torch.cuda.nvtx.range_push(f"replay {i}")
        graph.replay()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    with torch.no_grad():
        eager = net(x)
    torch.cuda.synchronize()
    print(f"{replays} replays; max |graph - eager| = {(y - eager).abs().max().item():.3g}")


if __name__ == "__main__":
    main()
