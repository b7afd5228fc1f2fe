#!/usr/bin/env python3
"""What a program pays for libroofline once its profile is complete.

    idle_cost.py ROOFLINE_CLI [--rounds 6] [--steps 250] [--from 60] [--out DIR]
    idle_cost.py --in-process SHIM.so [--rounds 6] [--steps 250]

A launch-bound PyTorch training loop (a small transformer layer, AdamW without fused or foreach
kernels: about 400 launches a step, each step synchronized by loss.item()) runs alternately
without libroofline and unmodified under `roofline run`, --rounds times each. Every step is timed
on the host; the steps from --from on (the profile completes well before: the run's log says
after how many) are compared by their median, round by round. Alternating rounds and medians,
because PyTorch step times on a shared machine drift by 10-30% between runs minutes apart.

Prints each round's medians and the profiled/plain ratio, then the median ratio over the rounds:
the cost per step that stays once the profile is complete. Needs a GPU, PyTorch and the CLI.

--in-process SHIM.so (build/test/libroofline_pyshim.so): one process alternates blocks of --steps
steps without a session and blocks with one (started through the shim, 60 steps to complete the
profile, then --steps idle ones, then stopped), comparing each block's idle steps with the plain block before it: no
run-to-run drift between the two, and every session after the first attaches CUPTI again after
the last one detached it. torch is imported before the shim loads libroofline: the other way
round, `import torch` aborted on the H100 machine (free(): invalid pointer in a std::locale
destructor resolved into libroofline.so), before any session existed.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def child(steps):
    step = step_loop()
    times = [step() for _ in range(steps)]
    print("STEP_MS " + json.dumps(times), flush=True)


def step_loop():
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                             dropout=0.0, batch_first=True).cuda()
    head = torch.nn.Linear(256, 256).cuda()
    params = list(layer.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=1e-4, foreach=False, fused=False)
    x = torch.randn(4, 64, 256, device="cuda")
    n = [0]

    def step():
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push(f"step {n[0]}")
        opt.zero_grad(set_to_none=True)
        loss = head(layer(x)).square().mean()
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
        loss.item()  # the step ends when the GPU did its work
        n[0] += 1
        return 1e3 * (time.perf_counter() - t0)
    return step


def in_process(shim_path, rounds, steps, start):
    import ctypes

    import torch  # before libroofline: loaded first, it makes torch's import abort (see below)
    shim = ctypes.CDLL(shim_path)
    step = step_loop()
    for _ in range(20):  # warm-up: lazy loading, allocator
        step()
    ratios = []
    print(f"{'round':>5} {'plain ms':>9} {'idle ms':>9} {'ratio':>8}  steps before idle ones")
    for r in range(rounds):
        plain = [step() for _ in range(steps)]
        if shim.rl_start() != 0:
            sys.exit("idle_cost: rl_start failed")
        # Steps until well past completion (the run's log says when: idle after N iterations).
        # needsPass() is not asked: a program that drives the replay decides itself when it is
        # done, and the session then never goes idle.
        profiled = 60
        for _ in range(profiled):
            step()
        idle = [step() for _ in range(steps)]
        shim.rl_stop(b"")
        p, q = statistics.median(plain[start:]), statistics.median(idle[start:])
        ratios.append(q / p)
        print(f"{r:>5} {p:>9.3f} {q:>9.3f} {q / p:>8.4f}  {profiled}", flush=True)
    m = statistics.median(ratios)
    print(f"idle_cost: in one process, an idle session's step takes {100 * (m - 1):+.2f}% "
          f"(median of {len(ratios)} rounds; rounds {min(ratios):.4f}..{max(ratios):.4f})")


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"idle_cost: {' '.join(cmd[:4])}... failed ({p.returncode}):\n{p.stderr[-2000:]}")
    line = next(l for l in p.stdout.splitlines() if l.startswith("STEP_MS "))
    idle = re.search(r"idle after (\d+) iterations", p.stderr)
    return json.loads(line[len("STEP_MS "):]), int(idle.group(1)) if idle else None


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]))
        return 0
    if len(sys.argv) > 2 and sys.argv[1] == "--in-process":
        ap = argparse.ArgumentParser()
        ap.add_argument("--in-process", dest="shim")
        ap.add_argument("--rounds", type=int, default=6)
        ap.add_argument("--steps", type=int, default=250)
        ap.add_argument("--from", dest="start", type=int, default=20)
        a = ap.parse_args()
        in_process(a.shim, a.rounds, a.steps, a.start)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--from", dest="start", type=int, default=60)
    ap.add_argument("--out", default=tempfile.gettempdir())
    a = ap.parse_args()
    env = dict(os.environ, ROOFLINE_LOG_LEVEL="info")
    me = [sys.executable, os.path.abspath(__file__), "--child", str(a.steps)]
    ratios = []
    print(f"{'round':>5} {'plain ms':>9} {'profiled ms':>12} {'ratio':>8}  complete after")
    for r in range(a.rounds):
        plain, _ = run(me, env)
        rec = os.path.join(a.out, f"idle_cost_{os.getpid()}_{r}.rfl")
        profiled, idle = run([a.cli, "run", "-o", rec, "--"] + me, env)
        p = statistics.median(plain[a.start:])
        q = statistics.median(profiled[a.start:])
        ratios.append(q / p)
        print(f"{r:>5} {p:>9.3f} {q:>12.3f} {q / p:>8.4f}  "
              f"{idle if idle is not None else 'never'} iterations")
        if idle is None or idle >= a.start:
            print(f"idle_cost: round {r}: the profile did not complete before step {a.start}")
    m = statistics.median(ratios)
    print(f"idle_cost: after completion a step takes {100 * (m - 1):+.2f}% "
          f"(median of {len(ratios)} rounds; rounds {min(ratios):.4f}..{max(ratios):.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
