#!/usr/bin/env python3
"""Anchor benchmark: the shapes of the engine's `bench model`, measured in PyTorch eager.

Runs a random-weight Qwen3 (transformers' Qwen3ForCausalLM with eager attention, or the plain-PyTorch Qwen3
below) through the same work as the Java bench and prints one JSON object with the same key names, so the two can
be put side by side (scripts/gpu/compare.py). Progress goes to stderr.

How each number is defined (as in ModelBench.java):
- matmul_peak_gflops: measured GEMM throughput, the denominator of every MFU. cuda: 8192^3 in bf16 (fp32 when
  --dtype fp32), mean of 10 after 3 warm-ups; cpu: 1024^3 in the chosen dtype, at least 5 for about seconds/2.
- Model FLOPs: 2 * matmul parameters per token for a forward pass, where matmul parameters are all parameters
  less the embedding lookup, plus the head when it is tied to the embedding (it is still a matmul); LoRA training
  counts 4x (no weight gradients), full training 6x. Attention score FLOPs are left out, as usual.
  MFU = tokens/s * FLOPs per token / peak.
- prefill_tokens_per_s: 16 x 128 random tokens, a full forward with logits for every position, one value a row read back (the wait, not a 1.2 GB copy);
  2 warm-ups, then at least 2 iterations and until seconds/2.
- decode_bN / generate_bN: b prompts of 16 tokens, 64 new tokens sampled at temperature 1 with a KV cache and no
  stop token; t1 and t64 are the fastest of three runs generating 1 and 64 tokens, after
  warm-up runs for a quarter of --seconds (at least two). generate_bN = b*64/t64 (whole
  generations, prefill included); decode_bN = b*63/(t64 - t1) (the cached steps alone).
- train_*_tokens_per_s: 16 rows of 32 prompt + 64 completion tokens (--shapes rl: 256 + 768), a PPO clipped loss over the completion,
  backward, grad clipping at 1.0 and an AdamW step; 16*96 (rl: 16*1024) tokens a step; 1 warm-up, then at least 2 steps and
  until seconds/2. LoRA: rank 8, alpha 16 on the seven projections, base frozen. Full: every parameter trains.
- peak_memory_gib: cuda max_memory_allocated; cpu the process's peak resident set.

On cpu, torch keeps its own thread count unless --threads says otherwise (device_name shows it). Where torch's
OpenMP threads and a separate BLAS thread pool (Debian's OpenBLAS) or another process share few cores, OpenMP's
spinning workers can slow the small ops of decoding several times over; compare runs made alike, on a quiet machine.

Usage: python3 scripts/gpu/anchor.py --preset 2m --device cpu --dtype fp32 --seconds 2 [--parts prefill,decode]
       python3 scripts/gpu/anchor.py --check   (built-in model against transformers' on a tiny config)
"""

import argparse
import contextlib
import gc
import json
import math
import platform
import resource
import sys
import time
from dataclasses import dataclass, replace

import torch
import torch.nn as nn


@dataclass(frozen=True)
class Config:
    vocab: int
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    tied: bool
    eps: float = 1e-6
    theta: float = 1e6


PRESETS = {
    "qwen3-0.6b": Config(151936, 1024, 3072, 28, 16, 8, 128, tied=True),
    "qwen3-1.7b": Config(151936, 2048, 6144, 28, 16, 8, 128, tied=True),
    "2m": Config(512, 192, 512, 4, 6, 2, 32, tied=False),
    "20m": Config(4096, 384, 1024, 10, 6, 2, 64, tied=False),
}
PARTS = ("prefill", "decode", "lora", "full")
# (prefill rows, decode batches, new tokens a decode, training rows, their prompt and completion tokens): "full" is the
# GPU's and the Java bench's default, "small" the same kinds of work cut for a 2-core CPU at a Qwen3 shape, "rl" the
# rows an RL update trains (16 x 1,024 tokens) (--shapes on both sides)
SHAPES = {
    "full": (16, (1, 16, 64), 64, 16, 32, 64),
    "small": (4, (1, 4, 16), 16, 4, 32, 64),
    "rl": (16, (1, 16, 64), 64, 16, 256, 768),
}
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
LORA_RANK, LORA_ALPHA = 8, 16
T0 = time.perf_counter()


def log(msg):
    print(f"[{time.perf_counter() - T0:7.1f}s] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# The built-in Qwen3: plain PyTorch, parameter names as in transformers so that its state_dict loads as is.


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        h = x.float()  # normalised in float32, as transformers does
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.q_proj = nn.Linear(c.hidden, c.heads * c.head_dim, bias=False)
        self.k_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
        self.v_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
        self.o_proj = nn.Linear(c.heads * c.head_dim, c.hidden, bias=False)
        self.q_norm = RMSNorm(c.head_dim, c.eps)  # Qwen3: per-head RMSNorm of q and k before the rotation
        self.k_norm = RMSNorm(c.head_dim, c.eps)

    def forward(self, x, cos, sin, cache):
        b, t, _ = x.shape
        hd = self.c.head_dim
        q = self.q_norm(self.q_proj(x).view(b, t, -1, hd)).transpose(1, 2)  # (b, heads, t, hd)
        k = self.k_norm(self.k_proj(x).view(b, t, -1, hd)).transpose(1, 2)
        v = self.v_proj(x).view(b, t, -1, hd).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if cache is not None:  # this layer's [k, v], grown by concatenation (as transformers' DynamicCache)
            if cache:
                k, v = torch.cat((cache[0], k), dim=2), torch.cat((cache[1], v), dim=2)
            cache[:] = [k, v]
        past = k.shape[2] - t
        rep = self.c.heads // self.c.kv_heads  # grouped-query attention: each kv head serves `rep` query heads
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        scores = (q @ k.transpose(2, 3)) * hd**-0.5
        if t > 1:
            causal = torch.ones(t, past + t, dtype=torch.bool, device=x.device).triu(past + 1)
            scores = scores.masked_fill(causal, float("-inf"))
        probs = scores.softmax(dim=-1, dtype=torch.float32).to(q.dtype)
        return self.o_proj((probs @ v).transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden, c.intermediate, bias=False)
        self.up_proj = nn.Linear(c.hidden, c.intermediate, bias=False)
        self.down_proj = nn.Linear(c.intermediate, c.hidden, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden, c.eps)
        self.post_attention_layernorm = RMSNorm(c.hidden, c.eps)

    def forward(self, x, cos, sin, cache):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class Backbone(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab, c.hidden)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c.layers))
        self.norm = RMSNorm(c.hidden, c.eps)
        inv_freq = 1.0 / (c.theta ** (torch.arange(0, c.head_dim, 2, dtype=torch.int64).float() / c.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)


class Qwen3(nn.Module):
    """forward(ids, cache, last_only) -> logits; cache: None, or one list per layer (empty at first), filled in."""

    def __init__(self, c):
        super().__init__()
        self.model = Backbone(c)
        self.lm_head = nn.Linear(c.hidden, c.vocab, bias=False)
        if c.tied:
            self.lm_head.weight = self.model.embed_tokens.weight
        for m in self.modules():  # transformers' init: normal(0, 0.02) weights, norms at 1
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def new_cache(self):
        return [[] for _ in self.model.layers]

    def forward(self, ids, cache=None, last_only=False):
        past = cache[0][0].shape[2] if cache and cache[0] else 0
        pos = torch.arange(past, past + ids.shape[1], device=ids.device).float()
        angles = pos[:, None] * self.model.inv_freq.float()[None, :]
        emb = torch.cat((angles, angles), dim=-1)  # (t, head_dim), broadcast over batch and heads
        h = self.model.embed_tokens(ids)
        cos, sin = emb.cos().to(h.dtype), emb.sin().to(h.dtype)
        for i, layer in enumerate(self.model.layers):
            h = layer(h, cos, sin, None if cache is None else cache[i])
        h = self.model.norm(h)
        return self.lm_head(h[:, -1:] if last_only else h)


@torch.no_grad()
def builtin_generate(model, prompts, new_tokens):
    """Temperature-1 sampling with a KV cache; like generate(), the head runs on the last position only."""
    cache, ids, out = model.new_cache(), prompts, [prompts]
    for _ in range(new_tokens):
        logits = model(ids, cache, last_only=True)[:, -1].float()
        ids = torch.multinomial(logits.softmax(-1), 1)
        out.append(ids)
    return torch.cat(out, dim=1)


class LoraLinear(nn.Module):
    """base(x) + B(A(x)) * alpha/r, base frozen; A and B in float32 and B at zero, as peft makes them."""

    def __init__(self, base):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, LORA_RANK, bias=False, device=base.weight.device)
        self.lora_B = nn.Linear(LORA_RANK, base.out_features, bias=False, device=base.weight.device)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = LORA_ALPHA / LORA_RANK

    def forward(self, x):
        lora = self.lora_B(self.lora_A(x.to(self.lora_A.weight.dtype))) * self.scaling
        return self.base(x) + lora.to(x.dtype)


def add_lora(model):
    for p in model.parameters():
        p.requires_grad_(False)
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if name in LORA_TARGETS and isinstance(child, nn.Linear):
                setattr(module, name, LoraLinear(child))
    return model


# ---------------------------------------------------------------------------------------------------------------
# transformers


def have_transformers():
    try:
        import transformers  # noqa: F401

        return True
    except ImportError:
        return False


def hf_model(c):
    import transformers
    from transformers import Qwen3Config, Qwen3ForCausalLM

    kw = dict(
        vocab_size=c.vocab,
        hidden_size=c.hidden,
        intermediate_size=c.intermediate,
        num_hidden_layers=c.layers,
        num_attention_heads=c.heads,
        num_key_value_heads=c.kv_heads,
        head_dim=c.head_dim,
        hidden_act="silu",
        max_position_embeddings=2048,
        initializer_range=0.02,
        rms_norm_eps=c.eps,
        tie_word_embeddings=c.tied,
        attention_bias=False,
        attention_dropout=0.0,
        use_sliding_window=False,
    )
    if int(transformers.__version__.split(".")[0]) >= 5:  # 5.x moved rope_theta into rope_parameters
        kw["rope_parameters"] = {"rope_type": "default", "rope_theta": c.theta}
    else:
        kw["rope_theta"] = c.theta
    config = Qwen3Config(**kw)
    config._attn_implementation = "eager"
    model = Qwen3ForCausalLM(config)
    if hasattr(model, "set_attn_implementation"):
        model.set_attn_implementation("eager")
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


@torch.no_grad()
def hf_generate(model, prompts, new_tokens):
    out = model.generate(
        input_ids=prompts,
        attention_mask=torch.ones_like(prompts),
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        max_new_tokens=new_tokens,
        min_new_tokens=new_tokens,
        eos_token_id=None,
        pad_token_id=0,
        use_cache=True,
    )
    assert out.shape[1] == prompts.shape[1] + new_tokens, f"generate stopped early: {tuple(out.shape)}"
    return out


# ---------------------------------------------------------------------------------------------------------------
# The benchmark


def parameter_count(c):
    attn = c.hidden * c.head_dim * (2 * c.heads + 2 * c.kv_heads) + 2 * c.head_dim
    layer = attn + 3 * c.hidden * c.intermediate + 2 * c.hidden
    return c.vocab * c.hidden * (1 if c.tied else 2) + c.layers * layer + c.hidden


def device_context(dev):
    # torch >= 2.0: make the weights on the device directly; older torch: on the cpu, moved by .to() after
    return torch.device(dev) if hasattr(torch.device, "__enter__") else contextlib.nullcontext()


class Bench:
    def __init__(self, args):
        self.args = args
        self.shapes = SHAPES[args.shapes]
        self.c = PRESETS[args.preset]
        self.dev = torch.device(args.device)
        self.dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
        self.cuda = self.dev.type == "cuda"
        self.notes = []

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def build(self):
        torch.manual_seed(0)
        with device_context(self.dev):
            model = hf_model(self.c) if self.args.impl == "transformers" else Qwen3(self.c)
        model = model.to(self.dev, self.dtype)
        n = sum(p.numel() for p in model.parameters())  # a tied head is counted once
        if n != parameter_count(self.c):
            self.note(f"the model has {n} parameters, the config counts {parameter_count(self.c)}")
        return model

    def logits(self, model, ids):
        if self.args.impl == "transformers":
            return model(input_ids=ids, use_cache=False).logits
        return model(ids)

    def generate(self, model, prompts, new_tokens):
        gen = hf_generate if self.args.impl == "transformers" else builtin_generate
        return gen(model, prompts, new_tokens)

    def ids(self, rows, cols, seed):
        g = torch.Generator().manual_seed(seed)
        return torch.randint(3, self.c.vocab, (rows, cols), generator=g).to(self.dev)

    def note(self, text):
        log("note: " + text)
        self.notes.append(text)

    def timed_loop(self, fn, warmups, min_iters):
        """Iterations per second of fn, after warm-ups, over at least min_iters and about seconds/2."""
        for _ in range(warmups):
            fn()
        self.sync()
        start, n = time.perf_counter(), 0
        while n < min_iters or time.perf_counter() - start < self.args.seconds / 2:
            fn()
            self.sync()
            n += 1
        return n / (time.perf_counter() - start)

    def seconds(self, fn):
        self.sync()
        start = time.perf_counter()
        fn()
        self.sync()
        return time.perf_counter() - start

    def matmul_peak_gflops(self):
        if self.cuda:
            n, dtype = 8192, self.dtype  # bf16, or fp32 (without TF32 unless torch is told otherwise)
            a, b = torch.randn(n, n, device=self.dev, dtype=dtype), torch.randn(n, n, device=self.dev, dtype=dtype)
            for _ in range(3):
                a @ b
            self.sync()
            start = time.perf_counter()
            for _ in range(10):
                a @ b
            self.sync()
            return 2.0 * n**3 * 10 / (time.perf_counter() - start) / 1e9
        n = 1024
        a, b = torch.randn(n, n, dtype=self.dtype), torch.randn(n, n, dtype=self.dtype)
        for _ in range(3):
            a @ b
        start, iters = time.perf_counter(), 0
        while iters < 5 or time.perf_counter() - start < self.args.seconds / 2:
            a @ b
            iters += 1
        return 2.0 * n**3 * iters / (time.perf_counter() - start) / 1e9

    @torch.no_grad()
    def prefill(self, model):
        ids = self.ids(self.shapes[0], 128, 1)
        # every position's logits computed, one value a row read back (as the engine's bench): the wait, not a copy
        rate = self.timed_loop(lambda: self.logits(model, ids)[:, -1, 0].float().cpu(), warmups=2, min_iters=2)
        return self.shapes[0] * 128 * rate

    def decode(self, model, batch):
        prompts = self.ids(batch, 16, 2)
        n = self.shapes[2]
        # warm-up runs for a quarter of --seconds (at least two), then the fastest of three runs of each, as the
        # Java bench (which needs the warm-up for its JIT)
        start, runs = time.perf_counter(), 0
        while runs < 2 or time.perf_counter() - start < self.args.seconds / 4:
            self.generate(model, prompts, n)
            runs += 1
        t1 = tn = math.inf
        for _ in range(3):  # the fastest of three runs of each
            t1 = min(t1, self.seconds(lambda: self.generate(model, prompts, 1)))
            tn = min(tn, self.seconds(lambda: self.generate(model, prompts, n)))
        return batch * (n - 1) / (tn - t1), batch * n / tn

    def train(self, model):
        rows, prompt, completion = self.shapes[3], self.shapes[4], self.shapes[5]
        length = prompt + completion
        ids = self.ids(rows, length, 3)
        advantages = torch.randn(rows, 1, generator=torch.Generator().manual_seed(3)).to(self.dev)
        old_logp = -math.log(self.c.vocab)  # the logprob of a uniform policy
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=1e-5, weight_decay=0.01)
        model.train()

        def step():
            # logits at positions prompt-1 .. length-2 predict the completion tokens prompt .. length-1
            logits = self.logits(model, ids)[:, prompt - 1 : length - 1].float()
            logp = logits.log_softmax(-1).gather(-1, ids[:, prompt:, None]).squeeze(-1)
            ratio = torch.exp(logp - old_logp)
            clipped = ratio.clamp(0.8, 1.2)
            loss = -torch.min(ratio * advantages, clipped * advantages).mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)

        rate = self.timed_loop(step, warmups=1, min_iters=2)
        del opt
        return rows * length * rate

    def lora_model(self):
        model = self.build()
        if self.args.impl == "transformers":
            try:
                import peft
                from peft import LoraConfig, get_peft_model
            except ImportError:
                self.note("peft is not importable: LoRA by the built-in wrapper on the transformers model")
            else:
                cfg = LoraConfig(
                    r=LORA_RANK,
                    lora_alpha=LORA_ALPHA,
                    lora_dropout=0.0,
                    target_modules=list(LORA_TARGETS),
                    task_type="CAUSAL_LM",
                )
                self.note(f"LoRA by peft {peft.__version__}")
                return get_peft_model(model, cfg)
        return add_lora(model)

    def free(self):
        gc.collect()
        if self.cuda:
            torch.cuda.empty_cache()

    def run(self):
        a, c = self.args, self.c
        out = {}
        if a.impl == "transformers":
            import transformers

            out["impl"] = f"transformers {transformers.__version__} eager"
        else:
            out["impl"] = "torch (built-in Qwen3)"
        out["torch_version"] = torch.__version__
        out["device_name"] = device_name(self.dev)
        out.update(dtype=a.dtype, preset=a.preset, parameters=parameter_count(c), layers=c.layers, hidden=c.hidden)
        matmul_params = out["parameters"] - c.vocab * c.hidden + (c.vocab * c.hidden if c.tied else 0)
        fwd_flops = 2.0 * matmul_params

        log("matmul peak")
        peak = self.matmul_peak_gflops()
        out["matmul_peak_gflops"] = rnd(peak)
        log(f"matmul peak {peak:.1f} GFLOP/s")
        if self.cuda and self.dtype == torch.float32:
            tf32 = torch.backends.cuda.matmul.allow_tf32
            self.note(f"fp32 on cuda: torch.backends.cuda.matmul.allow_tf32 = {tf32}")
        if self.dtype == torch.bfloat16 and {"lora", "full"} & set(a.parts):
            self.note(
                "bf16: weights in bf16; full training runs AdamW on the bf16 parameters (no float32 master copy);"
                " LoRA adapters are float32, as peft makes them"
            )

        def mfu(tokens_per_s, multiple=1):  # 4 decimals: cpu and small-batch MFUs are small
            return round(tokens_per_s * multiple * fwd_flops / (peak * 1e9), 4)

        def attempt(what, fn):
            t = time.perf_counter()
            log(f"{what} ...")
            try:
                result = fn()
                shown = "" if isinstance(result, nn.Module) else f" {result}"
                log(f"{what}:{shown} ({time.perf_counter() - t:.1f}s)")
                return result
            except (RuntimeError, MemoryError, AssertionError) as e:  # torch.cuda.OutOfMemoryError included
                self.note(f"{what} skipped: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            self.free()  # out of the except block, so that the traceback no longer holds the part's tensors
            return None

        if "prefill" in a.parts or "decode" in a.parts:
            model = attempt("build", self.build)
            if model is not None:
                model.eval()
                if "prefill" in a.parts:
                    r = attempt("prefill", lambda: self.prefill(model))
                    if r is not None:
                        out["prefill_tokens_per_s"], out["prefill_mfu"] = rnd(r), mfu(r)
                if "decode" in a.parts:
                    for b in self.shapes[1]:
                        r = attempt(f"decode b{b}", lambda: self.decode(model, b))
                        if r is not None:
                            out[f"decode_b{b}_tokens_per_s"], out[f"decode_b{b}_mfu"] = rnd(r[0]), mfu(r[0])
                            out[f"generate_b{b}_tokens_per_s"] = rnd(r[1])
            del model
            self.free()
        for part, multiple, make in (("lora", 2, self.lora_model), ("full", 3, self.build)):
            if part in a.parts:
                model = attempt(f"build ({part})", make)
                if model is not None:
                    r = attempt(f"train {part}", lambda: self.train(model))
                    if r is not None:
                        out[f"train_{part}_tokens_per_s"], out[f"train_{part}_mfu"] = rnd(r), mfu(r, multiple)
                del model
                self.free()

        if any(k.endswith("_mfu") and v > 1 for k, v in out.items()):
            self.note("an MFU above 1: the measured matmul peak is below what the model's own matmuls reached")
        if self.cuda:
            out["peak_memory_gib"] = rnd(torch.cuda.max_memory_allocated() / 2**30)
        else:  # ru_maxrss is in KiB on Linux
            out["peak_memory_gib"] = rnd(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
        out["notes"] = self.notes
        return out


def device_name(dev):
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            name = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    n = torch.get_num_threads()
    return f"{name}, {n} torch thread{'' if n == 1 else 's'}"


def rnd(v):
    return round(v, 3)


# ---------------------------------------------------------------------------------------------------------------
# --check


def self_check():
    """The built-in model's KV cache and LoRA wrapper against itself; against transformers when it imports."""
    base = Config(vocab=256, hidden=64, intermediate=128, layers=2, heads=4, kv_heads=2, head_dim=16, tied=True)
    ids = torch.randint(3, base.vocab, (2, 12), generator=torch.Generator().manual_seed(0))
    ok = True

    def report(what, diff, limit=1e-4):
        nonlocal ok
        ok &= diff < limit
        print(f"{what}: max |logit diff| = {diff:.3e} ({'ok' if diff < limit else 'FAIL'}, limit {limit:g})")

    for tied in (True, False):
        c = replace(base, tied=tied)
        torch.manual_seed(0)
        ours = Qwen3(c).eval()
        with torch.no_grad():
            full = ours(ids)
            cache = ours.new_cache()
            steps = [ours(ids[:, :8], cache)] + [ours(ids[:, i : i + 1], cache) for i in range(8, 12)]
            report(f"tied={tied} built-in, KV cache vs full forward", (torch.cat(steps, 1) - full).abs().max().item())
            report(f"tied={tied} built-in, LoRA at B=0 vs none", (add_lora(ours)(ids) - full).abs().max().item())
        if not have_transformers():
            print("transformers is not importable: the comparison with it is skipped")
            continue
        import transformers

        torch.manual_seed(0)
        hf = hf_model(c).eval()
        print(f"transformers {transformers.__version__}, attention {hf.config._attn_implementation}")
        theirs_n, ours_n = sum(p.numel() for p in hf.parameters()), parameter_count(c)
        print(f"tied={tied} parameters: transformers {theirs_n}, built-in {ours_n}")
        ok &= theirs_n == ours_n
        torch.manual_seed(1)
        ours = Qwen3(c).eval()
        result = ours.load_state_dict(hf.state_dict(), strict=False)
        missing = [k for k in result.missing_keys if not (tied and k == "lm_head.weight")]  # tied: the embedding
        unexpected = [k for k in result.unexpected_keys if "rotary" not in k]
        if missing or unexpected:
            print(f"state_dict: missing {missing}, unexpected {unexpected}")
            ok = False
        with torch.no_grad():
            theirs = hf(input_ids=ids, use_cache=False).logits
            report(f"tied={tied} built-in vs transformers, fp32", (ours(ids) - theirs).abs().max().item())
    print("check " + ("passed" if ok else "FAILED"))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", choices=sorted(PRESETS), default="2m")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32")
    p.add_argument("--seconds", type=float, default=4)
    p.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ",".join(PARTS))
    p.add_argument("--shapes", choices=sorted(SHAPES), default="full", help="full (default), small (a 2-core CPU) or rl (16 x 1,024-token training rows)")
    p.add_argument("--impl", choices=("auto", "transformers", "torch"), default="auto")
    p.add_argument("--threads", type=int, default=0, help="torch intra-op threads on cpu (default: torch's own)")
    p.add_argument("--check", action="store_true", help="check the built-in model (and against transformers)")
    args = p.parse_args()
    if args.check:
        sys.exit(0 if self_check() else 1)
    args.parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        p.error(f"unknown parts {sorted(unknown)}; parts: {','.join(PARTS)}")
    if args.impl == "auto":
        args.impl = "transformers" if have_transformers() else "torch"
    elif args.impl == "transformers" and not have_transformers():
        p.error("--impl transformers: transformers is not importable")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch sees no cuda device")
    if args.device == "cpu" and args.threads > 0:
        torch.set_num_threads(args.threads)
    log(f"{args.preset} on {args.device} {args.dtype}, impl {args.impl}, parts {','.join(args.parts)}")
    print(json.dumps(Bench(args).run(), indent=2), flush=True)
    log("done")


if __name__ == "__main__":
    main()
