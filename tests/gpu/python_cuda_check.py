"""The Python module's CUDA backend on a GPU machine (run by run_gpu_checks.sh; not a pytest file).

A Panda pose scene solved for the same reachable targets on the CPU and on CUDA, through
`Scene.solve`: both must converge on at least 99 % of the rows, and every converged row's
errors must be within the scene's tolerances on both. Prints the rates and the times.
Exit status: 0 passed, 1 a check failed, 2 CUDA unusable from Python, 4 no numpy (not run).

    PYTHONPATH=DIR_WITH_THE_MODULE python3 tests/gpu/python_cuda_check.py ASSETS_DIR [ROWS]
"""
import json
import os
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    print("numpy is not installed here: not run")
    sys.exit(4)

import ikwb


def reachable_poses(scene, rows, rng):
    """Poses of the tool at random configurations within the limits: every row is reachable."""
    lower = np.maximum(scene.joint_limit_lower, -np.pi)
    upper = np.minimum(scene.joint_limit_upper, np.pi)
    q = lower + rng.random((rows, lower.size)) * (upper - lower)
    body_q, _ = ikwb.eval_fk_batch(scene.model, q)
    return body_q[:, scene.model.body_index("panda_hand_tcp")]


def main():
    assets = os.path.abspath(sys.argv[1])
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    status = ikwb.cuda_status()
    print("cuda_status:", status)
    if not status["available"]:
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "panda_pose.json")
        with open(path, "w") as f:
            json.dump({"version": 1, "robot": os.path.join(assets, "robots/panda/panda.urdf"),
                       "objectives": [{"type": "pose", "name": "tcp",
                                       "link": "panda_hand_tcp"}]}, f)
        scene = ikwb.load_scene(path)
        targets = {"tcp": reachable_poses(scene, rows, np.random.default_rng(7))}
        tol_pos, tol_rot = scene.settings["tol_position"], scene.settings["tol_rotation"]
        failed = False
        for backend in ("cpu", "cuda"):
            scene.solve({"tcp": targets["tcp"][:16]}, backend=backend)  # warm-up
            t = time.perf_counter()
            r = scene.solve(targets, backend=backend)
            elapsed = time.perf_counter() - t
            ok = r["converged"]
            # (no converged row has no largest error)
            largest = (f"{r['position_error'][ok].max():.2e} m, "
                       f"{r['rotation_error'][ok].max():.2e} rad" if ok.any() else "none")
            print(f"{backend}: ran on {r['backend']} {r['backend_note']!r}; "
                  f"converged {ok.sum()}/{rows} ({100 * ok.mean():.2f} %) in {elapsed:.3f} s, "
                  f"{rows / elapsed:.0f} solves/s; converged rows' largest errors {largest}")
            if r["backend"] != backend:
                print(f"FAILED: asked for {backend}, ran on {r['backend']}")
                failed = True
            if ok.mean() < 0.99:
                print(f"FAILED: {backend} converged on under 99 % of reachable targets")
                failed = True
            if (r["position_error"][ok] > tol_pos).any() or (r["rotation_error"][ok] > tol_rot).any():
                print(f"FAILED: {backend} calls rows converged whose errors exceed the tolerances")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
