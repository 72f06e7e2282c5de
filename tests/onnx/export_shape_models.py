#!/usr/bin/env python3
"""Exports the torch models whose ONNX graphs need gree's shape folding and
recurrent-op shape inference (random weights, fixed seed; nothing is
downloaded):

    export_shape_models.py NAME OUT.onnx [--opset 17] [--seed 0]

NAME is one of
  vit_tiny    torchvision's VisionTransformer class, 2 layers, small dims
              (image 32, patch 8, hidden 32, 2 heads, MLP 64, 10 classes),
              batch 2: its class token is expanded with expand(n, -1, -1)
  vit_b_16    torchvision's vit_b_16 (weights=None), batch 1, 224x224
  swin_t      torchvision's swin_t (weights=None), batch 1, 224x224: F.pad
              pads built as [n, 2] pairs, reversed and transposed
  lstm_linear a 2-layer torch.nn.LSTM (batch_first) whose last step feeds a
              Linear
  gru_squeeze a torch.nn.GRU whose final hidden state is squeezed and
              feeds a Linear, with the sequence output through a Linear
  rnn_bidir   a bidirectional tanh torch.nn.RNN feeding a Linear
  torch_pad   F.pad of an image by (1, 2, 3, 4) (constant 0.5, then
              reflect) before a softmax and a pooled Linear

Runs under a Python with torch and torchvision (Debian's CPU builds:
`apt-get install python3-torchvision`, then /usr/bin/python3).
torchvision initializes a ViT's class token and classifier head to zeros;
they are drawn at random here so that the outputs compare something.
"""
import argparse

import torch
import torchvision


class LSTMLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = torch.nn.Linear(16, 4)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class GRUSqueeze(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(8, 12)
        self.fc = torch.nn.Linear(12, 3)
        self.fy = torch.nn.Linear(12, 2)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(h.squeeze(0)), self.fy(y)


class RNNBidir(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.RNN(6, 10, bidirectional=True)
        self.fc = torch.nn.Linear(20, 5)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y), h


class TorchPad(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)

    def forward(self, x):
        y = torch.nn.functional.pad(x, (1, 2, 3, 4), value=0.5)
        y = torch.nn.functional.pad(y, (2, 1, 0, 1), mode="reflect")
        y = torch.softmax(y, dim=-1)
        return self.fc(y.mean(dim=(2, 3))), y


def build(name):
    """The model and an example input."""
    if name == "vit_tiny":
        from torchvision.models.vision_transformer import VisionTransformer

        m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                              hidden_dim=32, mlp_dim=64, num_classes=10)
        return m, torch.randn(2, 3, 32, 32)
    if name in ("vit_b_16", "swin_t"):
        return getattr(torchvision.models, name)(weights=None), torch.randn(1, 3, 224, 224)
    if name == "lstm_linear":
        return LSTMLinear(), torch.randn(3, 5, 8)
    if name == "gru_squeeze":
        return GRUSqueeze(), torch.randn(7, 2, 8)
    if name == "rnn_bidir":
        return RNNBidir(), torch.randn(4, 3, 6)
    if name == "torch_pad":
        return TorchPad(), torch.randn(2, 3, 5, 6)
    raise SystemExit(f"unknown model {name!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("out")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model, x = build(args.name)
    model.eval()
    with torch.no_grad():
        if hasattr(model, "class_token"):
            model.class_token.normal_(0, 0.5)
            model.heads.head.weight.normal_(0, 0.2)
            model.heads.head.bias.uniform_(-0.1, 0.1)
    torch.onnx.export(model, x, args.out, opset_version=args.opset, input_names=["input"])
    print(f"wrote {args.out} ({args.name}, opset {args.opset})")


if __name__ == "__main__":
    main()
