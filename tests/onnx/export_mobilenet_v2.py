#!/usr/bin/env python3
"""Exports torchvision's MobileNetV2 (random weights, fixed seed) to ONNX.

    export_mobilenet_v2.py OUT.onnx [--opset 17] [--seed 0]

Runs under a Python with torch and torchvision installed; Debian's CPU builds
(`apt-get install python3-torchvision`, then `/usr/bin/python3`) do it without
PyPI's CUDA wheels. The graph is exported as `torch-jit-export`'s successor:
torch names it `main_graph` (torch >= 1.10) unless `--graph-name` says
otherwise. Nothing is downloaded: the weights are random.
"""
import argparse

import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model = torchvision.models.mobilenet_v2(weights=None)
    model.eval()
    # Random batch-norm statistics, so normalization is not an identity.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(model, x, args.out, opset_version=args.opset,
                      input_names=["input"], output_names=["output"])
    print(f"wrote {args.out} (opset {args.opset})")


if __name__ == "__main__":
    main()
