#!/usr/bin/env python3
"""Greedy decoding with a KV cache as Hugging Face users write it: a GPT-2 from a config (random
weights), model.generate, no NVTX range anywhere. Each new token is a step whose attention reads a
longer cache than the last. Prints the tokens generated.

    hf_generate.py [--tokens N]
"""
import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, default=200)
    a = p.parse_args()
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=6, n_embd=512, n_head=8, vocab_size=4096, n_positions=1024)
    model = GPT2LMHeadModel(cfg).cuda().eval()
    prompt = torch.randint(0, 4096, (4, 32), device="cuda")
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=a.tokens, min_new_tokens=a.tokens,
                             do_sample=False, pad_token_id=0)
    print("result: " + ",".join(str(t) for t in out[0, -16:].tolist()), flush=True)


if __name__ == "__main__":
    main()
