"""ikwb.ik: newton.ik-shaped objectives and IKSolver (targets per problem, in-place updates,
per-problem results), every objective kind, and the ValueError cases."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ikwb
from ikwb import ik
from conftest import TURNTABLE, random_configurations


def fk(model, qs):
    return ikwb.eval_fk_batch(model, np.atleast_2d(qs))[0]


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def quat_angle(a, b):
    return 2 * np.arccos(min(1.0, abs(float(np.dot(a, b)))))


def rotate(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def batch_settings():
    return dict(n_seeds=4, sampler=ik.IKSampler.ROBERTS, restarts=20, stall=10, threads=2)


def test_position_objective_api():
    targets = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    o = ik.IKObjectivePosition(3, [0, 0, 0.1], targets, weight=2.0)
    assert o.residual_dim() == 3 and o.supports_analytic()
    assert o.weight == 2.0 and not o.hard and o.problem_count == 2 and o.kind == "position"
    np.testing.assert_array_equal(o.target_positions, targets)
    o.set_target_position(1, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(o.target_positions[1], [1, 2, 3])
    o.set_target_positions(targets * 2)
    np.testing.assert_array_equal(o.target_positions, targets * 2)
    with pytest.raises(ValueError, match=r"set_target_positions: expected shape \(2, 3\)"):
        o.set_target_positions(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="problem_idx 2 out of range"):
        o.set_target_position(2, [0, 0, 0])
    with pytest.raises(ValueError, match=r"new_position must be within 1e6 m of the origin per "
                                         r"axis, got \[1e\+300, 0.0, 0.0\]"):
        o.set_target_position(0, [1e300, 0, 0])
    with pytest.raises(ValueError, match="read-only"):
        o.target_positions[0, 0] = 9.0  # a copy: the write would be lost
    with pytest.raises(ValueError, match=r"set_target_position new_position must be finite, "
                       r"got \[nan, 0.0, 0.0\]"):
        o.set_target_position(0, [np.nan, 0, 0])
    # offsets and per-axis weights are checked when given, not when a solver adds the objective
    with pytest.raises(ValueError, match=r"^IKObjectivePosition position_weights must be "
                       r"finite, got \[nan, 1.0, 1.0\]$"):
        ik.IKObjectivePosition(3, [0, 0, 0], targets, position_weights=[np.nan, 1, 1])
    with pytest.raises(ValueError, match=r"^IKObjectiveRotation rotation_weights must be >= 0"):
        ik.IKObjectiveRotation(3, [0, 0, 0, 1], [[0, 0, 0, 1]], rotation_weights=[1, -1, 1])
    with pytest.raises(ValueError, match=r"^IKObjectivePose link_offset must be finite"):
        ik.IKObjectivePose(3, [0, np.inf, 0], [[0, 0, 0, 0, 0, 0, 1]])
    with pytest.raises(ValueError, match="weight must be finite and >= 0"):
        o.weight = -1.0
    with pytest.raises(ValueError, match=r"link_offset: expected shape \(3,\)"):
        ik.IKObjectivePosition(3, [0, 0], targets)


def test_solver_reaches_fk_targets_and_reports_per_problem(panda):
    n = 24
    tcp = panda.body_index("panda_hand_tcp")
    goal_q = random_configurations(panda, n, seed=11)
    poses = fk(panda, goal_q)[:, tcp]
    obj = ik.IKObjectivePose(tcp, [0, 0, 0], poses)
    solver = ik.IKSolver(panda, n, [obj], **batch_settings())
    assert repr(solver) == (f"<ikwb.ik.IKSolver 'panda': {n} problems x {solver.settings['n_seeds']}"
                            " seeds, 1 objectives, cpu>")
    with pytest.raises(RuntimeError, match="no results before the first step"):
        solver.converged
    q = np.tile(panda.middle_configuration(), (n, 1))
    solver.step(q, q, iterations=60)
    conv = solver.converged
    assert conv.dtype == bool and conv.shape == (n,)
    assert conv.sum() >= n - 1
    assert solver.iterations.dtype == np.int32 and (solver.iterations > 0).all()
    got = fk(panda, q)[:, tcp]
    for i in np.flatnonzero(conv):
        assert np.linalg.norm(got[i, :3] - poses[i, :3]) < 1e-4
        assert quat_angle(got[i, 3:], poses[i, 3:]) < 1e-3
        assert solver.position_errors[i] < 1e-4 and solver.rotation_errors[i] < 1e-3
    assert solver.total_residual_count == 6 and solver.n_problems == n
    assert solver.settings["n_seeds"] == 4 and solver.settings["sampler"] == "roberts"

    # targets update in place: the next step solves the new ones
    new_q = random_configurations(panda, n, seed=12)
    obj.set_target_poses(fk(panda, new_q)[:, tcp])
    obj.set_target_pose(0, fk(panda, new_q[5])[0, tcp])
    out = np.zeros_like(q)
    solver.step(q, out)
    got = fk(panda, out)[:, tcp]
    ok = solver.converged
    assert ok.sum() >= n - 1
    want = fk(panda, new_q)[:, tcp]
    want[0] = want[5]
    for i in np.flatnonzero(ok):
        assert np.linalg.norm(got[i, :3] - want[i, :3]) < 1e-4


def test_position_objective_solves_in_newton_shape(panda):
    tcp = panda.body_index("panda_hand_tcp")
    goal = fk(panda, random_configurations(panda, 8, seed=13))[:, tcp, :3]
    obj = ik.IKObjectivePosition(tcp, np.zeros(3), goal)
    limits = ik.IKObjectiveJointLimit(panda.joint_limit_lower, panda.joint_limit_upper, weight=0.1)
    solver = ik.IKSolver(panda, 8, [obj, limits], optimizer=ik.IKOptimizer.LM,
                         jacobian_mode=ik.IKJacobianType.ANALYTIC, sampler=ik.IKSampler.ROBERTS,
                         n_seeds=8)
    assert limits.residual_dim() == panda.joint_dof_count
    q_in = np.tile(panda.middle_configuration(), (8, 1))
    q_out = np.empty_like(q_in)
    solver.step(q_in, q_out, iterations=100)
    assert solver.converged.all()
    np.testing.assert_allclose(fk(panda, q_out)[:, tcp, :3], goal, atol=1e-4)


@pytest.mark.parametrize("mode", ["AUTODIFF", "FINITE_DIFFERENCE", "MIXED"])
def test_jacobian_modes_agree_with_analytic(panda, mode):
    tcp = panda.body_index("panda_hand_tcp")
    goal = fk(panda, random_configurations(panda, 4, seed=14))[:, tcp]
    results = []
    for m in ["ANALYTIC", mode]:
        s = ik.IKSolver(panda, 4, [ik.IKObjectivePose(tcp, [0, 0, 0], goal)],
                        jacobian_mode=getattr(ik.IKJacobianType, m), threads=1)
        q = np.tile(panda.middle_configuration(), (4, 1))
        s.step(q, q, iterations=30)
        results.append((q, s.converged))
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_allclose(results[0][0], results[1][0], atol=1e-4)


def test_lbfgs_optimizer(panda):
    tcp = panda.body_index("panda_hand_tcp")
    q_goal = panda.middle_configuration() + 0.2
    goal = fk(panda, q_goal)[:, tcp, :3]
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal)], optimizer="lbfgs")
    q = panda.middle_configuration()[None, :].copy()
    s.step(q, q, iterations=300)
    assert s.settings["optimizer"] == "lbfgs"
    assert np.linalg.norm(fk(panda, q)[0, tcp, :3] - goal[0]) < 1e-3


def test_rotation_objective_with_link_offset_rotation(panda):
    hand = panda.body_index("panda_hand")
    qs = random_configurations(panda, 4, seed=15)
    link_rot = fk(panda, qs)[:, hand, 3:]
    offset = np.array([0, 0, np.sin(0.4), np.cos(0.4)])
    targets = np.array([quat_mul(r, offset) for r in link_rot])
    obj = ik.IKObjectiveRotation(hand, offset, targets)
    assert obj.residual_dim() == 3
    np.testing.assert_allclose(obj.target_rotations, targets)
    s = ik.IKSolver(panda, 4, [obj], n_seeds=4, sampler="roberts")
    q = np.tile(panda.middle_configuration(), (4, 1))
    s.step(q, q)
    assert s.converged.all()
    got = fk(panda, q)[:, hand, 3:]
    for i in range(4):
        assert quat_angle(quat_mul(got[i], offset), targets[i]) < 1e-3
    with pytest.raises(ValueError, match="not unit"):
        obj.set_target_rotation(0, [0, 0, 0, 2])
    # Newton's fourth argument is canonicalize_quat_err: a bool there is not taken for the weight
    with pytest.raises(TypeError, match="weight: got a bool; Newton's fourth argument "
                                        "canonicalize_quat_err has no counterpart here"):
        ik.IKObjectiveRotation(hand, offset, targets, False)
    with pytest.raises(TypeError, match="weight: expected a number, got str"):
        ik.IKObjectiveRotation(hand, offset, targets, "1")
    assert ik.IKObjectiveRotation(hand, offset, targets, 2).weight == 2.0


def test_joint_limit_objective_limits_replace_the_models(panda):
    tcp = panda.body_index("panda_hand_tcp")
    lo, hi = panda.joint_limit_lower.copy(), panda.joint_limit_upper.copy()
    j1 = panda.joint_qd_start[panda.joint_index("panda_joint1")]
    lo[j1], hi[j1] = 0.2, 0.4
    goal = fk(panda, random_configurations(panda, 6, seed=16))[:, tcp, :3]
    s = ik.IKSolver(panda, 6, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal),
                               ik.IKObjectiveJointLimit(lo, hi)], n_seeds=4, sampler="uniform")
    q = np.tile(panda.middle_configuration(), (6, 1))
    s.step(q, q)
    assert ((q[:, j1] >= 0.2 - 1e-12) & (q[:, j1] <= 0.4 + 1e-12)).all()
    with pytest.raises(ValueError, match=r"dof 0 \(in joint_qd order\) "
                       r"has lower 0\.4 and upper 0\.2: each must be a number"):
        ik.IKObjectiveJointLimit(hi, lo)
    nan_lo = lo.copy()
    nan_lo[1] = np.nan
    with pytest.raises(ValueError, match="dof 1 .* has lower nan and upper"):
        ik.IKObjectiveJointLimit(nan_lo, hi)
    # the second finger mimics the first (both [0, 0.04] m): the first's limits keep it
    f = panda.joint_qd_start[panda.joint_index("panda_finger_joint1")]
    lo[f], hi[f] = -0.1, 0.1
    s = ik.IKSolver(panda, 6, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal),
                               ik.IKObjectiveJointLimit(lo, hi)], n_seeds=4, sampler="uniform")
    q = np.tile(panda.middle_configuration(), (6, 1))
    q[:, f] = -0.08
    s.step(q, q)
    assert ((q[:, f] >= 0) & (q[:, f] <= 0.04)).all()
    lo[f], hi[f] = 0.05, 0.1
    with pytest.raises(ValueError, match=r"limits \[0\.05, 0\.1\] of joint 'panda_finger_joint1' "
                       r"\(dof 7\) have no value that keeps its mimic joint 'panda_finger_joint2'"):
        ik.IKSolver(panda, 1, [ik.IKObjectiveJointLimit(lo, hi)])
    # an interval without a finite value (lower +inf, upper -inf): the solver wrote inf
    for bad_lo, bad_hi in ((np.inf, np.inf), (-np.inf, -np.inf)):
        lo2, hi2 = panda.joint_limit_lower.copy(), panda.joint_limit_upper.copy()
        lo2[3], hi2[3] = bad_lo, bad_hi
        with pytest.raises(ValueError, match=r"dof 3 \(in joint_qd order\) has lower .* with a "
                                             r"finite value between them"):
            ik.IKObjectiveJointLimit(lo2, hi2)
    with pytest.raises(ValueError, match="limits have 3 values, joint_dof_count is 8"):
        ik.IKSolver(panda, 1, [ik.IKObjectiveJointLimit(np.zeros(3), np.ones(3))])
    with pytest.raises(ValueError, match=r"one row per dof; .* \(or from its limit arrays\)$"):
        ik.IKObjectiveJointLimit().residual_dim()
    with pytest.raises(ValueError, match="holds the objective$"):  # a posture has no limits
        ik.IKObjectivePosture().residual_dim()


def test_weight_and_enabled_edits_apply_at_next_step(panda):
    tcp = panda.body_index("panda_hand_tcp")
    q0 = panda.middle_configuration()
    a = fk(panda, q0 + 0.3)[:, tcp, :3]
    b = fk(panda, q0 - 0.3)[:, tcp, :3]
    oa, ob = ik.IKObjectivePosition(tcp, [0, 0, 0], a), ik.IKObjectivePosition(tcp, [0, 0, 0], b)
    s = ik.IKSolver(panda, 1, [oa, ob])
    ob.enabled = False
    q = q0[None, :].copy()
    s.step(q, q)
    assert np.linalg.norm(fk(panda, q)[0, tcp, :3] - a[0]) < 1e-4
    ob.enabled, oa.weight = True, 0.0
    q = q0[None, :].copy()
    s.step(q, q)
    assert np.linalg.norm(fk(panda, q)[0, tcp, :3] - b[0]) < 1e-4


def test_whole_body_and_pair_kinds(panda):
    tcp = panda.body_index("panda_hand_tcp")
    link0 = panda.body_index("panda_link0")
    q0 = panda.middle_configuration()
    # com: the mass-weighted centre of the bodies' COMs at a reachable configuration
    qg = q0 + 0.25
    bq = fk(panda, qg)[0]
    com = sum(m * (p[:3] + rotate(p[3:], c)) for m, p, c in
              zip(panda.body_mass, bq, panda.body_com)) / panda.body_mass.sum()
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveCom(com[None, :])])
    q = q0[None, :].copy()
    s.step(q, q)
    assert s.converged[0] and s.position_errors[0] < 1e-4
    # axis_align: the tool's z axis straight down
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveAxisAlign(tcp, [0, 0, 1], [0, 0, -1])])
    q = q0[None, :].copy()
    s.step(q, q)
    z = rotate(fk(panda, q)[0, tcp, 3:], np.array([0, 0, 1.0]))
    np.testing.assert_allclose(z, [0, 0, -1], atol=1e-3)
    # look_at: the tool's z axis points at a point
    point = np.array([[0.5, 0.3, 0.1]])
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveLookAt(tcp, [0, 0, 0], [0, 0, 1], point)])
    q = q0[None, :].copy()
    s.step(q, q)
    x = fk(panda, q)[0, tcp]
    d = point[0] - x[:3]
    assert np.dot(rotate(x[3:], np.array([0, 0, 1.0])), d / np.linalg.norm(d)) > 1 - 1e-6
    # look_at a point of another link: link 3's x axis at the tool point, which moves with it
    link3 = panda.body_index("panda_link3")
    follow = ik.IKObjectiveLookAt(link3, [0, 0, 0], [1, 0, 0], target_link=tcp,
                                  target_offset=[0, 0, 0.02])
    assert follow.problem_count == 0
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], point), follow])
    q = q0[None, :].copy()
    s.step(q, q, iterations=200)
    bq = fk(panda, q)[0]
    at = bq[tcp, :3] + rotate(bq[tcp, 3:], np.array([0, 0, 0.02]))
    d = at - bq[link3, :3]
    assert np.dot(rotate(bq[link3, 3:], np.array([1.0, 0, 0])), d / np.linalg.norm(d)) > 1 - 1e-4
    with pytest.raises(ValueError, match="both were given"):
        ik.IKObjectiveLookAt(link3, [0, 0, 0], [1, 0, 0], point, target_link=tcp)
    with pytest.raises(ValueError, match="neither was given"):
        ik.IKObjectiveLookAt(link3, [0, 0, 0], [1, 0, 0])
    # min_distance (hard) against a target too close to the base
    near = np.array([[0.25, 0.0, 0.3]])
    objs = [ik.IKObjectivePosition(tcp, [0, 0, 0], near),
            ik.IKObjectiveMinDistance(tcp, [0, 0, 0], link0, [0, 0, 0], 0.5)]
    s = ik.IKSolver(panda, 1, objs)
    q = q0[None, :].copy()
    s.step(q, q, iterations=200)
    assert np.linalg.norm(fk(panda, q)[0, tcp, :3]) > 0.5 - 1e-3
    assert s.constraint_violations[0] < 1e-3
    # relative_ball: the tool point reaches a point fixed on link 0
    objs = [ik.IKObjectiveRelativeBall(link0, [0.4, 0.2, 0.4], tcp, [0, 0, 0])]
    s = ik.IKSolver(panda, 1, objs)
    q = q0[None, :].copy()
    s.step(q, q)
    np.testing.assert_allclose(fk(panda, q)[0, tcp, :3], [0.4, 0.2, 0.4], atol=1e-4)
    # relative_fixed: the hand keeps a pose relative to link 0
    hand = panda.body_index("panda_hand")
    rel = fk(panda, qg)[0, hand]  # link0 sits at the origin
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveRelativeFixed(link0, hand, rel)])
    q = q0[None, :].copy()
    s.step(q, q)
    got = fk(panda, q)[0, hand]
    np.testing.assert_allclose(got[:3], rel[:3], atol=1e-4)
    assert quat_angle(got[3:], rel[3:]) < 1e-3
    # posture alone: the rest configuration
    rest = np.clip(q0 + 0.1, panda.joint_limit_lower, panda.joint_limit_upper)
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosture(rest, weight=1.0)])
    q = q0[None, :].copy()
    s.step(q, q, iterations=50)
    np.testing.assert_allclose(q[0], rest, atol=1e-5)


def test_tolerance_and_balance_kinds(panda):
    tcp = panda.body_index("panda_hand_tcp")
    link0 = panda.body_index("panda_link0")
    q0 = panda.middle_configuration()
    x0 = fk(panda, q0)[0, tcp]
    # position_box: the tool within 2 cm of a point 10 cm away, along x in the target frame only
    goal = x0.copy()
    goal[:3] += [0.1, 0.0, 0.0]
    box = ik.IKObjectivePositionBox(tcp, [0, 0, 0], goal[None, :], [-0.02, -np.inf, -0.02],
                                    [0.02, np.inf, 0.02])
    assert box.residual_dim() == 3 and box.hard and box.kind == "position_box"
    s = ik.IKSolver(panda, 1, [box])
    q = q0[None, :].copy()
    s.step(q, q, iterations=100)
    local = rotate(np.array([-goal[3], -goal[4], -goal[5], goal[6]]), fk(panda, q)[0, tcp, :3] - goal[:3])
    assert abs(local[0]) <= 0.02 + 1e-4 and abs(local[2]) <= 0.02 + 1e-4
    # orientation_cone: within 0.1 rad of an orientation 0.5 rad away
    turned = quat_mul(np.array([np.sin(0.25), 0, 0, np.cos(0.25)]), x0[3:])
    cone = ik.IKObjectiveOrientationCone(tcp, turned[None, :], 0.1)
    assert cone.residual_dim() == 1
    s = ik.IKSolver(panda, 1, [cone])
    q = q0[None, :].copy()
    s.step(q, q, iterations=100)
    assert quat_angle(fk(panda, q)[0, tcp, 3:], turned) <= 0.1 + 1e-3
    # manipulability: a floor above the measure now is met
    manip = ik.IKObjectiveManipulability(tcp, min_measure=0.05, hard=True)
    assert manip.residual_dim() == 4
    s = ik.IKSolver(panda, 1, [manip])
    q = q0[None, :].copy()
    s.step(q, q, iterations=100)
    assert s.constraint_violations[0] < 1e-3
    # support_polygon: a square on the base; rows per point; bad links are ValueErrors
    pts = np.array([[-0.3, -0.3, 0], [0.3, -0.3, 0], [0.3, 0.3, 0], [-0.3, 0.3, 0]])
    sp = ik.IKObjectiveSupportPolygon([link0] * 4, pts)
    assert sp.residual_dim() == 4
    s = ik.IKSolver(panda, 1, [sp])
    q = q0[None, :].copy()
    s.step(q, q)
    assert s.converged[0]
    with pytest.raises(ValueError):
        ik.IKSolver(panda, 1, [ik.IKObjectiveSupportPolygon([99], [[0, 0, 0]])])
    with pytest.raises(ValueError):
        ik.IKObjectiveSupportPolygon([link0, link0], [[0, 0, 0]])
    # the points are checked where they are given, not when a solver is built
    with pytest.raises(ValueError, match="needs 1 to 32 contact points, got 0"):
        ik.IKObjectiveSupportPolygon([], np.zeros((0, 3)))
    with pytest.raises(ValueError, match="got 33"):
        ik.IKObjectiveSupportPolygon([link0] * 33, np.zeros((33, 3)))
    with pytest.raises(ValueError, match="contact point 1 has NaN"):
        ik.IKObjectiveSupportPolygon([link0] * 2, [[0, 0, 0], [0, np.nan, 0]])
    with pytest.raises(ValueError, match="-1 is not a link index"):
        ik.IKObjectiveSupportPolygon([-1], [[0, 0, 0]])
    with pytest.raises(ValueError):
        ik.IKSolver(panda, 1, [ik.IKObjectivePositionBox(tcp, [0, 0, 0], goal[None, :],
                                                         [0.1, 0, 0], [0, 0, 0])])


def test_solver_value_errors(panda):
    tcp = panda.body_index("panda_hand_tcp")
    obj = ik.IKObjectivePosition(tcp, [0, 0, 0], np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"objective 0 \(IKObjectivePosition\) has 2 targets, "
                                         r"n_problems is 3"):
        ik.IKSolver(panda, 3, [obj])
    with pytest.raises(ValueError, match="unknown solver setting 'bogus'; settings are: "):
        ik.IKSolver(panda, 2, [obj], bogus=1)
    with pytest.raises(ValueError, match="solver setting 'n_seeds'"):
        ik.IKSolver(panda, 2, [obj], n_seeds=0)
    # lambda_initial is the setting 'damping', named as the caller wrote it; a NaN reads as nan
    # (not JSON's null)
    with pytest.raises(ValueError, match=r"lambda_initial \(solver setting 'damping'\): nan is "
                                         r"not a number"):
        ik.IKSolver(panda, 2, [obj], lambda_initial=np.nan)
    with pytest.raises(ValueError, match=r"jacobian_mode \(solver setting 'jacobian'\): "
                                         r"\"bogus\" is not one of"):
        ik.IKSolver(panda, 2, [obj], jacobian_mode="bogus")
    with pytest.raises(ValueError, match="n_problems must be from 1 to 2147483647, got 0"):
        ik.IKSolver(panda, 0, [obj])
    # ints past C's range name the argument (pybind's TypeError named none)
    with pytest.raises(ValueError, match="n_problems must be from 1 to 2147483647, got 10{12}"):
        ik.IKSolver(panda, 10**12, [obj])
    with pytest.raises(ValueError, match="solver setting 'n_seeds'"):
        ik.IKSolver(panda, 2, [obj], n_seeds=10**12)
    with pytest.raises(TypeError, match="n_problems must be an int, got float"):
        ik.IKSolver(panda, 2.0, [obj])
    with pytest.raises(TypeError, match="n_problems must be an int, got bool"):
        ik.IKSolver(panda, True, [obj])
    # numpy's integers too (a count taken from an array's shape or a sum)
    assert ik.IKSolver(panda, np.int64(2), [obj]).n_problems == 2
    # rng_seed takes any 64-bit unsigned value (a plain int too); beyond, a ValueError that
    # names it
    for seed in (0, 1, 42, 2**32 + 1, 2**64 - 1, np.uint64(7), np.int64(3)):
        assert ik.IKSolver(panda, 2, [obj], rng_seed=seed).settings["rng_seed"] == int(seed)
    with pytest.raises(ValueError, match=r"solver setting 'rng_seed': -1 is not an integer >= 0"):
        ik.IKSolver(panda, 2, [obj], rng_seed=-1)
    # numpy's scalars read as Python's numbers
    s = ik.IKSolver(panda, 2, [obj], iterations=np.int64(50), tol_position=np.float32(1e-5))
    assert s.settings["iterations"] == 50
    assert abs(s.settings["tol_position"] - 1e-5) < 1e-12
    with pytest.raises(ValueError, match=r"solver setting 'rng_seed': 1180591620717411303424 is "
                                         r"out of range; expects an integer >= 0"):
        ik.IKSolver(panda, 2, [obj], rng_seed=2**70)
    with pytest.raises(ValueError, match=r"objective 0 \(IKObjectivePosition\): .*link"):
        ik.IKSolver(panda, 2, [ik.IKObjectivePosition(99, [0, 0, 0], np.zeros((2, 3)))])
    s = ik.IKSolver(panda, 2, [obj])
    q = np.zeros((2, panda.joint_coord_count))
    with pytest.raises(ValueError, match=r"joint_q_in: expected shape \(2, 8\), got \(2, 7\)"):
        s.step(q[:, :7], q)
    with pytest.raises(ValueError, match="joint_q_out: expected dtype float64"):
        s.step(q, q.astype(np.float32))
    with pytest.raises(ValueError, match="joint_q_out: expected a writable float64 numpy array"):
        s.step(q, q.tolist())
    with pytest.raises(ValueError, match="joint_q_in: expected numbers"):
        s.step(np.full((2, 8), "x"), q)
    assert "tol_position" in ik.solver_setting_keys()


def test_step_releases_the_gil(panda):
    import threading
    import time
    tcp = panda.body_index("panda_hand_tcp")
    n = 2000
    goal = fk(panda, random_configurations(panda, n, seed=17))[:, tcp]
    s = ik.IKSolver(panda, n, [ik.IKObjectivePose(tcp, [0, 0, 0], goal)], threads=1)
    ticks, done = [], threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    t = threading.Thread(target=count)
    t.start()
    q = np.tile(panda.middle_configuration(), (n, 1))
    try:
        t0 = time.perf_counter()
        s.step(q, q, iterations=40)
        t1 = time.perf_counter()
    finally:
        done.set()
        t.join()
    assert [x for x in ticks if t0 + 0.5 * (t1 - t0) < x < t1]


def test_custom_objective_in_python(panda):
    """A residual written in Python: the tool point at height 0.3 and x = 0.4 (2 rows)."""
    tcp = panda.body_index("panda_hand_tcp")
    calls = []

    def residual(q, body_q):
        calls.append(q.shape)
        return [body_q[tcp, 2] - 0.3, body_q[tcp, 0] - 0.4]

    custom = ik.IKObjectiveCustom(2, residual)
    assert custom.residual_dim() == 2 and not custom.supports_analytic()
    s = ik.IKSolver(panda, 2, [custom], threads=2)
    q = np.tile(panda.middle_configuration(), (2, 1))
    s.step(q, q)
    x = fk(panda, q)[:, tcp]
    np.testing.assert_allclose(x[:, 2], 0.3, atol=1e-5)
    np.testing.assert_allclose(x[:, 0], 0.4, atol=1e-5)
    assert calls and calls[0] == (panda.joint_coord_count,)

    def broken(q, body_q):
        raise KeyError("from the residual")

    s = ik.IKSolver(panda, 1, [ik.IKObjectiveCustom(1, broken)])
    with pytest.raises(KeyError, match="from the residual"):
        s.step(q[:1], q[:1])
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveCustom(3, lambda q, b: [0.0])])
    with pytest.raises(ValueError, match=r"IKObjectiveCustom residual \(custom objective 0\): "
                                         r"expected shape \(3,\)"):
        s.step(q[:1], q[:1])
    with pytest.raises(ValueError, match="dim must be > 0"):
        ik.IKObjectiveCustom(0, residual)


def test_steps_from_two_threads(panda):
    """Two Python threads stepping one solver take turns; each gets its own complete result."""
    import threading
    tcp = panda.body_index("panda_hand_tcp")
    goal = fk(panda, random_configurations(panda, 50, seed=18))[:, tcp]
    s = ik.IKSolver(panda, 50, [ik.IKObjectivePose(tcp, [0, 0, 0], goal)], n_seeds=2,
                    sampler="roberts")
    outs = [np.tile(panda.middle_configuration(), (50, 1)) for _ in range(4)]
    threads = [threading.Thread(target=s.step, args=(o, o)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    assert s.converged.shape == (50,)


def test_none_objective_or_model_is_a_type_error(panda):
    tcp = panda.body_index("panda_hand_tcp")
    pos = ik.IKObjectivePosition(tcp, [0, 0, 0], np.zeros((1, 3)))
    with pytest.raises(TypeError, match="IKSolver: objective 0 is None"):
        ik.IKSolver(panda, 1, [None])
    with pytest.raises(TypeError, match="IKSolver: objective 1 is None"):
        ik.IKSolver(panda, 1, [pos, None])
    with pytest.raises(TypeError, match="IKSolver: model is None"):
        ik.IKSolver(None, 1, [pos])


# run in a child process, so that a deadlock fails the test instead of hanging the suite
REENTRANT_SCRIPT = """
import numpy as np, ikwb
from ikwb import ik
m = ikwb.Model.from_urdf(PANDA)
tcp = m.body_index("panda_hand_tcp")
q = m.middle_configuration()[None, :].copy()
pos = ik.IKObjectivePosition(tcp, [0, 0, 0], [[0.4, 0.1, 0.5]])
solvers = {}

def steps_itself(qi, body_q):
    solvers["a"].step(q.copy(), q.copy())
    return [0.0]

solvers["a"] = ik.IKSolver(m, 1, [pos, ik.IKObjectiveCustom(1, steps_itself)], threads=2)
try:
    solvers["a"].step(q.copy(), q.copy())
    print("no error")
except RuntimeError as e:
    print("RuntimeError:", e)

# a residual of b steps a, whose residual steps b: the same solver, two threads apart
def steps_b(qi, body_q):
    solvers["b"].step(q.copy(), q.copy())
    return [0.0]

def steps_a(qi, body_q):
    solvers["a"].step(q.copy(), q.copy())
    return [0.0]

solvers["a"] = ik.IKSolver(m, 1, [pos, ik.IKObjectiveCustom(1, steps_b)], threads=2)
solvers["b"] = ik.IKSolver(m, 1, [pos, ik.IKObjectiveCustom(1, steps_a)], threads=2)
try:
    solvers["a"].step(q.copy(), q.copy())
    print("no error")
except RuntimeError as e:
    print("RuntimeError:", e)

# what a residual may do to its solver: edit objectives, read settings, step another solver;
# the edits apply at the next step
other = ik.IKSolver(m, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], [[0.3, 0.0, 0.5]])])
seen = []

def edits(qi, body_q):
    pos.weight = 2.0
    pos.set_target_position(0, [0.4, 0.1, 0.5])
    seen.append(solvers["c"].settings["iterations"])
    other.step(q.copy(), q.copy())
    return [0.0]

edit = ik.IKObjectiveCustom(1, edits)
solvers["c"] = ik.IKSolver(m, 1, [pos, edit], threads=2)
solvers["c"].step(q.copy(), q.copy())
edit.enabled = False
solvers["c"].step(q.copy(), q.copy())
print("edits", bool(seen), pos.weight, bool(other.converged[0]))

# two solvers whose residuals step each other, stepped from two threads at once: each step ends
# (a nested step finding the other solver busy raises) instead of the two waiting for each other
import threading
crossed = {}

def steps_y(qi, body_q):
    crossed["y"].step(q.copy(), q.copy(), iterations=1)
    return [0.0]

def steps_x(qi, body_q):
    crossed["x"].step(q.copy(), q.copy(), iterations=1)
    return [0.0]

crossed["x"] = ik.IKSolver(m, 1, [pos, ik.IKObjectiveCustom(1, steps_y)])
crossed["y"] = ik.IKSolver(m, 1, [pos, ik.IKObjectiveCustom(1, steps_x)])
outcomes = set()

def run(name):
    for _ in range(20):
        try:
            crossed[name].step(q.copy(), q.copy(), iterations=2)
            outcomes.add("stepped")
        except RuntimeError as e:
            outcomes.add(str(e).split(":")[1].strip()[:40])

threads = [threading.Thread(target=run, args=(n,)) for n in ("x", "y")]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("crossed", outcomes <= {"stepped", "step() called from within a step of the ",
                               "step() called from a residual while the "})
"""


def test_step_from_its_own_residual_raises_instead_of_deadlocking():
    from conftest import PANDA
    script = f"PANDA = {PANDA!r}\n" + textwrap.dedent(REENTRANT_SCRIPT)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    message = ("RuntimeError: IKSolver.step: step() called from within a step of the same "
               "solver (its residual)")
    assert lines == [message, message, "edits True 2.0 True", "crossed True"]


@pytest.mark.parametrize("hard", [True, False])
def test_non_finite_custom_residual_raises(panda, hard):
    q = panda.middle_configuration()[None, :].copy()
    before = q.copy()
    s = ik.IKSolver(panda, 1, [ik.IKObjectiveCustom(1, lambda q, b: [np.nan], hard=hard)])
    with pytest.raises(ValueError, match=r"^custom objective 0 returned a non-finite residual "
                                         r"\(row 0: nan\)$"):
        s.step(q, q)
    np.testing.assert_array_equal(q, before)
    tcp = panda.body_index("panda_hand_tcp")
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], [[0.4, 0.1, 0.5]]),
                               ik.IKObjectiveCustom(2, lambda q, b: [0.0, -np.inf], hard=hard)])
    with pytest.raises(ValueError, match=r"custom objective 1 returned a non-finite residual "
                                         r"\(row 1: -inf\)"):
        s.step(q, q)
    with pytest.raises(RuntimeError, match="no results before the first step"):
        s.converged


def test_converged_counts_tolerances_and_hard_rows_not_soft_custom_rows(panda):
    """docs/python.md: `converged` is about the task objectives' tolerances and the hard
    constraints; soft rows (a custom residual among them) are costs."""
    tcp = panda.body_index("panda_hand_tcp")
    q0 = panda.middle_configuration()
    goal = fk(panda, q0 + 0.2)[:, tcp, :3]
    never_met = ik.IKObjectiveCustom(1, lambda q, b: [1.0])
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal), never_met])
    q = q0[None, :].copy()
    s.step(q, q)
    assert s.converged[0] and s.position_errors[0] < 1e-4
    assert s.costs[0] == pytest.approx(0.5)
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal),
                               ik.IKObjectiveCustom(1, lambda q, b: [1.0], hard=True)])
    q = q0[None, :].copy()
    s.step(q, q)
    assert not s.converged[0] and s.constraint_violations[0] == pytest.approx(1.0)
    assert "soft rows" in ik.IKSolver.converged.__doc__.lower()


def test_joint_limit_objectives_apply_when_enabled_and_combine(panda):
    tcp = panda.body_index("panda_hand_tcp")
    q0 = panda.middle_configuration()
    j1 = panda.joint_qd_start[panda.joint_index("panda_joint1")]
    goal_q = q0.copy()
    goal_q[j1] += 0.5
    goal = fk(panda, goal_q)[:, tcp, :3]

    def limits(lo1, hi1):
        lo, hi = panda.joint_limit_lower.copy(), panda.joint_limit_upper.copy()
        lo[j1], hi[j1] = lo1, hi1
        return ik.IKObjectiveJointLimit(lo, hi)

    narrow = limits(-0.05, 0.05)
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal), narrow])
    q = q0[None, :].copy()
    s.step(q, q)
    assert -0.05 <= q[0, j1] <= 0.05
    narrow.enabled = False  # the model's limits again, at the next step
    q = q0[None, :].copy()
    s.step(q, q)
    assert s.converged[0] and q[0, j1] > 0.05
    narrow.enabled = True
    q = q0[None, :].copy()
    s.step(q, q)
    assert q[0, j1] <= 0.05

    # two enabled ones: per dof the larger lower and the smaller upper limit
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePosition(tcp, [0, 0, 0], goal), narrow,
                               limits(0.02, 1.0)])
    q = q0[None, :].copy()
    s.step(q, q)
    assert 0.02 - 1e-12 <= q[0, j1] <= 0.05 + 1e-12
    disjoint = limits(0.1, 1.0)
    with pytest.raises(ValueError, match=r"joint 'panda_joint1' \(dof 0\) no range: "
                                         r"lower 0\.1 > upper 0\.05"):
        ik.IKSolver(panda, 1, [narrow, disjoint])
    disjoint.enabled = False
    s = ik.IKSolver(panda, 1, [narrow, disjoint])
    s.step(q, q)
    disjoint.enabled = True
    with pytest.raises(ValueError, match="joint 'panda_joint1'"):
        s.step(q, q)


def test_continuous_joints_come_back_within_a_half_turn_with_their_poses():
    """Answers of continuous joints in (-pi, pi], the same poses as solved; the spinner, whose
    turn is another pose of the gear that follows it at half its angle, as solved."""
    m = ikwb.Model.from_urdf(TURNTABLE)
    coord = {j: m.joint_q_start[m.joint_index(j)] for j in ("turntable", "wrist_roll", "spinner")}
    tool, tooth = m.body_index("tool"), m.body_index("gear_tooth")
    q0 = m.middle_configuration()
    q0[coord["turntable"]], q0[coord["wrist_roll"]], q0[coord["spinner"]] = 7.48, -12.0, 7.0
    goal = q0.copy()
    goal[coord["turntable"]] += 0.3
    goal[m.joint_q_start[m.joint_index("shoulder")]] = 0.4
    want = fk(m, goal)[0]
    objectives = [ik.IKObjectivePosition(tool, [0, 0, 0], want[None, tool, :3]),
                  ik.IKObjectivePosition(tooth, [0, 0, 0], want[None, tooth, :3])]
    solver = ik.IKSolver(m, 1, objectives)
    q = q0[None, :].copy()
    solver.step(q, q)
    assert solver.converged[0]
    for j in ("turntable", "wrist_roll"):
        assert -np.pi < q[0, coord[j]] <= np.pi
    assert abs(np.remainder(q[0, coord["turntable"]] - 7.78 + np.pi, 2 * np.pi) - np.pi) < 1e-3
    assert abs(q[0, coord["spinner"]] - 7.0) < 1e-3
    got = fk(m, q)[0]
    np.testing.assert_allclose(got[[tool, tooth], :3], want[[tool, tooth], :3], atol=1e-4)


def test_posture_pulls_a_continuous_joint_the_short_way():
    """From 3.1 rad to a rest of -3.1 rad is 0.08 rad across pi: four iterations; the long way
    (6.2 rad, at most 1 rad an iteration) would still be 2 rad off."""
    m = ikwb.Model.from_urdf(TURNTABLE)
    roll = m.joint_q_start[m.joint_index("wrist_roll")]
    q = m.middle_configuration()[None, :].copy()
    q[0, roll] = 3.1
    rest = q[0].copy()
    rest[roll] = -3.1
    tool = m.body_index("tool")
    solver = ik.IKSolver(m, 1, [ik.IKObjectivePosition(tool, [0, 0, 0], fk(m, q)[:, tool, :3]),
                                ik.IKObjectivePosture(rest, weight=1.0)])
    solver.step(q, q, iterations=4)
    assert abs(np.remainder(q[0, roll] + 3.1 + np.pi, 2 * np.pi) - np.pi) < 0.01


def test_a_continuous_joint_takes_no_limits():
    m = ikwb.Model.from_urdf(TURNTABLE)
    d = m.joint_qd_start[m.joint_index("turntable")]
    assert m.joint_limit_lower[d] == -np.inf and m.joint_limit_upper[d] == np.inf
    lo, hi = m.joint_limit_lower.copy(), m.joint_limit_upper.copy()
    lo[d], hi[d] = -1.0, 1.0
    tool = m.body_index("tool")
    position = ik.IKObjectivePosition(tool, [0, 0, 0], fk(m, m.middle_configuration())[:, tool, :3])
    with pytest.raises(ValueError, match=r"continuous joint 'turntable' \(dof 0\), which has no "
                                         r"limits"):
        ik.IKSolver(m, 1, [position, ik.IKObjectiveJointLimit(lo, hi)])
    ik.IKSolver(m, 1, [position, ik.IKObjectiveJointLimit(m.joint_limit_lower,
                                                          m.joint_limit_upper)])


def test_step_iterations_apply_to_that_call_only(panda):
    tcp = panda.body_index("panda_hand_tcp")
    goal = fk(panda, random_configurations(panda, 1, seed=21))[:, tcp]
    s = ik.IKSolver(panda, 1, [ik.IKObjectivePose(tcp, [0, 0, 0], goal)], iterations=60)
    q0 = np.tile(panda.middle_configuration(), (1, 1))
    q = q0.copy()
    s.step(q, q, iterations=1)
    assert s.iterations[0] == 1 and s.settings["iterations"] == 60
    q = q0.copy()
    s.step(q, q)
    assert s.iterations[0] > 1 and s.settings["iterations"] == 60
    with pytest.raises(ValueError, match="solver setting 'iterations'"):
        s.step(q, q, iterations=0)
    assert s.settings["iterations"] == 60


def test_objective_constructors_check_their_parameters():
    targets = np.zeros((1, 3))
    for bad in [np.nan, -1.0, np.inf]:
        with pytest.raises(ValueError, match=r"^IKObjectivePosition\.weight must be finite and "
                                             r">= 0, got "):
            ik.IKObjectivePosition(1, [0, 0, 0], targets, weight=bad)
    with pytest.raises(ValueError) as built:
        ik.IKObjectivePosition(1, [0, 0, 0], targets, weight=-1)
    o = ik.IKObjectivePosition(1, [0, 0, 0], targets)
    with pytest.raises(ValueError) as edited:
        o.weight = -1
    assert str(built.value) == str(edited.value) == (
        "IKObjectivePosition.weight must be finite and >= 0, got -1.0")
    for make in [lambda w: ik.IKObjectiveJointLimit(weight=w),
                 lambda w: ik.IKObjectivePosture(weight=w),
                 lambda w: ik.IKObjectiveCustom(1, lambda q, b: [0.0], w)]:
        with pytest.raises(ValueError, match=r"\.weight must be finite and >= 0, got nan"):
            make(np.nan)
    with pytest.raises(ValueError, match=r"IKObjectiveMinDistance\.distance must be finite and "
                                         r">= 0, got -1\.0"):
        ik.IKObjectiveMinDistance(1, [0, 0, 0], 2, [0, 0, 0], -1)
    with pytest.raises(ValueError, match=r"IKObjectiveOrientationCone\.cone must be an angle in "
                                         r"\[0, pi\] rad, got -1\.0"):
        ik.IKObjectiveOrientationCone(1, [[0, 0, 0, 1]], -1)
    with pytest.raises(ValueError, match=r"IKObjectiveAxisAlign\.cone"):
        ik.IKObjectiveAxisAlign(1, cone=4.0)
    with pytest.raises(ValueError, match=r"IKObjectiveLookAt\.cone"):
        ik.IKObjectiveLookAt(1, [0, 0, 0], [0, 0, 1], targets, cone=np.nan)
    with pytest.raises(ValueError, match=r"IKObjectiveSupportPolygon\.margin"):
        ik.IKObjectiveSupportPolygon([1], [[0, 0, 0]], margin=-0.1)
    with pytest.raises(ValueError, match=r"IKObjectiveManipulability\.min_measure"):
        ik.IKObjectiveManipulability(1, min_measure=-1)
    with pytest.raises(ValueError, match="link_indices: expected integers, got dtype float64"):
        ik.IKObjectiveSupportPolygon([1.5], [[0, 0, 0]])
    # directions, boxes and rests the solver would refuse are refused where they are given
    with pytest.raises(ValueError, match=r"^IKObjectiveAxisAlign direction must be a finite, "
                                         r"non-zero vector, got \[0.0, 0.0, 0.0\]$"):
        ik.IKObjectiveAxisAlign(1, [0, 0, 1], [0, 0, 0])
    with pytest.raises(ValueError, match=r"^IKObjectiveLookAt axis must be a finite, non-zero"):
        ik.IKObjectiveLookAt(1, [0, 0, 0], [0, 0, 0], targets)
    with pytest.raises(ValueError, match=r"IKObjectivePositionBox: axis 0 needs lower <= upper"):
        ik.IKObjectivePositionBox(1, [0, 0, 0], [[0, 0, 0, 0, 0, 0, 1]], [1, 0, 0], [0, 0, 0])
    with pytest.raises(ValueError, match=r"IKObjectivePosture rest_q must be finite, got nan at 2"):
        ik.IKObjectivePosture([0, 0, np.nan])


def test_a_start_that_is_not_a_number_is_named_as_passed(panda):
    tcp = panda.body_index("panda_hand_tcp")
    solver = ik.IKSolver(panda, 3, [ik.IKObjectivePosition(tcp, [0, 0, 0],
                                                           np.tile([0.4, 0.0, 0.5], (3, 1)))])
    q = np.tile(panda.joint_q, (3, 1))
    q[2, 5] = np.inf
    with pytest.raises(ValueError, match=r"IKSolver\.step joint_q_in: row 2, column 5 \(joint "
                                         r"'panda_joint6'\) is inf; values must be finite"):
        solver.step(q, q.copy())


def test_setters_and_constructors_check_what_they_are_given(panda):
    tcp = panda.body_index("panda_hand_tcp")
    pose = ik.IKObjectivePose(tcp, [0, 0, 0], [[0.4, 0, 0.5, 0, 0, 0, 1]])
    # set_target_pose: the 1e6 m bound of every other target (it took 1e7 m)
    with pytest.raises(ValueError, match=r"set_target_pose new_pose must be within 1e6 m"):
        pose.set_target_pose(0, [1e7, 0, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"set_target_pose new_pose must be finite"):
        pose.set_target_pose(0, [np.nan, 0, 0, 0, 0, 0, 1])
    # a relative pose's NaN at once (it waited for a solver)
    with pytest.raises(ValueError, match=r"IKObjectiveRelativeFixed relative must be finite"):
        ik.IKObjectiveRelativeFixed(3, tcp, [np.nan, 0, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"IKObjectiveRelativeFixed relative must be within 1e6 m"):
        ik.IKObjectiveRelativeFixed(3, tcp, [2e6, 0, 0, 0, 0, 0, 1])
    # two points of one link keep their distance: a minimum distance there held never or always
    with pytest.raises(ValueError, match="link_a and link_b are both"):
        ik.IKObjectiveMinDistance(tcp, [0, 0, 0], tcp, [0, 0, 0.1], 0.1)
    # a look-at that follows a link has no targets to set (it read "out of range [0, 0)")
    look = ik.IKObjectiveLookAt(tcp, [0, 0, 0], [0, 0, 1], target_link=3)
    with pytest.raises(ValueError, match="follows target_link 3, and has no targets to set"):
        look.set_target_position(0, [0, 0, 0])
    with pytest.raises(ValueError, match="follows target_link 3, and has no targets to set"):
        look.set_target_positions(np.zeros((1, 3)))


def test_a_continuous_source_its_mimic_leaves_continuous_solves(tmp_path):
    # a mimic of limits [-4, 4] keeps a continuous source at any angle in (-pi, pi]: it stays
    # continuous, and a solver took the mimic's limits for its own and refused it as a
    # continuous joint with limits
    urdf = tmp_path / "c.urdf"
    urdf.write_text("""<robot name="c"><link name="base"/><link name="l1"/><link name="l2"/>
      <link name="tool"/>
      <joint name="src" type="continuous"><parent link="base"/><child link="l1"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="mim" type="revolute"><parent link="l1"/><child link="l2"/><axis xyz="0 1 0"/>
        <origin xyz="0.3 0 0.5"/><limit lower="-4" upper="4" effort="1" velocity="1"/>
        <mimic joint="src"/></joint>
      <joint name="t" type="fixed"><parent link="l2"/><child link="tool"/>
        <origin xyz="0.2 0 0"/></joint></robot>""")
    m = ikwb.Model.from_urdf(str(urdf))
    tool = m.body_index("tool")
    goal = fk(m, np.array([[0.5]]))[:, tool, :3]
    s = ik.IKSolver(m, 1, [ik.IKObjectivePosition(tool, [0, 0, 0], goal)])
    q = np.zeros((1, 1))
    s.step(q, q)
    assert s.position_errors[0] < 1e-4
