#!/usr/bin/env python3
"""Exports the model set of bench/models.py to ONNX (random weights, fixed
seed; nothing is downloaded):

    export_models.py NAME OUT.onnx [--opset 17] [--seed 0] [--batch 1] [--dynamic-batch]

NAME is one of _common.MODELS: torchvision classifiers (1x3x224x224 images),
a TransformerEncoder (d_model 256, 4 heads, 4 layers, sequence 128), a GRU
and an LSTM (2 layers, 64 inputs, hidden 128, 64 steps, last step through
a Linear), and a small BERT-style encoder (token and position embeddings,
4 post-norm GELU layers of d_model 256, layer norm, a pooled Linear).
Batch-norm statistics are drawn at random so that normalisation is not an
identity; torchvision's zero-initialised ViT class token and head are drawn
too. --dynamic-batch exports the first axis of every input and output as
`batch` (torch.onnx's dynamic_axes).

Writes OUT.onnx and OUT.json: {"inputs": [[shape, dtype], ...], "weight_bytes": N,
"classifier": bool}. Runs under a Python with torch and torchvision (Debian's
CPU builds: apt-get install python3-torchvision, then /usr/bin/python3).
"""
import argparse
import json

import torch
import torchvision

from _common import MODELS, VISION_MODELS as VISION


class Recurrent(torch.nn.Module):
    """A 2-layer GRU or LSTM over 64 steps whose last step feeds a Linear."""

    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(64, 128, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(128, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Encoder(torch.nn.Module):
    """torch.nn.TransformerEncoder over (batch, 128, 256) activations."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0,
                                                 batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class BertSmall(torch.nn.Module):
    """Token ids (batch, 128) → embeddings + positions → 4 GELU encoder
    layers → layer norm → mean pool → Linear(256, 2)."""

    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(1000, 256)
        self.pos = torch.nn.Parameter(torch.randn(1, 128, 256) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.0,
                                                 activation="gelu", batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.norm = torch.nn.LayerNorm(256)
        self.head = torch.nn.Linear(256, 2)

    def forward(self, ids):
        h = self.enc(self.tok(ids) + self.pos)
        return self.head(self.norm(h).mean(dim=1))


def build(name, batch):
    """The model (eval mode) and its example inputs."""
    if name in VISION:
        model = getattr(torchvision.models, name)(weights=None)
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.1, 0.1)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.1, 0.1)
            if name.startswith("vit"):
                model.class_token.normal_(0, 0.02)
                model.heads.head.weight.normal_(0, 0.02)
        return model, (torch.randn(batch, 3, 224, 224),)
    if name == "transformer":
        return Encoder(), (torch.randn(batch, 128, 256),)
    if name in ("gru", "lstm"):
        return Recurrent(torch.nn.GRU if name == "gru" else torch.nn.LSTM), (torch.randn(batch, 64, 64),)
    if name == "bert_small":
        return BertSmall(), (torch.randint(0, 1000, (batch, 128)),)
    raise SystemExit(f"unknown model {name!r}; known: {', '.join(MODELS)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=MODELS)
    ap.add_argument("out")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--dynamic-batch", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model, inputs = build(args.name, args.batch)
    model.eval()
    names = [f"input{i}" for i in range(len(inputs))]
    dynamic = None
    if args.dynamic_batch:
        dynamic = {n: {0: "batch"} for n in names + ["output"]}
    # Not under no_grad: torch's fused encoder-layer fast path (which has no
    # ONNX export) is taken only when gradients are off.
    torch.onnx.export(model, inputs, args.out, opset_version=args.opset, input_names=names,
                      output_names=["output"], dynamic_axes=dynamic)
    weight_bytes = sum(t.numel() * t.element_size() for t in
                       list(model.parameters()) + list(model.buffers()))
    meta = {"inputs": [[list(t.shape), str(t.dtype).replace("torch.", "")] for t in inputs],
            "weight_bytes": weight_bytes, "classifier": args.name in VISION}
    with open(args.out[:-len(".onnx")] + ".json" if args.out.endswith(".onnx") else args.out + ".json", "w") as f:
        json.dump(meta, f)
    print(f"wrote {args.out} (opset {args.opset}, {weight_bytes / 2**20:.1f} MiB of weights)")


if __name__ == "__main__":
    main()
