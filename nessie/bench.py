"""``nessie bench FILE.nesl ...``: time whole programs on every backend (issue 9).

Each file is compiled once (front end, flattening, fusion: not timed), then run whole -- its
top-level items, printed output captured -- on each configuration of :data:`CONFIGS`
(``interp``, ``lcu-unfused``, ``lcu-fused``, ``opencl-unfused``, ``opencl-fused``; the same
names as ``nessie test``): one warm-up run (it builds the OpenCL kernels), then ``repeat`` timed
runs, whose median wall time is reported.  Every run's output is compared with the reference
interpreter's (floats printed by the OpenCL reductions may differ by a relative 1e-9, as in the
differential tests); a difference is a failed row, as is a runtime error (``error: MESSAGE``).

Counts (README.md, "Kernel counts"; ``nessie/counts.py``): ``lcu_kernel_launches`` (λcu ``run``
sites executed, the executor's count) on lcu and opencl, ``device_launches`` (OpenCL kernels
enqueued, the runner's statistics) on opencl, and the static ``lcu_run_sites`` of the program
run.

Writes ``DIR/bench.json`` (every row), ``DIR/bench.md`` (the tables printed at the end) and,
with matplotlib, ``DIR/bench.png``: per program, time and launches unfused vs fused.
"""
from __future__ import annotations

import io
import json
import os
import re
import statistics
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Optional

from nessie.testing import CONFIGS, SpecError, select_configs

#: printed floats of the OpenCL backend may differ from the interpreter's by this much (relative):
#: its reductions and scans regroup sums by chunk (tests/differential/diff_harness.py)
FLOAT_REL_TOL = 1e-9
_FLOAT = re.compile(r"(-?\d+\.\d+(?:E-?\d+)?|-?inf|nan)")

NO_MATPLOTLIB = "matplotlib is not installed: no plot (pip install 'nessie[bench]')"


class BenchError(Exception):
    """A ``nessie: error: ...`` message (bad option, unusable device asked for)."""


@dataclass
class Row:
    """One program on one configuration."""
    file: str
    program: str
    backend: str
    status: str = "ok"                  # ok | mismatch | error | skipped | internal error
    message: Optional[str] = None       # why it is not ok
    time_s: Optional[float] = None      # median of the timed runs
    times_s: list = field(default_factory=list)
    warmup_s: Optional[float] = None
    lcu_kernel_launches: Optional[int] = None
    device_launches: Optional[int] = None
    lcu_run_sites: Optional[int] = None
    output_matches: Optional[bool] = None    # None: nothing to compare (error, skipped)
    output_note: Optional[str] = None        # e.g. floats within the tolerance

    @property
    def failed(self) -> bool:
        return self.status in ("mismatch", "error", "internal error")


# ----------------------------------------------------------------------------- comparison
def compare_output(expected: str, actual: str) -> tuple:
    """``(same, note)``: ``same`` if the texts are equal, or equal but for printed floats within
    :data:`FLOAT_REL_TOL` (``note`` says so); else ``note`` shows the first differing line."""
    if expected == actual:
        return True, None
    pa, pb = _FLOAT.split(expected), _FLOAT.split(actual)
    if len(pa) == len(pb):
        ok = True
        for k, (x, y) in enumerate(zip(pa, pb)):
            if x == y:
                continue
            if k % 2 == 0:
                ok = False
                break
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                ok = False
                break
            if not abs(fx - fy) <= FLOAT_REL_TOL * max(abs(fx), abs(fy)) + 1e-300:
                ok = False
                break
        if ok:
            return True, f"floats equal within {FLOAT_REL_TOL:g} (relative)"
    el, al = expected.split("\n"), actual.split("\n")
    for i in range(max(len(el), len(al))):
        a = el[i] if i < len(el) else "<no line>"
        b = al[i] if i < len(al) else "<no line>"
        if a != b:
            return False, (f"output differs from the interpreter's at line {i + 1}: "
                           f"expected {_clip(a)!r}, got {_clip(b)!r}")
    return False, "output differs from the interpreter's"


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[:n] + "..."


# ----------------------------------------------------------------------------- progress
class Progress:
    """A tqdm bar on stderr when tqdm is installed and both standard output and standard error
    are terminals; else one plain line per measured configuration (on stderr)."""

    def __init__(self, total: int, enabled: Optional[bool] = None) -> None:
        self.total, self.done = total, 0
        self.bar = None
        if enabled is None:
            enabled = sys.stdout.isatty() and sys.stderr.isatty()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                try:      # a pseudo-terminal may say 0 columns: then 80
                    cols = os.get_terminal_size(sys.stderr.fileno()).columns
                except (OSError, ValueError, AttributeError):
                    cols = 0
                self.bar = tqdm(total=total, unit="run", leave=False, file=sys.stderr,
                                dynamic_ncols=cols > 0, ncols=None if cols > 0 else 80)

    def step(self, what: str) -> None:
        """One run (warm-up or timed) is about to start."""
        if self.bar is not None:
            self.bar.set_description(what, refresh=False)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def say(self, line: str, plain: bool = False) -> None:
        """A finished configuration's result (``plain``: a message, without the count)."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line if plain else f"[{self.done}/{self.total}] {line}", file=sys.stderr,
                  flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------- running
class Bench:
    def __init__(self, configs: list, repeat: int, device: Optional[str],
                 progress: Progress) -> None:
        self.configs = configs
        self.repeat = repeat
        self.progress = progress
        self.device_name: Optional[str] = None
        self.notes: list = []
        self.opencl = None
        self.opencl_problem: Optional[str] = None
        self.lcu = None
        if any(c.startswith("opencl") for c in configs):
            from nessie import driver
            try:
                self.opencl = driver.make_runner("opencl", device)
            except RuntimeError as e:      # no usable OpenCL device (lift_backend.devices)
                if device is not None:
                    raise BenchError(str(e)) from None
                self.opencl_problem = f"no usable OpenCL device: {e}"
                self.notes.append(f"the opencl rows are skipped: {self.opencl_problem}")
                print(f"nessie: note: the opencl rows are skipped: {self.opencl_problem}",
                      file=sys.stderr)
            else:
                d = self.opencl.device
                self.device_name = f"{d.name.strip()} ({d.platform.name.strip()})"

    # one run of a configuration: (seconds, output, lcu launches, device launches)
    def _once(self, c, config: str, flat) -> tuple:
        from nessie import driver
        buf = io.StringIO()
        if config == "interp":
            t0 = time.perf_counter()
            try:
                driver.run_interp(c, buf)
            except Exception as e:
                e.bench_output = buf.getvalue()
                raise
            return time.perf_counter() - t0, buf.getvalue(), None, None
        kind = config.split("-")[0]
        if kind == "opencl":
            runner = self.opencl
        else:
            if self.lcu is None:
                self.lcu = driver.make_runner("lcu")
            runner = self.lcu
        before = runner.stats.launches if kind == "opencl" else 0
        t0 = time.perf_counter()
        try:
            it = driver.run_lcu(c, flat, buf, runner=runner)
        except Exception as e:
            e.bench_output = buf.getvalue()
            raise
        dt = time.perf_counter() - t0
        lcu_launches = sum(it.launches.values())
        dev = runner.stats.launches - before if kind == "opencl" else None
        return dt, buf.getvalue(), lcu_launches, dev

    def run_file(self, path: str, text: str, name: str) -> list:
        """The rows of one program (compile errors are raised, as CompileErrors)."""
        from nessie import counts, driver
        from nessie.diagnostics import CompileError, CompileErrors, RuntimeNeslError
        from nessie.flatten import FlattenUnsupported
        from nessie.limits import run_deep

        program = _program_name(name)
        c = run_deep(lambda: driver.compile_source(text, name))
        flats: dict = {}
        flat_problem: Optional[str] = None
        if any(cfg != "interp" for cfg in self.configs):
            try:
                flats["unfused"] = driver.flatten(c)
            except FlattenUnsupported as e:
                flat_problem = f"the flattener does not handle this program: {e}"
            if "unfused" in flats and any(cfg.endswith("-fused") for cfg in self.configs):
                flats["fused"] = driver.fuse(flats["unfused"])[0]

        # the reference output: the interpreter's (also when its row is not asked for)
        reference: Optional[str] = None
        ref_error: Optional[str] = None
        configs = list(self.configs)
        rows = []
        if "interp" not in configs:
            self.progress.step(f"{program} interp (reference output)")
            try:
                _, reference, _, _ = run_deep(lambda: self._once(c, "interp", None))
            except (RuntimeNeslError, CompileErrors, CompileError) as e:
                ref_error = e.format()
                reference = getattr(e, "bench_output", "")
            except Exception as e:  # noqa: BLE001 - a Nessie bug: nothing to compare with
                self.notes.append(f"{program}: the reference interpreter failed "
                                  f"({type(e).__name__}: {e}): outputs not compared")
        for config in configs:
            row = Row(path, program, config)
            rows.append(row)
            kind, _, fusion = config.partition("-")
            flat = None
            if kind != "interp":
                if flat_problem is not None:
                    row.status, row.message = "skipped", flat_problem
                elif kind == "opencl" and self.opencl is None:
                    row.status, row.message = "skipped", self.opencl_problem
                else:
                    flat = flats[fusion]
                    row.lcu_run_sites = counts.run_sites(flat.program)
            if row.status == "skipped":
                self.progress.advance(1 + self.repeat)
                self.progress.say(f"{program} {config}: skipped")
                continue
            runs = []
            try:
                for i in range(1 + self.repeat):
                    self.progress.step(f"{program} {config}" + (" (warm-up)" if i == 0 else ""))
                    runs.append(run_deep(lambda: self._once(c, config, flat)))
                    self.progress.advance()
            except (RuntimeNeslError, CompileErrors, CompileError) as e:
                self.progress.advance(1 + self.repeat - len(runs))
                msg = e.format()
                out = getattr(e, "bench_output", "")
                row.status = "error"
                row.message = (str(e) if isinstance(e, RuntimeNeslError)
                               else msg.split("\n", 1)[0])
                if config == "interp":
                    ref_error, reference = msg, out
                elif reference is not None:
                    # the output printed before the error, and the error, against the
                    # interpreter's: the row fails either way, but a difference is said
                    same, note = compare_output(reference, out)
                    if same and msg != ref_error:
                        same = False
                        note = ("the interpreter reported "
                                + (ref_error.splitlines()[0] if ref_error else "no error"))
                    row.output_matches, row.output_note = same, note
                self.progress.say(f"{program} {config}: error: {row.message}")
                continue
            except Exception as e:  # noqa: BLE001 - a Nessie bug: reported in the row
                self.progress.advance(1 + self.repeat - len(runs))
                row.status = "internal error"
                row.message = (f"internal error (a bug in Nessie): {type(e).__name__}: {e}\n"
                               + traceback.format_exc(limit=-3).rstrip())
                self.progress.say(f"{program} {config}: internal error: {type(e).__name__}: {e}")
                continue
            warm, timed = runs[0], runs[1:] or runs[:1]
            row.warmup_s = warm[0]
            row.times_s = [r[0] for r in timed]
            row.time_s = statistics.median(row.times_s)
            row.lcu_kernel_launches, row.device_launches = timed[-1][2], timed[-1][3]
            if config == "interp":
                reference = warm[1]
                row.output_matches = True
                row.output_note = "reference"
            elif reference is None:
                row.output_note = "not compared: no reference output"
            else:
                notes = []
                same = True
                if ref_error is not None:
                    same = False
                    notes.append(f"the interpreter reported {ref_error.splitlines()[0]}; this "
                                 f"run ended without an error")
                for _, out, _, _ in runs:
                    ok, note = compare_output(reference, out)
                    same = same and ok
                    if note and note not in notes:
                        notes.append(note)
                    if not ok:
                        break
                row.output_matches = same
                row.output_note = "; ".join(notes) or None
                if not same:
                    row.status, row.message = "mismatch", row.output_note
            self.progress.say(f"{program} {config}: {_ms(row.time_s)}"
                              + ("" if row.status == "ok" else f" ({row.status})"))
        return rows


# ----------------------------------------------------------------------------- reports
def _ms(s: Optional[float]) -> str:
    if s is None:
        return "–"
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s * 1e3:.1f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"


def _n(x: Optional[int]) -> str:
    return "–" if x is None else str(x)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _launches(r: Row) -> Optional[int]:
    """The launches a configuration's fused/unfused comparison uses: device launches on opencl,
    λcu kernel launches on lcu."""
    return r.device_launches if r.backend.startswith("opencl") else r.lcu_kernel_launches


def fusion_pairs(rows: list) -> list:
    """``(program, kind, unfused row, fused row)`` for every kind (lcu, opencl) run both ways."""
    by = {(r.file, r.backend): r for r in rows}
    out = []
    seen = []
    for r in rows:
        if r.file not in seen:
            seen.append(r.file)
    for f in seen:
        for kind in ("lcu", "opencl"):
            u, fu = by.get((f, f"{kind}-unfused")), by.get((f, f"{kind}-fused"))
            if u is not None and fu is not None:
                out.append((u.program, kind, u, fu))
    return out


def _device(meta: dict) -> str:
    if meta["device"]:
        return meta["device"]
    return ("none usable" if any(c.startswith("opencl") for c in meta["configs"])
            else "not used")


def markdown(rows: list, meta: dict) -> str:
    lines = ["# nessie bench", ""]
    lines.append(f"OpenCL device: {_device(meta)}; wall time of a whole-program run, "
                 f"median of {meta['repeat']} after a warm-up run; output compared with the "
                 f"interpreter's.")
    for note in meta["notes"]:
        lines.append("")
        lines.append(f"Note: {note}")
    lines += ["", "| program | backend | time | λcu kernel launches | device launches | output |",
              "|---|---|---:|---:|---:|---|"]
    for r in rows:
        if r.status == "ok":
            out = "reference" if r.backend == "interp" else "= interp"
            if r.output_note and r.backend != "interp":
                out += f" ({r.output_note})"
        else:
            out = f"{r.status}: {r.message.splitlines()[0] if r.message else ''}"
            if r.status == "error" and r.output_matches is False and r.output_note:
                out += f" ({r.output_note})"
        lines.append(f"| {_cell(r.program)} | {r.backend} | {_ms(r.time_s)} | "
                     f"{_n(r.lcu_kernel_launches)} | {_n(r.device_launches)} | {_cell(out)} |")
    pairs = [p for p in fusion_pairs(rows) if p[2].time_s is not None and p[3].time_s is not None]
    if pairs:
        lines += ["", "Fused vs unfused (launches: device launches on opencl, λcu kernel "
                      "launches on lcu):", "",
                  "| program | backend | time unfused | fused | speed-up | launches unfused | "
                  "fused |", "|---|---|---:|---:|---:|---:|---:|"]
        for prog, kind, u, f in pairs:
            speed = f"{u.time_s / f.time_s:.2f}×" if f.time_s else "–"
            lines.append(f"| {_cell(prog)} | {kind} | {_ms(u.time_s)} | {_ms(f.time_s)} | "
                         f"{speed} | {_n(_launches(u))} | {_n(_launches(f))} |")
    return "\n".join(lines) + "\n"


def plot(rows: list, meta: dict, path: str) -> bool:
    """Fused vs unfused time and launches per program (bars, log scale); False without
    matplotlib (said on stderr)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"nessie: note: {NO_MATPLOTLIB}", file=sys.stderr)
        return False
    import numpy as np

    programs = []
    for r in rows:
        if r.program not in programs:
            programs.append(r.program)
    configs = [c for c in CONFIGS if any(r.backend == c for r in rows)]
    by = {(r.program, r.backend): r for r in rows}
    colors = {"interp": "#999999", "lcu-unfused": "#9ecae1", "lcu-fused": "#2171b5",
              "opencl-unfused": "#fdae6b", "opencl-fused": "#d94801"}
    from matplotlib.ticker import FuncFormatter

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(max(7.0, 1.7 * len(programs) + 3), 6.8),
                                 sharex=True)
    xs = np.arange(len(programs))
    width = 0.8 / max(1, len(configs))
    launch_values = []
    for j, cfg in enumerate(configs):
        off = (j - (len(configs) - 1) / 2) * width
        t = [by[(p, cfg)].time_s * 1e3 if (p, cfg) in by and by[(p, cfg)].time_s else np.nan
             for p in programs]
        a1.bar(xs + off, t, width, label=cfg, color=colors.get(cfg))
        if cfg != "interp":
            n = [_launches(by[(p, cfg)]) if (p, cfg) in by else None for p in programs]
            bars = a2.bar(xs + off, [np.nan if v is None else v for v in n], width, label=cfg,
                          color=colors.get(cfg))
            a2.bar_label(bars, labels=["" if v is None else str(v) for v in n], fontsize=7,
                         padding=1)
            launch_values += [v for v in n if v]
    a1.set_ylabel("ms per run (median)")
    a2.set_ylabel("launches per run\n(opencl: device, lcu: λcu)")
    times = [r.time_s * 1e3 for r in rows if r.time_s]
    for ax, vals in ((a1, times), (a2, launch_values)):
        if vals and max(vals) > 30 * min(vals):
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(FuncFormatter(
                lambda v, _: f"{v:g}" if str(f"{v:g}")[0] in "25" else ""))
        else:
            ax.set_ylim(0, (max(vals) if vals else 1) * 1.15)
        ax.grid(axis="y", alpha=0.3)
    a1.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(5, len(configs)),
              fontsize=8, frameon=False)
    rot = len(programs) > 4
    a2.set_xticks(xs, programs, rotation=30 if rot else 0, ha="right" if rot else "center")
    fig.suptitle(f"nessie bench: time and launches per program, fused vs unfused\n"
                 f"OpenCL device: {_clip(_device(meta), 90)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ----------------------------------------------------------------------------- command
def main(files: list, backends: Optional[list] = None, device: Optional[str] = None,
         repeat: int = 3, out_dir: str = "nessie-bench", plot_png: bool = True,
         progress: Optional[bool] = None) -> int:
    """``nessie bench``; returns the exit status (1 if a file did not compile or any row
    failed)."""
    from nessie import __version__
    from nessie.sources import UsageError as _UsageError
    from nessie.sources import read_source as _read
    from nessie.diagnostics import CompileError, CompileErrors

    try:
        configs = select_configs(backends, "--backends") if backends else list(CONFIGS)
    except SpecError as e:
        print(f"nessie: error: {e}", file=sys.stderr)
        return 1
    if repeat < 1:
        print(f"nessie: error: --repeat must be 1 or more, not {repeat}", file=sys.stderr)
        return 1
    if files.count("-") > 1:
        print("nessie: error: - (standard input) can be given only once", file=sys.stderr)
        return 1
    sources = []
    status = 0
    for path in files:             # read every file first: a missing one is said at once
        try:
            text, name = _read(path)
        except _UsageError as e:
            print(f"nessie: error: {e}", file=sys.stderr)
            status = 1
            continue
        except CompileError as e:
            print(e.format(), file=sys.stderr)
            status = 1
            continue
        sources.append((path, text, name))
    if status:
        return status
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        why = "it exists and is not a directory" if os.path.exists(out_dir) else (e.strerror or e)
        print(f"nessie: error: cannot create {out_dir}: {why}", file=sys.stderr)
        return 1
    total = len(sources) * len(configs) * (1 + repeat)
    bar = Progress(total, progress)
    try:
        try:
            bench = Bench(configs, repeat, device, bar)
        except BenchError as e:
            bar.close()
            print(f"nessie: error: {e}", file=sys.stderr)
            return 1
        rows: list = []
        not_compiled: list = []    # programs that do not compile: each of their runs failed
        for path, text, name in sources:
            try:
                rows.extend(bench.run_file(path, text, name))
            except (CompileErrors, CompileError) as e:
                bar.advance(len(configs) * (1 + repeat))
                bar.say(e.format(), plain=True)
                status = 1
                not_compiled.append(_program_name(name))
            except RecursionError:
                bar.advance(len(configs) * (1 + repeat))
                bar.say(f"nessie: error: {path}: program nested too deeply for Nessie (a "
                        f"compiler stage ran out of stack)", plain=True)
                status = 1
                not_compiled.append(_program_name(name))
    except KeyboardInterrupt:
        bar.close()
        print("nessie: interrupted", file=sys.stderr)
        return 130
    bar.close()
    meta = {"nessie": __version__, "device": bench.device_name, "repeat": repeat,
            "notes": bench.notes, "configs": configs,
            "files": [p for p, _, _ in sources]}
    for r in rows:
        if r.failed:
            status = max(status, 2 if r.status == "internal error" else 1)
    if not rows:
        _say_failed(rows, not_compiled, len(configs))
        return status
    doc = dict(meta)
    doc["rows"] = [asdict(r) for r in rows]
    doc["fusion"] = [{"program": p, "backend": k,
                      "unfused_s": u.time_s, "fused_s": f.time_s,
                      "unfused_launches": _launches(u), "fused_launches": _launches(f)}
                     for p, k, u, f in fusion_pairs(rows)]
    md = markdown(rows, meta)
    jpath, mpath, ppath = (os.path.join(out_dir, f"bench.{x}") for x in ("json", "md", "png"))
    with open(jpath, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(mpath, "w", encoding="utf-8") as f:
        f.write(md)
    print(md, end="")
    print()
    written = [jpath, mpath]
    if plot_png and plot(rows, meta, ppath):
        written.append(ppath)
    print("nessie bench: wrote " + ", ".join(written))
    for r in rows:
        if r.status == "internal error":
            print(f"nessie: {r.program} {r.backend}: {r.message}\nnessie: internal compiler "
                  f"error (this is a bug in Nessie; please report it with the program that "
                  f"triggered it)", file=sys.stderr)
    _say_failed(rows, not_compiled, len(configs))
    return status


def _program_name(name: str) -> str:
    """A program's name in the rows: its file name without the extension."""
    return os.path.splitext(os.path.basename(name))[0].strip("<>")


def _say_failed(rows: list, not_compiled: list, n_configs: int) -> None:
    """The summary line on stderr: the runs that failed, every run of a program that does not
    compile included (``N of M runs failed: ...``); nothing when none did."""
    failed = [f"{r.program} {r.backend}" for r in rows if r.failed]
    n_failed = len(failed) + n_configs * len(not_compiled)
    n_runs = len(rows) + n_configs * len(not_compiled)
    failed += [f"{p} (does not compile)" for p in not_compiled]
    if n_failed:
        print(f"nessie bench: {n_failed} of {n_runs} run{'s' if n_runs != 1 else ''} failed: "
              + ", ".join(failed), file=sys.stderr)
