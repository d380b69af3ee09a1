#!/usr/bin/env python3
"""Side-by-side comparison of IK Workbench with peer libraries from PyPI (issue #9).

Creates (or reuses) a virtual environment, installs the peers into it one group at a time
(a group that fails to install is recorded, not fatal), builds `ikwb` if needed and two small
C++ timing programs outside the main build, runs bench.py inside the venv, then report.py
writes docs/benchmarks.md and the plots. Needs the network for the installs; not part of CI.

    python3 tools/compare/run.py [--venv .venv-compare] [--build build-peer] [--quick]

See tools/compare/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

# (group name, pip requirements): each group is installed by its own `pip install`
PEER_GROUPS = [
    ("numpy", ["numpy"]),
    ("matplotlib", ["matplotlib"]),
    ("pinocchio", ["pin"]),
    ("example-robot-data", ["example-robot-data"]),
    ("newton", ["newton", "warp-lang"]),
    ("adam", ["adam-robotics[casadi]", "casadi"]),
]

PIN_DEFINES = ["-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
               "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
               "-DPINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION", "-DPINOCCHIO_WITH_URDFDOM"]


def log(msg):
    print(f"[compare] {msg}", flush=True)


def sh(cmd, **kw):
    log("$ " + " ".join(shlex.quote(str(c)) for c in cmd))
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_venv(venv: Path, python: str, status: dict):
    if not venv_python(venv).exists():
        p = sh([python, "-m", "venv", venv])
        if p.returncode != 0:
            raise SystemExit(f"cannot create the venv {venv}: {p.stderr.strip()}")
        status["venv_created"] = True
    p = sh([venv_python(venv), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    status["pip_upgrade"] = "ok" if p.returncode == 0 else p.stderr.strip()[-300:]


def install_peers(venv: Path, status: dict):
    groups = {}
    for name, reqs in PEER_GROUPS:
        t0 = time.time()
        p = sh([venv_python(venv), "-m", "pip", "install", "--quiet", *reqs])
        groups[name] = {"requirements": reqs, "seconds": round(time.time() - t0, 1),
                        "status": "ok" if p.returncode == 0 else "failed"}
        if p.returncode != 0:
            groups[name]["error"] = (p.stderr or p.stdout).strip()[-600:]
            log(f"install of {name} FAILED (recorded; the comparison goes on without it)")
    status["groups"] = groups


def ensure_ikwb(build: Path, jobs: int, status: dict) -> Path:
    ikwb = build / "ikwb"
    cmake = ["cmake", "-S", ROOT, "-B", build, "-DIKWB_BUILD_APP=OFF", "-DIKWB_ENABLE_CUDA=OFF",
             "-DIKWB_BUILD_BENCH=OFF", "-DCMAKE_BUILD_TYPE=Release"]
    make = ["make", "-C", build, f"-j{jobs}", "ikwb"]
    status["build_commands"] = [" ".join(map(str, cmake)), " ".join(map(str, make))]
    if not (build / "CMakeCache.txt").exists():
        p = sh(cmake)
        if p.returncode != 0:
            raise SystemExit(f"cmake failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    p = sh(make)  # a no-op when up to date
    if p.returncode != 0 or not ikwb.exists():
        raise SystemExit(f"building ikwb failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return ikwb


def build_driver(build: Path, out: Path, status: dict):
    """tools/compare/masked_fk_driver.cpp against the static libraries of `build`."""
    exe = out / "masked_fk_driver"
    libs = [build / "solver" / "libikwb_solver.a", build / "engine" / "core" / "libikwb_core.a"]
    missing = [str(x) for x in libs if not x.exists()]
    if missing:
        # the ikwb target builds both libraries; make sure they are there
        sh(["make", "-C", build, "-j2", "ikwb_solver", "ikwb_core"])
        missing = [str(x) for x in libs if not x.exists()]
    if missing:
        status["driver"] = {"status": "failed", "error": f"missing {missing}"}
        return None
    cmd = ["g++", "-std=c++17", "-O3", "-march=x86-64-v3", "-DNDEBUG", f"-I{ROOT}",
           "-I/usr/include/eigen3", HERE / "masked_fk_driver.cpp", *libs, "-lurdfdom_model",
           "-ltinyxml2", "-lassimp", "-lconsole_bridge", "-lpthread", "-o", exe]
    p = sh(cmd)
    status["driver"] = {"command": " ".join(map(str, cmd)),
                        "status": "ok" if p.returncode == 0 else "failed"}
    if p.returncode != 0:
        status["driver"]["error"] = p.stderr.strip()[-1500:]
        return None
    return exe


def build_pin_timer(venv: Path, out: Path, status: dict):
    """tools/compare/pin_fk_time.cpp against the pin wheel's headers and libraries."""
    prefixes = sorted((venv / "lib").glob("python*/site-packages/cmeel.prefix"))
    if not prefixes or not (prefixes[0] / "include" / "pinocchio").exists():
        status["pin_timer"] = {"status": "failed", "error": "pin wheel headers not found"}
        return None
    pre = prefixes[0]
    exe = out / "pin_fk_time"
    # no -march: the wheel's libraries are built for baseline x86-64 and share Eigen types
    cmd = ["g++", "-std=c++17", "-O3", "-DNDEBUG", *PIN_DEFINES, f"-I{pre / 'include'}",
           "-I/usr/include/eigen3", HERE / "pin_fk_time.cpp", f"-L{pre / 'lib'}",
           f"-Wl,-rpath,{pre / 'lib'}", "-lpinocchio_parsers", "-lpinocchio_default", "-o", exe]
    p = sh(cmd)
    status["pin_timer"] = {"command": " ".join(map(str, cmd)),
                           "status": "ok" if p.returncode == 0 else "failed"}
    if p.returncode != 0:
        status["pin_timer"]["error"] = p.stderr.strip()[-1500:]
        return None
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--venv", default=str(ROOT / ".venv-compare"),
                    help="virtual environment to create or reuse (default .venv-compare)")
    ap.add_argument("--python", default=sys.executable, help="interpreter for a new venv")
    ap.add_argument("--build", default=str(ROOT / "build-peer"),
                    help="CMake build folder with ikwb (configured and built if missing)")
    ap.add_argument("--jobs", type=int, default=2, help="make -j for building ikwb")
    ap.add_argument("--work", default=str(ROOT / "out" / "compare"),
                    help="scratch folder: CSVs, stripped URDFs, results.json")
    ap.add_argument("--docs", default=str(ROOT / "docs"), help="where benchmarks.md and plots go")
    ap.add_argument("--skip-install", action="store_true", help="use the venv as it is")
    ap.add_argument("--quick", action="store_true", help="small sizes (a minute or two)")
    ap.add_argument("--sections", default="fk,ik,seeds,batch,masked",
                    help="comma list of fk, ik, seeds, batch, masked")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from WORK/results.json")
    args = ap.parse_args()

    venv, build, work = Path(args.venv).resolve(), Path(args.build).resolve(), Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    status_path = work / "setup.json"
    command = "python3 " + " ".join(shlex.quote(a) for a in
                                    [os.path.relpath(__file__, ROOT)] + sys.argv[1:])
    if not args.report_only:
        status = {"command": command, "venv": str(venv), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
        t0 = time.time()
        ensure_venv(venv, args.python, status)
        if args.skip_install:
            status["groups"] = {"note": "--skip-install: the venv was used as it is"}
        else:
            install_peers(venv, status)
        status["install_seconds"] = round(time.time() - t0, 1)
        ikwb = ensure_ikwb(build, args.jobs, status)
        driver = build_driver(build, work, status)
        pin_timer = build_pin_timer(venv, work, status)
        status_path.write_text(json.dumps(status, indent=1))
        cmd = [venv_python(venv), HERE / "bench.py", "--work", work, "--root", ROOT,
               "--ikwb", ikwb, "--sections", args.sections]
        if driver:
            cmd += ["--driver", driver]
        if pin_timer:
            cmd += ["--pin-timer", pin_timer]
        if args.quick:
            cmd.append("--quick")
        log("running the measurements (progress below)")
        rc = subprocess.run([str(c) for c in cmd]).returncode
        if rc != 0:
            log(f"bench.py exited {rc}; the report shows what was measured")
    py = venv_python(venv) if venv_python(venv).exists() else Path(sys.executable)
    rc = subprocess.run([str(py), str(HERE / "report.py"), "--work", str(work), "--docs",
                         str(Path(args.docs).resolve()), "--root", str(ROOT)]).returncode
    sys.exit(rc)


if __name__ == "__main__":
    main()
