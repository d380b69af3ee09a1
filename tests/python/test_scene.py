"""ikwb.load_scene and Scene.solve: a scene solved for arrays of targets, equal to
`ikwb solve --scene SCENE --targets T.csv`."""
import csv
import json
import pathlib
import subprocess

import numpy as np
import pytest

import ikwb
from conftest import HUMANOID, PANDA_PRESET, ROOT, random_configurations


@pytest.fixture(scope="module")
def scene():
    return ikwb.load_scene(PANDA_PRESET)


def test_scene_contents(scene):
    assert scene.model.body_count == 13
    assert scene.objective_names == ["tcp pose", "posture", "joint limits"]
    assert scene.objectives[0]["type"] == "pose" and scene.objectives[0]["link"] == "panda_hand_tcp"
    target = scene.objectives[0]["target"]  # written out, not "current"
    assert len(target["position"]) == 3 and len(target["orientation"]) == 4
    assert scene.settings["n_seeds"] == 16 and scene.settings["sampler"] == "roberts"
    assert scene.settings["restarts"] == 50  # ikwb solve's batch default under the scene's
    # the preset's 20 iterations are per frame: lifted to a batch solve's 60, as the CLI does
    assert scene.settings["iterations"] == 60
    assert any("solving with iterations 60" in w for w in scene.warnings), scene.warnings
    assert scene.joint_q.shape == (8,)
    assert scene.joint_q[3] == pytest.approx(-2.356194)
    assert repr(scene) == f"<ikwb.Scene '{PANDA_PRESET}': robot 'panda', 3 objectives>"


def test_a_target_that_follows_a_link_is_not_listed():
    # the humanoid preset's gaze looks at the right hand (link_b): its record listed a world
    # target that Scene.solve refuses ("has no target: it follows link_b")
    humanoid = ikwb.load_scene(str(ROOT / "assets" / "robots" / "humanoid" / "preset.json"))
    gaze = humanoid.objectives[humanoid.objective_names.index("gaze")]
    assert gaze["type"] == "look_at" and gaze["link_b"] == "right_hand"
    assert "target" not in gaze
    with pytest.raises(ValueError, match="has no target: it follows link_b"):
        humanoid.solve({"gaze": np.array([[1.0, 0, 0]])})
    assert "target" in humanoid.objectives[humanoid.objective_names.index("right hand")]


def tcp_poses(scene, n, seed):
    m = scene.model
    body_q, _ = ikwb.eval_fk_batch(m, random_configurations(m, n, seed=seed))
    return body_q[:, m.body_index("panda_hand_tcp")]


def test_solve_without_targets_is_the_scene_as_it_is(scene):
    r = scene.solve()
    assert r["q"].shape == (1, 8) and r["converged"][0]
    assert r["position_error"][0] < 1e-4


def test_solve_arrays_of_targets(scene):
    poses = tcp_poses(scene, 12, seed=31)
    r = scene.solve({"tcp pose": poses})
    assert r["q"].shape == (12, 8) and r["converged"].sum() >= 11
    assert (r["constraint_violation"] == 0).all()  # no hard objective
    body_q, _ = ikwb.eval_fk_batch(scene.model, r["q"])
    tcp = body_q[:, scene.model.body_index("panda_hand_tcp")]
    for i in np.flatnonzero(r["converged"]):
        assert np.linalg.norm(tcp[i, :3] - poses[i, :3]) < 1e-4
    # positions only: the scene's target orientation is kept
    r2 = scene.solve({"tcp pose": poses[:3, :3]}, n_seeds=4, threads=1)
    assert r2["q"].shape == (3, 8)


def swept_path(scene, n):
    """tcp poses along a smooth joint path with wide swings (as motion capture gives), and the
    path's largest step between rows"""
    m = scene.model
    t = np.linspace(0.0, 1.0, n)[:, None]
    q = np.tile(scene.joint_q, (n, 1))
    q[:, 0] = 2.5 * np.sin(2 * np.pi * t[:, 0])
    q[:, 1] += 0.9 * np.sin(3 * np.pi * t[:, 0])
    q[:, 2] = 1.5 * np.sin(2 * np.pi * t[:, 0])
    q[:, 3] += 1.0 * np.sin(np.pi * t[:, 0])
    body_q, _ = ikwb.eval_fk_batch(m, q)
    return body_q[:, m.body_index("panda_hand_tcp")], np.abs(np.diff(q, axis=0)).max()


def test_sequential_rows_start_from_the_row_before(scene):
    # independent rows land on whichever IK branch their seeds find; in order, each from the
    # answer before it, the joint path moves no more between rows than the targets' own path
    poses, step = swept_path(scene, 300)
    free = scene.solve({"tcp pose": poses})
    chained = scene.solve({"tcp pose": poses}, sequential=True)
    assert free["converged"].all() and chained["converged"].all()
    assert np.abs(np.diff(free["q"], axis=0)).max() > 1.0
    assert np.abs(np.diff(chained["q"], axis=0)).max() < 3 * step
    # per-row starts: each row started at the chained answer stays on its branch (the posture
    # may settle a little further)
    again = scene.solve({"tcp pose": poses}, joint_q=chained["q"], restarts=0)
    assert np.abs(again["q"] - chained["q"]).max() < 0.05
    assert np.abs(again["q"] - free["q"]).max() > 1.0
    with pytest.raises(ValueError, match=r"joint_q: expected shape \(300, 8\)"):
        scene.solve({"tcp pose": poses}, joint_q=chained["q"][:5])
    with pytest.raises(ValueError, match="sequential starts each row from the answer"):
        scene.solve({"tcp pose": poses}, joint_q=chained["q"], sequential=True)


def humanoid_retargeting(tmp_path, rest, hand_offset=None, solver=None):
    # a retargeting scene of the shipped humanoid: feet poses, hand points (at hand_offset in the
    # hand links), a weak null-space posture toward rest, soft joint limits
    hand = {"offset": hand_offset} if hand_offset else {}
    scene = {
        "version": 1, "robot": HUMANOID, "floating_base": True, "rest": rest,
        "objectives": [
            {"type": "pose", "name": "left foot", "link": "left_foot", "target": "current"},
            {"type": "pose", "name": "right foot", "link": "right_foot", "target": "current"},
            {"type": "position", "name": "left hand", "link": "left_hand", **hand,
             "target": "current"},
            {"type": "position", "name": "right hand", "link": "right_hand", **hand,
             "target": "current"},
            {"type": "posture", "name": "posture", "weight": 0.01, "null_space": True},
            {"type": "joint_limits", "name": "joint limits"}]}
    if solver:
        scene["solver"] = solver
    path = tmp_path / "retarget.json"
    path.write_text(json.dumps(scene))
    return ikwb.load_scene(str(path))


def test_a_humanoid_path_with_a_null_space_posture_stays_on_its_branch(tmp_path):
    # a retargeting scene (feet poses, hand points, a null-space posture): the walk drives the
    # right shoulder and a hip along their limits, where a posture step the limit clipped or a
    # step clipped at a limit stalled the row and a restart on another branch was kept (joints
    # jumped up to 3.6 rad between rows 1/30 s apart)
    rest = {"left_elbow_joint": -0.5, "right_elbow_joint": -0.5, "left_knee_joint": 0.6,
            "right_knee_joint": 0.6}
    scene = humanoid_retargeting(tmp_path, rest)
    m = scene.model
    n = 900
    t = np.arange(n)[:, None] / 120.0
    q = np.tile(scene.joint_q, (n, 1))
    lo, hi = m.joint_limit_lower, m.joint_limit_upper

    def swing(name, centre, amplitude, hz, phase=0.0):
        j = m.joint_index(name)
        d, c = m.joint_qd_start[j], m.joint_q_start[j]
        v = centre + amplitude * np.sin(2 * np.pi * hz * t[:, 0] + phase)
        q[:, c] = np.clip(v, lo[d], hi[d])  # held on a limit for part of each cycle

    q[:, 0] = 0.05 * np.sin(2 * np.pi * 0.8 * t[:, 0])
    for side, phase in (("left", 0.0), ("right", np.pi)):
        swing(f"{side}_hip_pitch_joint", -0.4, 0.5, 0.8, phase)
        swing(f"{side}_knee_joint", 0.8, 0.45, 0.8, phase + 0.8)
        swing(f"{side}_shoulder_pitch_joint", -0.3, 1.6, 0.8, phase + np.pi)
        swing(f"{side}_shoulder_roll_joint", 0.0, 1.0, 0.17, phase)
        swing(f"{side}_elbow_joint", -1.0, 0.6, 0.8, phase + 0.5)
    body_q, _ = ikwb.eval_fk_batch(m, q)
    targets = {"left foot": body_q[:, m.body_index("left_foot")],
               "right foot": body_q[:, m.body_index("right_foot")],
               "left hand": body_q[:, m.body_index("left_hand"), :3],
               "right hand": body_q[:, m.body_index("right_hand"), :3]}
    chained = scene.solve(targets, joint_q=q[0], sequential=True)
    assert chained["converged"].all()
    # the settled posture itself moves up to 0.2 rad between rows where a joint leaves its limit
    # (rows settled with 3000 iterations each; the path moves at most 0.067 rad a row); the
    # branch jumps were 3.6 rad
    step = np.abs(np.diff(chained["q"][:, 7:], axis=0)).max()
    assert step < 0.5, step
    # the weak posture (weight 0.01) settles within a row's iterations: every row ran to its 60
    # while each posture step moved 0.5% of the way (now about 14 a row)
    assert chained["iterations"].mean() < 30, chained["iterations"].mean()


def test_a_row_a_hair_from_a_limit_follows_the_row_before(tmp_path):
    # a review's 20,000-frame humanoid walk (sequential=True): row 5066 started from row 5065's
    # answer, whose left shoulder roll was 7e-7 rad from its limit; the step carried it across,
    # and each such dof cost three iterations (the clipped step rejected twice, a step cut at the
    # limit that did not move the row, then held), the attempt ran out of iterations and the
    # restarts put the elbow 1.1 rad away on another branch. A dof that close now stops at its
    # limit in one step, and the row follows from where it started.
    rest = {"left_elbow_joint": -0.5, "right_elbow_joint": -0.5, "left_knee_joint": 0.6,
            "right_knee_joint": 0.6, "left_hip_pitch_joint": -0.3, "right_hip_pitch_joint": -0.3,
            "left_ankle_pitch_joint": -0.3, "right_ankle_pitch_joint": -0.3}
    scene = humanoid_retargeting(tmp_path, rest, hand_offset=[0, 0, -0.07],
                                 solver={"n_seeds": 16, "sampler": "roberts", "iterations": 20})
    row_before = np.array([
        -2.5185171057200884, 0.009228827577902785, -0.03753371037659692, -0.02278281859660145,
        -0.06292190749647904, 0.011446235320132742, 0.9976927184413019, 0.1591295755023536,
        -0.07679609653020204, -0.1477818654475808, -0.1406653500578731, -0.33338575286925176,
        0.00636701154910095, -7.535e-321, 0.220667007024563, -0.0017075356874793799,
        -0.21974995129541353, -0.2694768120523751, 7.41e-321, -0.3,
        0.2531933127450908, 0.9743872344244726, 0.764028945215849, -0.04748622980994786,
        0.06678774311403596, -0.6, 0.047557351394229556, -0.19987679412257106,
        -0.5088412404175693, -0.10018960256132503, -0.3414925474220722, 0.0029819554797258434,
        6.740883706777633e-05, 0.05117345397718235, -0.0020525817067542414])
    targets = {
        "left foot": np.array([[-2.601602715419296, -0.17452523744987675, -0.7885868306750681,
                        -0.2356553773900934, 0.024175543004542478, -0.049297202428331674,
                        0.9702844284333889]]),
        "right foot": np.array([[-2.4915204236950252, -0.10437524063585471, -0.8778606205888684,
                        -0.1573814006330778, 0.21017301340638975, -0.023240467086097415,
                        0.9646337542612056]]),
        "left hand": np.array([[-2.5265401521641833, -0.00533757012468903, -0.20308323598815398]]),
        "right hand": np.array([[-2.329695384111569, 0.012709251036536341, -0.12445372229252107]]),
    }
    r = scene.solve(targets, joint_q=row_before)
    assert r["converged"][0]
    step = np.abs(r["q"][0, 7:] - row_before[7:]).max()
    assert step < 0.1, step  # 0.034 rad; 1.11 before


def test_a_sequence_keeps_its_compromise_where_the_targets_cannot_all_be_met():
    # a review's scene (tests/data/scenes): the dual arm's tools, soft targets, held 12 cm apart by
    # a hard minimum distance while their targets come together. Where they meet, no row converges
    # and each goes to the restarts; their compromise, on another branch at a slightly lower cost,
    # replaced the one from the row before and the joints jumped up to 5.1 rad between rows 1 cm
    # apart. The row before's compromise stays unless the restarts do better than a compromise.
    scene = ikwb.load_scene(str(ROOT / "tests" / "data" / "scenes" /
                                "dual_arm_tools_held_apart.json"))
    n = 60
    i = np.arange(n)[:, None]
    y = np.maximum(0.3615 - 0.008 * i, 0.0)
    z = 1.0 + 0.03 * np.sin(i / 8.0)
    x = np.full_like(y, 0.3807)
    r = scene.solve({"L": np.hstack([x, y, z]), "R": np.hstack([x, -y, z])}, sequential=True)
    assert not r["converged"][-10:].any()  # the targets coincide: a compromise
    assert (r["constraint_violation"] <= 1e-4).all()
    step = np.abs(np.diff(r["q"], axis=0)).max(axis=1)
    assert step.max() < 0.1, (step.argmax(), step.max())
    # a compromise after a compromise skips its restarts (kept only had they converged): the
    # last rows take their attempt's iterations, about 590 each with the restarts, and at the
    # 1st, 2nd, 4th, 8th ... such row one more from the last row that converged
    last = r["iterations"][-10:]
    assert (last <= 120).all() and (last <= 60).sum() >= 8, last


def rotate(q_xyzw, v):
    # rotates v by each unit quaternion (x, y, z, w) of q_xyzw (n x 4)
    u, w = q_xyzw[:, :3], q_xyzw[:, 3:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def test_a_row_from_the_answer_before_does_not_stall_at_a_joint_limit(tmp_path):
    # a review's retargeting path (every joint swinging 0.3 rad, held at its limits, at most
    # 0.015 rad a frame): from an answer with an ankle on its limit, the next row's attempt at the
    # batch damping stalled 0.7 mm short and a restart jumped the right shoulder 3.1 rad; a row
    # now begins as a warm start does (solve_from_previous)
    path = tmp_path / "retarget.json"
    path.write_text(json.dumps({
        "version": 1, "robot": HUMANOID, "floating_base": True,
        "objectives": [
            {"type": "pose", "name": "left foot", "link": "left_foot"},
            {"type": "pose", "name": "right foot", "link": "right_foot"},
            {"type": "position", "name": "left hand", "link": "left_hand",
             "offset": [0, 0, -0.07]},
            {"type": "position", "name": "right hand", "link": "right_hand",
             "offset": [0, 0, -0.07]},
            {"type": "joint_limits", "name": "joint limits"}]}))
    scene = ikwb.load_scene(str(path))
    m = scene.model
    rng = np.random.default_rng(0)
    rng.uniform(size=(2000, 8))
    n = 300
    t = np.arange(n) / 120.0
    q = np.tile(scene.joint_q, (n, 1))
    lo, hi = scene.joint_limit_lower, scene.joint_limit_upper
    for c in range(7, m.joint_coord_count):
        d = c - 1
        centre = np.clip(scene.joint_q[c], lo[d], hi[d])
        wave = 0.3 * np.sin(2 * np.pi * rng.uniform(0.2, 1) * t + rng.uniform(0, 6))
        q[:, c] = np.clip(centre + wave, lo[d], hi[d])
    body_q, _ = ikwb.eval_fk_batch(m, q)

    def point(link):
        b = body_q[:, m.body_index(link)]
        return b[:, :3] + rotate(b[:, 3:], np.array([0.0, 0.0, -0.07]))

    targets = {"left foot": body_q[:, m.body_index("left_foot")],
               "right foot": body_q[:, m.body_index("right_foot")],
               "left hand": point("left_hand"), "right hand": point("right_hand")}
    chained = scene.solve(targets, sequential=True)
    assert chained["converged"].all()
    step = np.abs(np.diff(chained["q"][:, 7:], axis=0)).max()
    assert step < 0.1, step


def test_hard_feet_hold_while_a_soft_hand_reaches_beyond_its_reach(tmp_path):
    # a hand 0.7-0.9 m from where it stands, out of its reach, with the feet and balance hard:
    # every attempt trades hand against feet, and the kept one must hold the feet within the
    # tolerance (the pick priced 0.3 mm of a hard foot as less than a few mm of the hand)
    path = tmp_path / "reach.json"
    path.write_text(json.dumps({
        "version": 1, "robot": HUMANOID, "floating_base": True,
        "objectives": [
            {"type": "pose", "name": "left foot", "link": "left_foot", "target": "current",
             "hard": True},
            {"type": "pose", "name": "right foot", "link": "right_foot", "target": "current",
             "hard": True},
            {"type": "position", "name": "left hand", "link": "left_hand", "target": "current"},
            {"type": "posture", "name": "posture", "weight": 0.1},
            {"type": "support_polygon", "name": "balance", "margin": 0.02, "hard": True,
             "contacts": [{"link": "left_ankle_roll_link"}, {"link": "right_ankle_roll_link"}]},
            {"type": "joint_limits", "name": "joint limits"}]}))
    scene = ikwb.load_scene(str(path))
    m = scene.model
    start, _ = ikwb.eval_fk_batch(m, np.array([scene.joint_q]))
    t = np.arange(200, 205)[:, None] / 300.0
    hand = start[0, m.body_index("left_hand"), :3] + np.hstack(
        [0.9 * np.sin(2 * np.pi * t), 0.3 * np.sin(4 * np.pi * t), 0.4 * np.sin(2 * np.pi * t)])
    result = scene.solve({"left hand": hand}, joint_q=scene.joint_q)
    assert not result["converged"].any()  # the hand is out of reach
    body_q, _ = ikwb.eval_fk_batch(m, result["q"])
    for foot in ("left_foot", "right_foot"):
        off = np.abs(body_q[:, m.body_index(foot)] - start[0, m.body_index(foot)])
        assert (off[:, :3] <= 1e-4).all(), off  # the default tol_constraint, 0.1 mm
    assert (result["constraint_violation"] <= 1e-4).all()


def test_a_hard_set_that_holds_together_holds_against_a_soft_hand_out_of_reach():
    # a review's scene (tests/data/scenes): feet, balance and the right hand hard, the left hand
    # soft, its target 0.5 m out of reach. The hard set holds together (alone it converges), and
    # every attempt stopped at its 60 iterations with the feet 0.9-1.9 mm and the hard hand 1.2 mm
    # off, its augmented Lagrangian still short of its penalty's cap
    scene = ikwb.load_scene(
        str(ROOT / "tests" / "data" / "scenes" / "humanoid_hard_hand_and_feet.json"))
    m = scene.model
    start, _ = ikwb.eval_fk_batch(m, np.array([scene.joint_q]))
    rh = np.array([[-0.7649312126077247, 0.07832884073296414, -0.43631581795955443]])
    lh = np.array([[-0.026283908075591708, 0.41045857965041553, -0.010148868774018327,
                    0.1427637008188154810, -0.1964384883630648226, -0.04416198779168268446,
                    0.9690614866211725298]])
    result = scene.solve({"rh": rh, "lh": lh})
    assert not result["converged"][0]  # the soft hand is out of reach
    body_q, _ = ikwb.eval_fk_batch(m, result["q"])
    for foot in ("left_foot", "right_foot"):
        assert np.abs(body_q[0, m.body_index(foot), :3] - start[0, m.body_index(foot), :3]).max() \
            <= 1e-4
    hand = body_q[0, m.body_index("right_hand")]
    point = hand[:3] + rotate(hand[None, 3:], np.array([[0.0, 0.0, -0.07]]))[0]
    assert np.linalg.norm(point - rh[0]) <= 1e-4
    # the result says the hard objectives hold (the soft hand is what is missed)
    assert 0 <= result["constraint_violation"][0] <= 1e-4


def test_a_scene_whose_robot_cannot_be_loaded_is_named(tmp_path):
    path = tmp_path / "lost.json"
    path.write_text(json.dumps({"version": 1, "robot": str(tmp_path / "nope.urdf"),
                                "objectives": [{"type": "posture"}]}))
    with pytest.raises(ikwb.ModelError, match=r"lost\.json: robot \".*nope\.urdf\": .*nope\.urdf: "
                                              r"cannot open file"):
        ikwb.load_scene(str(path))


def test_starts_that_are_not_numbers_are_named_as_passed(scene):
    with pytest.raises(ValueError, match=r"Scene\.solve joint_q: column 0 \(joint 'panda_joint1'\) "
                                         r"is nan; values must be finite"):
        scene.solve(joint_q=np.full(8, np.nan))
    rows = np.tile(scene.joint_q, (2, 1))
    rows[1, 5] = np.inf
    with pytest.raises(ValueError, match=r"Scene\.solve joint_q: row 1, column 5 "):
        scene.solve({"tcp pose": tcp_poses(scene, 2, seed=3)}, joint_q=rows)


def test_rows_whose_targets_cannot_be_used_are_skipped(scene):
    # a motion-capture gap (NaN), a quaternion that is not unit, a point beyond 1e6 m: those
    # rows are not solved (q and errors NaN, `skipped`), the others are, with one warning, as
    # `ikwb solve` skips such lines
    targets = np.array(tcp_poses(scene, 6, seed=11))
    targets[1, 2] = np.nan
    targets[3, 3:] = [0, 0, 0, 2]
    targets[4, 0] = 1e7
    with pytest.warns(UserWarning, match=r"3 of 6 target rows not solved .* the first: "
                                         r"Scene\.solve targets\['tcp pose'\] row 1 must be "
                                         r"finite"):
        r = scene.solve({"tcp pose": targets})
    assert list(r["skipped"]) == [False, True, False, True, True, False]
    for i in (1, 3, 4):
        assert np.isnan(r["q"][i]).all() and not r["converged"][i]
        assert np.isnan(r["position_error"][i]) and r["iterations"][i] == 0
        assert np.isnan(r["constraint_violation"][i])
    alone = scene.solve({"tcp pose": targets[[0, 2, 5]]})
    assert list(r["converged"][[0, 2, 5]]) == list(alone["converged"])
    np.testing.assert_allclose(r["q"][[0, 2, 5]], alone["q"], atol=1e-9)


def test_a_scene_copies_as_itself_and_pickles_as_how_to_load_it(scene, tmp_path, monkeypatch):
    import copy
    import pickle
    assert copy.copy(scene) is scene and copy.deepcopy(scene) is scene
    # loaded by a relative path, unpickled elsewhere (a multiprocessing worker's folder)
    monkeypatch.chdir(pathlib.Path(PANDA_PRESET).parents[3])
    relative = ikwb.load_scene("assets/robots/panda/preset.json")
    data = pickle.dumps(relative)
    monkeypatch.chdir(tmp_path)
    again = pickle.loads(data)
    assert again.path == str(pathlib.Path(PANDA_PRESET).resolve())
    assert again.objective_names == relative.objective_names
    targets = np.array(tcp_poses(scene, 4, seed=12))
    a, b = relative.solve({"tcp pose": targets}), again.solve({"tcp pose": targets})
    np.testing.assert_array_equal(a["q"], b["q"])


def test_an_empty_batch_is_an_empty_result(scene):
    for cols in (3, 4, 7):
        r = scene.solve({"tcp pose": np.zeros((0, cols))})
        assert r["q"].shape == (0, 8) and r["converged"].shape == (0,)
    assert scene.solve({"tcp pose": np.zeros((0, 7))}, sequential=True)["q"].shape == (0, 8)


def test_ctrl_c_stops_a_batch_between_chunks(scene):
    # 20000 unreachable rows (each gives up after about 6 ms here) would take about two
    # minutes; the interrupt, 0.5 s in, stops the batch at the end of the chunk running (16 or
    # 32 rows)
    import os
    import signal
    import threading
    import time
    far = np.tile([5.0, 0.0, 0.5], (20000, 1))
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        scene.solve({"tcp pose": far}, budget_ms=50, threads=1)
    timer.join()
    assert time.monotonic() - start < 20


def test_solve_errors(scene):
    # an empty selection of objectives is not the scene as it is (it solved one row of the
    # scene's targets)
    with pytest.raises(ValueError, match="the dict is empty; give an array per objective"):
        scene.solve({})
    # a value that is no array of numbers says what it is (it read "got ()")
    for value, name in ((None, "NoneType"), ("abc", "str")):
        with pytest.raises(ValueError, match=r"targets\['tcp pose'\]: expected an array of numbers "
                                             r"of shape \(n, 3\), \(n, 4\) or \(n, 7\), got "
                                             + name):
            scene.solve({"tcp pose": value})
    with pytest.raises(ValueError, match="no objective of that name; objectives with a target: "
                                         "'tcp pose'"):
        scene.solve({"nope": np.zeros((2, 3))})
    with pytest.raises(ValueError, match=r"objective 1 \(posture\) has no target"):
        scene.solve({"posture": np.zeros((2, 3))})
    with pytest.raises(ValueError, match=r"expected shape \(n, 3\) positions"):
        scene.solve({"tcp pose": np.zeros((2, 5))})
    with pytest.raises(ValueError, match=r"targets\['tcp pose'\]: expected shape \(n, 3\) "
                                         r"positions, \(n, 4\) quaternions x, y, z, w or "
                                         r"\(n, 7\) poses, got \(3,\)$"):
        scene.solve({"tcp pose": np.zeros(3)})
    with pytest.raises(ValueError, match=r"targets\['[^']+'\] row \d+: .*not unit"):
        scene.solve({"tcp pose": np.zeros((2, 7))})
    with pytest.raises(ValueError, match="unknown solver setting 'bogus'"):
        scene.solve(bogus=3)
    with pytest.raises(ValueError, match="expected a dict"):
        scene.solve([np.zeros((2, 3))])
    with pytest.raises(ValueError, match=r"joint_q: expected shape \(8,\)"):
        scene.solve(joint_q=np.zeros(3))
    # beyond the bound the command line keeps (it skips such a target line)
    with pytest.raises(ValueError, match=r"row 0 must be within 1e6 m of the origin per axis, "
                                         r"got \[10000000.0, 0.0, 0.0\]"):
        scene.solve({"tcp pose": [[1e7, 0, 0]]})
    with pytest.raises(ValueError):
        scene.joint_q[0] = 1.0  # a read-only copy: a write would be lost


def write_scene(path, objectives):
    path.write_text('{"version": 1, "robot": "panda", "objectives": [' + ", ".join(objectives)
                    + "]}")
    return path


def test_a_scene_is_solved_whole_or_refused_as_by_the_command_line(tmp_path):
    tcp = ('{"type": "position", "name": "p", "link": "panda_hand_tcp", '
           '"target": {"position": [0.5, 0, 0.4]}}')
    with pytest.raises(ikwb.SceneError, match=r"objective 0 \"p\" \(position\): unknown link "
                                              r"'nolink' \(the workbench skips it; "
                                              r"ikwb.load_scene does not\)"):
        ikwb.load_scene(write_scene(tmp_path / "link.json", [tcp.replace("panda_hand_tcp",
                                                                         "nolink")]))
    with pytest.raises(ikwb.SceneError, match="the scene has no objectives: nothing to solve"):
        ikwb.load_scene(write_scene(tmp_path / "none.json", []))
    with pytest.raises(ikwb.SceneError, match="every objective of the scene is disabled"):
        ikwb.load_scene(write_scene(tmp_path / "off.json",
                                    [tcp.replace('"type"', '"enabled": false, "type"')]))
    with pytest.raises(ikwb.SceneError, match=r"no enabled objective pulls anywhere \(\"p\": "
                                              r"weight 0, or every axis weight 0\)"):
        ikwb.load_scene(write_scene(tmp_path / "idle.json",
                                    [tcp.replace('"type"', '"weight": 0, "type"')]))
    # a name two objectives share cannot take targets
    two = ikwb.load_scene(write_scene(tmp_path / "two.json",
                                      [tcp, tcp.replace("panda_hand_tcp", "panda_link7")]))
    with pytest.raises(ValueError, match="targets\\['p'\\]: 2 objectives are named 'p'"):
        two.solve({"p": [[0.4, 0.1, 0.3]]})


def test_load_scene_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ikwb.SceneError, match="bad.json"):
        ikwb.load_scene(str(bad))
    assert issubclass(ikwb.SceneError, ValueError)
    # paths may be any os.PathLike
    assert ikwb.load_scene(pathlib.Path(PANDA_PRESET)).objective_names[0] == "tcp pose"
    # a scene copied away from the SRDF its self_collision objective needs: refused (loaded with
    # a note in `warnings`, it checked the neighbouring links that touch and converged nowhere)
    copy = tmp_path / "stance.json"
    copy.write_text((ROOT / "assets" / "demos" / "humanoid_stance.json").read_text())
    with pytest.raises(ikwb.SceneError, match=r"srdf: .*humanoid.srdf: cannot be read: its "
                       r"disabled pairs are the ones objective \"self collision\""):
        ikwb.load_scene(str(copy))


def test_equals_the_command_line(scene, cli, tmp_path):
    poses = tcp_poses(scene, 10, seed=32)
    header = ["tcp pose." + s for s in ("x", "y", "z", "qx", "qy", "qz", "qw")]
    with open(tmp_path / "t.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for p in poses:
            w.writerow([repr(float(v)) for v in p])
    subprocess.run([cli, "solve", "--scene", PANDA_PRESET, "--targets", str(tmp_path / "t.csv"),
                    "--out", str(tmp_path / "out.csv")], check=True, capture_output=True)
    rows = list(csv.reader(open(tmp_path / "out.csv")))[1:]
    expected = np.array([[float(v) for v in row] for row in rows])
    r = scene.solve({"tcp pose": poses})
    # the same solves; not bit for bit: the CSV path renormalises the quaternions in another
    # translation unit, which may round the last bit differently (measured: up to 2e-9 rad apart)
    np.testing.assert_array_equal(r["converged"], expected[:, 0] == 1)
    np.testing.assert_allclose(r["q"], expected[:, 4:], atol=1e-6)
    np.testing.assert_allclose(r["position_error"], expected[:, 1], atol=1e-7)


def test_a_compromise_out_of_reach_equals_the_command_line_to_the_bit(cli, tmp_path):
    # targets out of reach: the compromise is the first local minimum a seed's descent meets, so a
    # last-bit difference between the program's and the module's copies of the solver moved it
    # (GCC's vectorizer fused multiply-adds in some copies despite -ffp-contract=off: 20 of 24
    # humanoid rows settled apart, up to 0.75 rad; built with -mno-fma they are the same floats)
    path = str(ROOT / "assets" / "robots" / "humanoid" / "preset.json")
    humanoid = ikwb.load_scene(path)
    hand = np.asarray(humanoid.objectives[humanoid.objective_names.index("left hand")]["target"]
                      ["position"])
    rng = np.random.default_rng(7)
    directions = rng.normal(size=(4, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    targets = hand + directions * rng.uniform(2.0, 4.0, size=(4, 1))
    with open(tmp_path / "t.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["left hand." + s for s in "xyz"])
        for p in targets:
            w.writerow([repr(float(v)) for v in p])
    # without the batch's 1 s budget a target, which a loaded machine may cut at another
    # iteration in each
    subprocess.run([cli, "solve", "--scene", path, "--targets", str(tmp_path / "t.csv"),
                    "--out", str(tmp_path / "out.csv"), "--budget-ms", "0"], check=True,
                   capture_output=True)
    rows = list(csv.reader(open(tmp_path / "out.csv")))[1:]
    expected = np.array([[float(v) for v in row] for row in rows])
    r = humanoid.solve({"left hand": targets}, budget_ms=0)
    assert not r["converged"].any()
    # the CSV's shortest round-trip decimals read back to the same doubles
    np.testing.assert_array_equal(r["q"], expected[:, 4:])


def test_a_scene_without_a_sampler_draws_its_seeds_as_the_command_line_does(scene, cli, tmp_path):
    # the preset's 16 seeds with no sampler named: the command line drew them from a Roberts
    # sequence and Python started all 16 at joint_q (every row differed, up to 4.2 rad); a sampler
    # the scene names, none too, is kept
    record = json.loads(pathlib.Path(PANDA_PRESET).read_text())
    record["robot"] = str(pathlib.Path(PANDA_PRESET).parent / record["robot"])
    del record["solver"]["sampler"]
    unnamed = tmp_path / "unnamed.json"
    unnamed.write_text(json.dumps(record))
    record["solver"]["sampler"] = "none"
    named = tmp_path / "named.json"
    named.write_text(json.dumps(record))
    assert ikwb.load_scene(str(unnamed)).settings["sampler"] == "roberts"
    assert ikwb.load_scene(str(named)).settings["sampler"] == "none"
    poses = tcp_poses(scene, 8, seed=33)
    with open(tmp_path / "t.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["tcp pose." + s for s in ("x", "y", "z", "qx", "qy", "qz", "qw")])
        for p in poses:
            w.writerow([repr(float(v)) for v in p])
    for path in (unnamed, named):
        subprocess.run([cli, "solve", "--scene", str(path), "--targets", str(tmp_path / "t.csv"),
                        "--out", str(tmp_path / "out.csv")], check=True, capture_output=True)
        rows = list(csv.reader(open(tmp_path / "out.csv")))[1:]
        expected = np.array([[float(v) for v in row] for row in rows])
        r = ikwb.load_scene(str(path)).solve({"tcp pose": poses})
        np.testing.assert_allclose(r["q"], expected[:, 4:], atol=1e-6, err_msg=str(path))


def test_scene_locks_limits_and_obstacles_apply(cli, tmp_path):
    # a scene's joint_locks, joint_limits and obstacles reach Scene.solve as they reach the CLI
    path = tmp_path / "wall.json"
    path.write_text("""{
      "format": "ikwb-scene", "version": 1, "robot": "panda",
      "joint_q": {"panda_joint1": 0.3},
      "joint_locks": ["panda_joint1"],
      "joint_limits": {"panda_joint4": [-2.5, -1.2]},
      "objectives": [
        {"type": "position", "name": "reach", "link": "panda_hand_tcp",
         "target": {"position": [0.6, 0.15, 0.3]}},
        {"type": "world_collision", "name": "world", "hard": true}],
      "obstacles": [{"name": "ball", "type": "sphere", "radius": 0.1,
                     "pose": {"position": [0.45, 0.1, 0.45], "orientation": [0, 0, 0, 1]}}]
    }""")
    s = ikwb.load_scene(str(path))
    r = s.solve({"reach": np.array([[0.6, 0.15, 0.3]])})
    q = r["q"][0]
    assert q[0] == pytest.approx(0.3, abs=1e-12)
    assert -2.5 - 1e-9 <= q[3] <= -1.2 + 1e-9
    (tmp_path / "t.csv").write_text("reach.x,reach.y,reach.z\n0.6,0.15,0.3\n")
    subprocess.run([cli, "solve", "--scene", str(path), "--targets", str(tmp_path / "t.csv"),
                    "--out", str(tmp_path / "out.csv")], check=True, capture_output=True)
    expected = [float(v) for v in list(csv.reader(open(tmp_path / "out.csv")))[1]]
    np.testing.assert_allclose(q, expected[4:], atol=1e-6)


def test_a_workbench_scenes_per_frame_settings_are_lifted_as_by_the_command_line(tmp_path):
    path = tmp_path / "frames.json"
    path.write_text("""{
      "format": "ikwb-scene", "version": 1, "robot": "panda",
      "objectives": [{"type": "position", "name": "reach", "link": "panda_hand_tcp",
                      "target": {"position": [0.5, 0.1, 0.4]}}],
      "solver": {"iterations": 20, "restarts": 0, "stall": 0, "settle_iterations": 2,
                 "budget_ms": 0}
    }""")
    s = ikwb.load_scene(str(path))
    assert (s.settings["iterations"], s.settings["restarts"], s.settings["stall"],
            s.settings["settle_iterations"], s.settings["budget_ms"]) == (60, 50, 4, 0, 1000)
    assert any("solving with iterations 60, restarts 50, stall 4, settle_iterations 0 (until "
               "settled), budget_ms 1000" in w for w in s.warnings), s.warnings
    # the call sets any of them exactly
    r = s.solve(iterations=1, restarts=0)
    assert r["iterations"][0] <= 1


def test_independent_rows_try_their_seeds_in_turn_unless_asked_for_the_closest():
    # the humanoid stance demo carries the workbench's 16 seeds with prefer_closest; in a batch
    # every seed of every row ran to its end, restarts and all, for the answer closest to the
    # start: about 300 times the work of the first seed, which converges from the scene's
    # configuration (a review: 8-18 rows a second)
    s = ikwb.load_scene(str(ROOT / "assets" / "demos" / "humanoid_stance.json"))
    assert any("prefer_closest is off for independent rows" in w for w in s.warnings), s.warnings
    m = s.model
    q = np.tile(s.joint_q, (3, 1))
    elbow = m.joint_q_start[m.joint_key.index("right_elbow_joint")]
    q[:, elbow] += np.array([-0.2, -0.3, -0.4])
    body_q, _ = ikwb.eval_fk_batch(m, q)
    hand = {o["name"]: o for o in s.objectives}["right hand"]
    link = body_q[:, m.body_index(hand["link"])]
    offset = rotate(link[:, 3:], np.tile(np.array(hand.get("offset", [0, 0, 0])), (3, 1)))
    targets = {"right hand": np.concatenate([link[:, :3] + offset, link[:, 3:]], axis=1)}
    result = s.solve(targets)
    assert result["converged"].all()
    first_seed = s.solve(targets, n_seeds=1)
    np.testing.assert_array_equal(result["q"], first_seed["q"])
    # asked for, every seed runs and the closest converged answer is kept
    assert s.solve(targets, prefer_closest=True)["converged"].all()


def test_the_backend_that_ran_and_the_limits_in_force(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({
        "version": 1, "robot": "panda",
        "joint_limits": {"panda_joint1": [-1.0, 0.5]},
        "objectives": [{"type": "position", "name": "tcp", "link": "panda_hand_tcp",
                        "target": {"position": [0.4, 0.0, 0.5]}}]}))
    scene = ikwb.load_scene(path)
    assert scene.joint_limit_lower[0] == -1.0 and scene.joint_limit_upper[0] == 0.5
    assert scene.joint_limit_upper[1] == scene.model.joint_limit_upper[1]
    assert not scene.joint_limit_lower.flags.writeable
    r = scene.solve()
    assert r["backend"] == "cpu" and r["backend_note"] == ""
    # CUDA asked for: it ran, or the note says why the CPU did
    r = scene.solve(backend="cuda")
    assert r["backend"] == "cuda" or (r["backend"] == "cpu" and "CUDA" in r["backend_note"])
    # the module registers the CUDA backend where the build has one, as the ikwb command does
    status = ikwb.cuda_status()
    assert set(status) == {"available", "reason"}
    assert "does not register" not in status["reason"]
    assert status["available"] == (r["backend"] == "cuda")
    assert status["available"] or status["reason"] in r["backend_note"]


def test_independent_rows_far_from_the_start_begin_near_their_targets():
    """Motion capture in world coordinates, 50 m from the scene's start: each row's floating base
    starts where its targets are (it took 260 iterations a row from the start's base, 1 m a step,
    and 10 of 199 rows did not converge)."""
    scene = ikwb.load_scene(str(ROOT / "assets" / "robots" / "humanoid" / "preset.json"))
    objectives = {o["name"]: o for o in scene.objectives}
    targets = {}
    shift = np.array([[0, 0, 0], [50, 0, 0], [49.9, 20, 0], [0.5, 0, 0]], dtype=float)
    for name in ("left foot", "right foot", "left hand", "right hand"):
        t = objectives[name]["target"]
        targets[name] = np.hstack([np.array(t["position"]) + shift,
                                   np.tile(t["orientation"], (len(shift), 1))])
    r = scene.solve(targets)
    assert r["converged"].all()
    assert r["iterations"].max() < 60, r["iterations"]
    # the far rows' bases go the whole way (the 0.5 m row starts at the start and solves there)
    assert np.allclose(r["q"][:3, :3] - scene.joint_q[:3], shift[:3], atol=1e-3)
    # in a sequence, a row whose targets jump far from the answer before starts moved too
    r = scene.solve(targets, sequential=True)
    assert r["converged"].all()
    assert r["iterations"].max() < 60, r["iterations"]
    # a start given per row is the caller's, as it is
    r = scene.solve(targets, joint_q=np.tile(scene.joint_q, (len(shift), 1)), iterations=5,
                    restarts=0)
    assert not r["converged"][1]


def test_a_walk_in_sequence_keeps_the_posture_wherever_the_base_goes():
    """Feet and hands carried 1 m forward together: the joints stay at the rest posture and the
    base goes the whole metre (the posture pulled the floating base back toward its start in the
    null space, and the robot leaned more with every metre: 0.094 rad off after this one)."""
    scene = ikwb.load_scene(str(ROOT / "assets" / "robots" / "humanoid" / "preset.json"))
    objectives = {o["name"]: o for o in scene.objectives}
    dx = np.linspace(0, 1.0, 200)
    targets = {}
    for name in ("left foot", "right foot", "left hand", "right hand"):
        t = objectives[name]["target"]
        position = np.array(t["position"]) + np.outer(dx, [1, 0, 0])
        targets[name] = np.hstack([position, np.tile(t["orientation"], (len(dx), 1))])
    r = scene.solve(targets, sequential=True)
    assert r["converged"].all()
    assert abs(r["q"][-1, 0] - 1.0) < 2e-3
    assert np.abs(r["q"][-1, 7:] - scene.joint_q[7:]).max() < 5e-3
