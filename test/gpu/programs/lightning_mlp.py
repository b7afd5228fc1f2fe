#!/usr/bin/env python3
"""A Lightning Trainer run as its users write one: an MLP on random data, bf16-mixed, no NVTX range
anywhere. Prints a checksum of the trained weights (hex).

    lightning_mlp.py [--steps N]
"""
import argparse

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                                 nn.Linear(2048, 10))

    def training_step(self, batch, i):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=100)
    a = p.parse_args()
    L.seed_everything(0, verbose=False)
    torch.use_deterministic_algorithms(True)
    g = torch.Generator().manual_seed(1)
    data = torch.utils.data.TensorDataset(torch.randn(a.steps * 64, 512, generator=g),
                                          torch.randint(0, 10, (a.steps * 64,), generator=g))
    model = MLP()
    trainer = L.Trainer(max_steps=a.steps, accelerator="gpu", devices=1, precision="bf16-mixed",
                        logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    trainer.fit(model, torch.utils.data.DataLoader(data, batch_size=64))
    total = sum(p.detach().double().sum() for p in model.parameters())
    print(f"result: {float(total).hex()}", flush=True)


if __name__ == "__main__":
    main()
