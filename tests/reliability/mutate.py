"""Deterministic mutations of the suite's inputs: the same (seed, index)
always gives the same bytes, so the driver can save what crashed a worker
and anyone can reproduce it with --seed.

Three families: generic byte mutations (flips, interesting values written
over 1-8 byte fields, record copies, splices from another input,
truncations, deletions, insertions); section-targeted ones for module
executables (the llvm-cpu ELF's headers, dynamic segment and tables, or a
vmvx kernel body, with the executable's CRC-32 recomputed so the damage
reaches the loader or the bytecode verifier instead of stopping at the
checksum); and token-level ones for MLIR text (numbers, types, dims,
op names, lines)."""

import random
import re
import struct
import zlib

INTERESTING = [0, 1, 0xFF, 0x7F, 0x80, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 1 << 32, (1 << 64) - 1, 1 << 40,
               (1 << 63) - 1, 1 << 63, 1 << 30, 0x10000, 64, 4096]


def rng_for(seed, kind, index):
    """The random source of one input: a function of the run's seed, the
    input's family and its index, nothing else."""
    return random.Random(f"{seed}:{kind}:{index}")


def _byte(r, old):
    k = r.randrange(4)
    if k == 0:
        return old ^ (1 << r.randrange(8))
    if k == 1:
        return r.choice([0, 0xFF, 0x7F, 0x80, 1])
    return r.randrange(256)


def _at(r, n, hot):
    """A position: mostly inside one of the hot ranges, when given."""
    if hot and r.randrange(5):
        lo, hi = r.choice(hot)
        return lo + r.randrange(max(hi - lo, 1))
    return r.randrange(max(n, 1))


def mutate_bytes(r, data, donors=(), hot=None, keep_length=False):
    """One to a few generic mutations of data; with keep_length, only those
    that keep its length (checksummed bodies whose length is recorded)."""
    b = bytearray(data)
    if not b:
        return bytes([r.randrange(256)])
    for _ in range(1 + (r.randrange(4) == 0) * r.randrange(1, 4)):
        k = r.randrange(6 if keep_length else 10)
        if k < 2:
            i = _at(r, len(b), hot)
            b[i] = _byte(r, b[i])
        elif k < 4:
            width = r.choice([1, 2, 4, 8])
            i = min(_at(r, len(b), hot), max(len(b) - width, 0))
            v = r.choice(INTERESTING + [r.getrandbits(64)])
            b[i:i + width] = (v & ((1 << (8 * width)) - 1)).to_bytes(width, "little")[:len(b) - i]
        elif k < 5:
            n = r.choice([8, 16, 24, 56])
            src, dst = _at(r, len(b), hot), _at(r, len(b), hot)
            if src + n <= len(b) and dst + n <= len(b):
                b[dst:dst + n] = b[src:src + n]
            else:
                b[dst] = _byte(r, b[dst])
        elif k < 6:
            for _ in range(2 + r.randrange(8)):
                i = _at(r, len(b), hot)
                b[i] = _byte(r, b[i])
        elif k < 7:
            del b[r.randrange(len(b)):]
            if not b:
                return b""
        elif k < 8 and donors:
            d = r.choice(donors)
            i, j = r.randrange(len(b)), r.randrange(len(d))
            b[i:] = d[j:j + r.randrange(1, 4096)] + b[i + r.randrange(64):]
        elif k < 9:
            i = r.randrange(len(b))
            del b[i:i + r.choice([1, 4, 8, 64, 512])]
        else:
            i = r.randrange(len(b) + 1)
            b[i:i] = bytes(r.randrange(256) for _ in range(r.choice([1, 4, 8, 33])))
        if not b:
            return b""
    return bytes(b)


def executables(vmfb):
    """(kind, header offset, body offset, body length) of each llvm-cpu
    ("GLLC") or vmvx ("GVMX") executable found in a module's bytes."""
    out = []
    for magic in (b"GLLC", b"GVMX"):
        at = vmfb.find(magic)
        while at >= 0:
            if at + 16 <= len(vmfb):
                n = struct.unpack_from("<I", vmfb, at + 8)[0]
                if at + 16 + n <= len(vmfb) and zlib.crc32(vmfb[at + 16:at + 16 + n]) == struct.unpack_from(
                        "<I", vmfb, at + 12)[0]:
                    out.append((magic.decode(), at, at + 16, n))
            at = vmfb.find(magic, at + 4)
    return out


def elf_hot_ranges(obj):
    """The byte ranges of an ELF64 object its loader interprets: the ELF and
    program headers, non-executable loaded segments (tables, dynamic
    section, relocations) and the section headers; the code itself is left
    alone (running changed code is outside what a loader can check)."""
    if len(obj) < 64 or obj[:4] != b"\x7fELF":
        return [(0, len(obj))]
    phoff, shoff = struct.unpack_from("<QQ", obj, 32)
    phnum = struct.unpack_from("<H", obj, 56)[0]
    hot = [(0, 64), (phoff, phoff + 56 * phnum)]
    for i in range(phnum):
        off = phoff + 56 * i
        if off + 56 > len(obj):
            break
        ptype, flags, p_off, _, _, filesz = struct.unpack_from("<IIQQQQ", obj, off)
        if ptype in (1, 2) and not flags & 1:  # PT_LOAD without PF_X, PT_DYNAMIC
            hot.append((p_off, min(p_off + filesz, len(obj))))
    if shoff < len(obj):
        hot.append((shoff, len(obj)))
    return [(lo, hi) for lo, hi in hot if 0 <= lo < hi <= len(obj)]


def mutate_vmfb(r, vmfb, donors=()):
    """A mutated module and a tag: "native" when the llvm-cpu ELF was
    changed (the checksum fixed), "kernel" for a vmvx kernel body (checksum
    fixed), "bytes" for generic damage anywhere (metadata, host bytecode,
    constants, executables whose checksum then fails)."""
    exes = executables(vmfb)
    if exes and r.randrange(2):
        kind, head, body, n = r.choice(exes)
        blob = bytearray(vmfb[body:body + n])
        if kind == "GLLC":
            e = blob.find(b"\x7fELF")
            obj = bytes(blob[e:])
            new = mutate_bytes(r, obj, hot=elf_hot_ranges(obj), keep_length=True)
            blob[e:] = new
            tag = "native"
        else:
            blob = bytearray(mutate_bytes(r, bytes(blob), keep_length=True))
            tag = "kernel"
        out = bytearray(vmfb)
        out[body:body + n] = blob
        struct.pack_into("<I", out, head + 12, zlib.crc32(bytes(blob)))
        return bytes(out), tag
    # Mostly length-keeping (a length change stops at the header's total
    # length), sometimes with that length fixed up to reach what follows.
    keep = r.randrange(10) < 7
    out = bytearray(mutate_bytes(r, vmfb, donors, keep_length=keep))
    if not keep and len(out) >= 56 and r.randrange(2):
        struct.pack_into("<Q", out, 48, len(out))
    return bytes(out), "bytes"


_NUM = re.compile(rb"(?<![A-Za-z_%@#])-?\d+(\.\d+)?(e[+-]?\d+)?")
_TYPES = [b"f32", b"f16", b"bf16", b"f64", b"i1", b"i8", b"i32", b"i64", b"index", b"complex<f32>", b"f8E4M3FN"]
_DIMS = [b"0", b"1", b"?", b"1099511627776", b"9223372036854775807", b"4294967296", b"-1", b"65536"]
_WORDS = [b"tensor", b"linalg.generic", b"arith.addf", b"tensor.empty", b"return", b"func.func", b"{", b"}",
          b"(", b")", b"<", b">", b"[", b"]", b":", b",", b"->", b"=", b"%0", b"%arg0", b"#map", b"affine_map<(d0) -> (d0)>",
          b"dense<1.0>", b"dense<[]>", b"x", b"?x", b"\"", b"^bb0", b"loc(", b"stablehlo.add", b"tosa.add"]


def mutate_text(r, src, donors=()):
    """Token-level damage to MLIR text: a number, element type or dimension
    replaced, a word inserted, a line deleted, duplicated or swapped in from
    another program; sometimes generic byte damage too."""
    b = src
    for _ in range(1 + (r.randrange(3) == 0) * r.randrange(1, 4)):
        k = r.randrange(9)
        if k < 2:
            nums = list(_NUM.finditer(b))
            if nums:
                m = r.choice(nums)
                b = b[:m.start()] + r.choice(_DIMS + [str(r.getrandbits(r.choice([3, 16, 40, 64]))).encode()]) + b[m.end():]
        elif k < 3:
            hits = [m for t in _TYPES for m in re.finditer(re.escape(t), b)]
            if hits:
                m = r.choice(hits)
                b = b[:m.start()] + r.choice(_TYPES) + b[m.end():]
        elif k < 4:
            hits = list(re.finditer(rb"(\d+|\?)x", b))
            if hits:
                m = r.choice(hits)
                b = b[:m.start()] + r.choice(_DIMS) + b"x" + b[m.end():]
        elif k < 5:
            i = r.randrange(len(b) + 1)
            b = b[:i] + r.choice(_WORDS) + b[i:]
        elif k < 7:
            lines = b.split(b"\n")
            i = r.randrange(len(lines))
            op = r.randrange(3)
            if op == 0:
                del lines[i]
            elif op == 1:
                lines.insert(i, lines[r.randrange(len(lines))])
            elif donors:
                d = r.choice(donors).split(b"\n")
                lines.insert(i, r.choice(d))
            b = b"\n".join(lines)
        else:
            b = mutate_bytes(r, b, donors)
        if not b:
            break
    return b


_ONNX_OPS = ["Relu", "Add", "MatMul", "Gemm", "Conv", "Reshape", "Softmax", "ReduceSum", "Gather", "Slice",
             "Concat", "Transpose", "MaxPool", "Clip", "Expand", "Tile", "Resize", "Pad", "NonZero", "TopK",
             "Unknown", "Loop", "If", "Einsum", "ConstantOfShape", "Range", "Split", "Squeeze", "Cast"]
_ONNX_INTS = [0, 1, -1, 2, 3, -2, 1 << 20, 1 << 40, (1 << 63) - 1, -(1 << 63)]


def mutate_onnx(r, data, donors=()):
    """A damaged ONNX model: half the time a structural change made through
    the onnx package (a dimension, an attribute, an op type, an element type,
    an initializer's dims or data, a node dropped or copied, a name changed,
    the opset) re-serialized, else generic byte damage to the protobuf."""
    if r.randrange(2):
        return mutate_bytes(r, data, donors)
    try:
        import onnx
    except ImportError:
        return mutate_bytes(r, data, donors)
    m = onnx.ModelProto()
    m.ParseFromString(data)
    g = m.graph
    for _ in range(1 + (r.randrange(3) == 0)):
        k = r.randrange(10)
        vis = list(g.input) + list(g.output)
        if k == 0 and vis:
            dims = r.choice(vis).type.tensor_type.shape.dim
            if len(dims):
                d = r.choice(dims)
                if r.randrange(4):
                    d.dim_value = r.choice(_ONNX_INTS[:7] + [1 << 40])
                else:
                    d.dim_param = "n"
        elif k == 1 and g.node:
            n = r.choice(g.node)
            if n.attribute:
                a = r.choice(n.attribute)
                if a.ints:
                    a.ints[r.randrange(len(a.ints))] = r.choice(_ONNX_INTS)
                elif a.type == onnx.AttributeProto.INT:
                    a.i = r.choice(_ONNX_INTS)
                elif a.type == onnx.AttributeProto.FLOAT:
                    a.f = r.choice([0.0, -1.0, float("nan"), float("inf"), 1e30])
            else:
                n.attribute.append(onnx.helper.make_attribute(r.choice(["axis", "perm", "pads"]),
                                                              r.choice([1, [1, 0], [0, 0, 0, 0]])))
        elif k == 2 and g.node:
            r.choice(g.node).op_type = r.choice(_ONNX_OPS)
        elif k == 3 and vis:
            r.choice(vis).type.tensor_type.elem_type = r.choice([0, 1, 2, 3, 6, 7, 9, 10, 11, 16, 17, 100])
        elif k == 4 and g.initializer:
            t = r.choice(g.initializer)
            if t.dims and r.randrange(2):
                t.dims[r.randrange(len(t.dims))] = r.choice(_ONNX_INTS)
            else:
                raw = t.raw_data or b""
                t.ClearField("float_data")
                t.ClearField("int64_data")
                t.raw_data = raw[:r.randrange(len(raw) + 1)] if raw and r.randrange(2) else raw + bytes(r.choice([1, 4, 8]))
        elif k == 5 and len(g.node) > 1:
            del g.node[r.randrange(len(g.node))]
        elif k == 6 and g.node:
            g.node.append(g.node[r.randrange(len(g.node))])
        elif k == 7 and g.node:
            n = r.choice(g.node)
            names = [v.name for v in vis] + [t.name for t in g.initializer] + ["", "missing"]
            if n.input and r.randrange(2):
                n.input[r.randrange(len(n.input))] = r.choice(names)
            elif n.output:
                n.output[r.randrange(len(n.output))] = r.choice(names)
        elif k == 8:
            m.opset_import[0].version = r.choice([1, 6, 9, 13, 17, 21, 25, 99, 0])
        elif g.node:
            n = r.choice(g.node)
            if n.input:
                del n.input[r.randrange(len(n.input))]
    return m.SerializeToString()
