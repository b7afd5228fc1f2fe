#!/usr/bin/env python3
"""A JAX training loop as its users write one: an MLP on random data, its whole step (loss,
gradients, SGD update) under `jax.jit`, no NVTX range anywhere. XLA runs the jitted step as CUDA
graphs. Prints a checksum of the trained weights (hex).

    jax_train.py [--steps N]
"""
import argparse

import jax
import jax.numpy as jnp


def init(key, sizes):
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        k = jax.random.fold_in(key, i)
        params.append((jax.random.normal(k, (m, n), jnp.float32) / jnp.sqrt(m),
                       jnp.zeros((n,), jnp.float32)))
    return params


def loss_fn(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jax.nn.gelu(h @ w + b)
    w, b = params[-1]
    logits = h @ w + b
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, logits.shape[-1]), -1))


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - 1e-2 * g, params, grads)
    return params, loss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    a = p.parse_args()
    key = jax.random.PRNGKey(0)
    params = init(key, [512, 2048, 2048, 10])
    x = jax.random.normal(jax.random.fold_in(key, 100), (256, 512), jnp.float32)
    y = jax.random.randint(jax.random.fold_in(key, 101), (256,), 0, 10)
    for i in range(a.steps):
        params, loss = step(params, x, y)
    loss.block_until_ready()
    total = sum(float(jnp.sum(w.astype(jnp.float64) if jax.config.jax_enable_x64 else w))
                + float(jnp.sum(b)) for w, b in params)
    print(f"loss {float(loss):.6f}")
    print(f"result: {total.hex()}", flush=True)


if __name__ == "__main__":
    main()
