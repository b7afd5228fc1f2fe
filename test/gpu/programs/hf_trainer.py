#!/usr/bin/env python3
"""A Hugging Face Trainer run as its users write one: a 4-layer GPT-2 built from a config, random
token data, bf16, no NVTX range anywhere. Prints a checksum of the trained weights (hex), so two
runs can be compared bit for bit.

    hf_trainer.py [--steps N]
"""
import argparse
import tempfile

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq, vocab):
        self.x = torch.randint(0, vocab, (n, seq), generator=torch.Generator().manual_seed(1))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.x[i]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    a = p.parse_args()
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=2048, n_positions=128)
    model = GPT2LMHeadModel(cfg)
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(output_dir=out, per_device_train_batch_size=8, max_steps=a.steps,
                                 report_to=[], save_strategy="no", logging_steps=20, bf16=True,
                                 disable_tqdm=True, seed=0, full_determinism=True,
                                 dataloader_num_workers=0)
        trainer = Trainer(model=model, args=args, train_dataset=Tokens(a.steps * 8, 128, 2048))
        trainer.train()
    total = sum(p.detach().double().sum() for p in model.parameters())
    print(f"result: {float(total).hex()}", flush=True)


if __name__ == "__main__":
    main()
