"""Running workers under supervision: each worker prints "start I" and
"done I …" per input; a worker that dies (a crash) or goes quiet for longer
than the per-input timeout (a hang; it is killed) is charged to the input it
had started, which is saved with its seed, and a new worker resumes after
it."""

import dataclasses
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# Bounds on a worker: allocations through GREE_MEMORY_LIMIT (a mutated
# shape asks for gigabytes: RESOURCE_EXHAUSTED instead of swapping the
# machine) and, for the whole process, address space (a compile that runs
# away fails instead of taking the machine's memory).
WORKER_ENV = {"GREE_MEMORY_LIMIT": "512M", "GOMAXPROCS": "2"}
ADDRESS_SPACE = 16 << 30


@dataclasses.dataclass
class Row:
    family: str
    inputs: int = 0
    accepted: int = 0
    rejected: int = 0
    crashes: int = 0
    hangs: int = 0
    failed: int = 0  # a C misuse the ABI can tell that returned OK; a soak that grew
    wall: float = 0.0
    skipped: str = ""
    notes: list = dataclasses.field(default_factory=list)


def _limit():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _reader(stream, q):
    for line in stream:
        q.put(line)
    q.put(None)


class Supervisor:
    def __init__(self, manifest, manifest_path, args, work, log):
        self.man, self.man_path, self.args, self.work, self.log = manifest, manifest_path, args, work, log

    def run_python(self, family, n):
        cmd = lambda start: [sys.executable, os.path.join(HERE, "worker.py"), self.man_path, family,  # noqa: E731
                             str(start), str(n)]
        timeout = self.args.timeout * (20 if family in ("soak", "soak-mobilenet", "threads") else 1)
        return self._run(family, n, cmd, timeout)

    def run_cabi(self):
        exe = build_misuse(self.work)
        if isinstance(exe, str) and exe.startswith("skip:"):
            return Row("cabi", skipped=exe[5:])
        vmfb = os.path.join(self.work, "misuse.vmfb")
        import iree_go.compiler as ireec

        with open(os.path.join(REPO, "samples", "simple_mul.mlir")) as f:
            data = ireec.compile_str(f.read(), target_backends=["vmvx"])
        with open(vmfb, "wb") as f:
            f.write(data)
        n = int(subprocess.run([exe, "count"], capture_output=True, text=True, check=True).stdout)
        return self._run("cabi", n, lambda start: [exe, vmfb, str(start)], self.args.timeout)

    def _run(self, family, n, cmd, timeout):
        row, t0, start = Row(family), time.time(), 0
        env = dict(os.environ, **WORKER_ENV)
        while start < n:
            err_path = os.path.join(self.work, f"{family}.stderr")
            with open(err_path, "wb") as err:
                p = subprocess.Popen(cmd(start), stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                                     preexec_fn=_limit, errors="replace")
            q = queue.Queue()
            threading.Thread(target=_reader, args=(p.stdout, q), daemon=True).start()
            cur, hung, last = None, False, time.time()
            while True:
                try:
                    line = q.get(timeout=max(0.1, timeout - (time.time() - last)))
                except queue.Empty:
                    hung = True
                    p.kill()
                    break
                if line is None:
                    break
                parts = line.split(" ", 2)
                if parts[0] == "start":
                    cur, last = int(parts[1]), time.time()
                elif parts[0] == "done" and len(parts) == 3:
                    i, detail = int(parts[1]), parts[2].strip()
                    cur, last = None, time.time()
                    row.inputs += 1
                    outcome = detail.split(" ", 1)[0]
                    if outcome == "accepted":
                        row.accepted += 1
                    elif outcome == "failed":
                        row.failed += 1
                        row.notes.append(f"#{i}: {detail}")
                    else:
                        row.rejected += 1
                    if family in ("soak", "soak-mobilenet", "threads"):
                        row.notes.append(detail)
                    start = i + 1
            rc = p.wait()
            if cur is None:
                if start >= n:
                    break
                # Died between inputs (at start-up): nothing to charge it to.
                row.crashes += 1
                row.notes.append(f"worker died outside an input (rc {rc}): {_tail(err_path)}")
                break
            row.inputs += 1
            if hung:
                row.hangs += 1
            else:
                row.crashes += 1
            what = "hang" if hung else f"crash rc {rc}"
            saved = self._save(family, cur, what, err_path)
            row.notes.append(f"#{cur}: {what}: {_tail(err_path, 200)} (saved {saved})")
            self.log(f"  {family} #{cur}: {what} — saved {saved}")
            start = cur + 1
        row.wall = time.time() - t0
        self.log(f"{family}: {row.inputs} inputs, {row.crashes} crashes, {row.hangs} hangs ({row.wall:.1f}s)")
        return row

    def _save(self, family, i, what, err_path):
        """Writes the input (regenerated from the seed) and a note with the
        worker's stderr under the failures directory."""
        base = os.path.join(self.args.failures, f"{family}-seed{self.args.seed}-{i}")
        if family in ("vmfb", "mlir", "onnx"):
            import worker

            data, tag, entry = worker.make_input(self.man, family, i)
            with open(base + {"vmfb": ".vmfb", "mlir": ".mlir", "onnx": ".onnx"}[family], "wb") as f:
                f.write(data)
        with open(base + ".txt", "w") as f:
            f.write(f"{what}\nfamily {family} input {i} seed {self.args.seed}\n"
                    f"reproduce: python tests/reliability/run.py --only {family} --seed {self.args.seed} "
                    f"--count {i + 1}\n\n")
            with open(err_path, errors="replace") as e:
                f.write(e.read()[-20000:])
        return base


def _tail(path, n=400):
    try:
        with open(path, errors="replace") as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
    except OSError:
        return ""
    fatal = [l for l in lines if "fatal error" in l or "panic" in l or "SIG" in l]
    return " | ".join((fatal or lines)[-2:])[:n]


def build_misuse(work):
    """Compiles misuse.c against libgree.so; "skip:REASON" without a C
    compiler."""
    from iree_go import _capi

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return "skip:no C compiler on PATH"
    lib_dir = os.path.dirname(_capi.library_path)
    header_dir = lib_dir if os.path.exists(os.path.join(lib_dir, "gree.h")) else os.path.join(REPO, "include")
    exe = os.path.join(work, "misuse")
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", header_dir, os.path.join(HERE, "misuse.c"),
                    "-L", lib_dir, "-lgree", "-Wl,-rpath," + lib_dir, "-o", exe], check=True)
    return exe


def print_table(rows, wall, log):
    """The summary; True when nothing crashed, hung or failed."""
    log("")
    log(f"{'family':<15}{'inputs':>8}{'accepted':>10}{'rejected':>10}{'failed':>8}{'crashes':>9}{'hangs':>7}"
        f"{'wall s':>9}")
    ok = True
    for r in rows:
        if r.skipped:
            log(f"{r.family:<15}  skipped: {r.skipped}")
            continue
        log(f"{r.family:<15}{r.inputs:>8}{r.accepted:>10}{r.rejected:>10}{r.failed:>8}{r.crashes:>9}{r.hangs:>7}"
            f"{r.wall:>9.1f}")
        ok = ok and r.crashes == 0 and r.hangs == 0 and r.failed == 0
    log(f"total wall time {wall:.1f}s")
    for r in rows:
        for note in r.notes:
            log(f"  {r.family}: {note}")
    log("PASS: no crash, no hang" if ok else "FAIL: see the notes above and the failures directory")
    return ok

