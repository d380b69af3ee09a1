"""ikwb.Model, State, eval_fk / eval_ik (newton.eval_fk's semantics and ValueError cases) and the
batched forms; FK compared bit for bit with the C++ command line tool."""
import csv
import pathlib
import subprocess
import threading
import time

import numpy as np
import pytest

import ikwb
from conftest import PANDA, random_configurations


def test_model_attributes(panda):
    assert panda.body_count == 13
    assert panda.joint_count == 13  # the root joint and 12 URDF joints
    assert panda.joint_coord_count == 8 and panda.joint_dof_count == 8  # finger 2 mimics 1
    assert panda.articulation_count == 1
    assert panda.joint_q_start.shape == (panda.joint_count + 1,)
    assert panda.joint_q_start[-1] == panda.joint_coord_count
    assert panda.joint_qd_start[-1] == panda.joint_dof_count
    assert panda.joint_ancestor[0] == -1
    assert all(panda.joint_ancestor[j] < j for j in range(panda.joint_count))
    assert panda.body_key[0] == "panda_link0"
    assert "panda_joint4" in panda.joint_key
    j4 = panda.joint_index("panda_joint4")
    d4 = panda.joint_qd_start[j4]
    assert panda.joint_limit_lower[d4] == pytest.approx(-3.0718)
    assert panda.joint_limit_upper[d4] == pytest.approx(-0.0698)
    assert panda.joint_type[j4] == int(ikwb.JointType.REVOLUTE)
    assert panda.joint_child[j4] == panda.body_index("panda_link4")
    # views of the C++ model: read-only
    with pytest.raises(ValueError):
        panda.joint_limit_lower[0] = 0.0
    with pytest.raises(ValueError, match="unknown body 'nope'"):
        panda.body_index("nope")


def test_floating_base_and_errors(tmp_path):
    m = ikwb.Model.from_urdf(PANDA, floating_base=True)
    assert m.joint_type[0] == int(ikwb.JointType.FREE)
    assert m.joint_coord_count == 15 and m.joint_dof_count == 14
    with pytest.raises(ikwb.ModelError, match="nope.urdf"):
        ikwb.Model.from_urdf(str(tmp_path / "nope.urdf"))
    # paths may be any os.PathLike (pathlib.Path), package paths too
    assert ikwb.Model.from_urdf(pathlib.Path(PANDA), package_paths=[tmp_path]).body_count == 13
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'/><joint name='j' type='revolute'>"
                   "<parent link='a'/><child link='missing'/></joint></robot>")
    with pytest.raises(ValueError, match="bad.urdf"):
        ikwb.Model.from_urdf(str(bad))
    assert issubclass(ikwb.ModelError, ValueError)
    # the loader's words for its options are Python's here; a package path that is not there is
    # said, as the command line says it
    floating = tmp_path / "floating.urdf"
    floating.write_text("<robot name='f'><link name='world'/><link name='a'/>"
                        "<joint name='j' type='floating'><parent link='world'/><child link='a'/>"
                        "</joint></robot>")
    with pytest.raises(ikwb.ModelError, match="floating_base=True") as e:
        ikwb.Model.from_urdf(str(floating), floating_base=True)
    assert "--floating-base" not in str(e.value)
    missing = str(tmp_path / "no_such_folder")
    assert (f"package_paths: '{missing}': no such folder"
            in ikwb.Model.from_urdf(PANDA, package_paths=[missing]).warnings)


def test_xacro_args(tmp_path, monkeypatch):
    # a stand-in xacro command names the robot after the arguments it was given
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "xacro"
    script.write_text("#!/bin/sh\nshift\n"
                      "echo \"<robot name='args[$*]'><link name='a'/></robot>\"\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir) + ":/usr/bin:/bin")
    robot = tmp_path / "arm.urdf.xacro"
    robot.write_text("<robot/>")
    m = ikwb.Model.from_urdf(str(robot), xacro_args=["name:=ur", "ur_type:=ur5e"])
    assert "args[name:=ur ur_type:=ur5e]" in str(m)
    with pytest.raises(ikwb.ModelError, match="xacro argument 'ur5e'"):
        ikwb.Model.from_urdf(str(robot), xacro_args=["ur5e"])
    plain = ikwb.Model.from_urdf(PANDA, xacro_args=["name:=ur"])
    assert any("xacro argument 'name:=ur' not used" in w for w in plain.warnings)


def test_mesh_files_that_are_not_found_are_warned_of(tmp_path):
    # the model is for kinematics (meshes are not read), but a mesh that does not resolve is
    # named, as `ikwb info` names it (Model.warnings was empty)
    robot = tmp_path / "r.urdf"
    robot.write_text('<robot name="r"><link name="a"><visual><geometry>'
                     '<mesh filename="nope.stl"/></geometry></visual></link><link name="b"/>'
                     '<joint name="j" type="continuous"><parent link="a"/><child link="b"/>'
                     '</joint></robot>')
    m = ikwb.Model.from_urdf(str(robot))
    assert any("mesh 'nope.stl'" in w and "not found" in w for w in m.warnings), m.warnings
    assert ikwb.Model.from_urdf(PANDA).warnings == []


def test_state_shapes_and_views(panda):
    s = panda.state()
    assert s.body_q.shape == (13, 7) and s.body_q.dtype == np.float64
    assert s.body_qd.shape == (13, 6)
    np.testing.assert_array_equal(s.body_q[:, 6], 1.0)
    s.body_q[3, 0] = 5.0  # a view: writes reach the state
    assert s.body_q[3, 0] == 5.0
    c = s.copy()
    c.body_q[3, 0] = 1.0
    assert s.body_q[3, 0] == 5.0
    with pytest.raises(ValueError, match=r"State.body_q: expected shape \(13, 7\)"):
        s.body_q = np.zeros((12, 7))


def test_arrays_read_as_newton_code_reads_warp_arrays(panda):
    # newton code reads its Warp arrays with .numpy(): the same lines run on ours
    state = panda.state()
    q = panda.joint_q.copy()  # the model's own array stays neutral for the other tests
    q[3] = -1.5
    ikwb.eval_fk(panda, q, None, state)
    poses = state.body_q.numpy()
    assert type(poses) is np.ndarray and poses.shape == (panda.body_count, 7)
    assert np.shares_memory(poses, state.body_q)  # a view, as Warp's numpy() on the CPU
    assert np.array_equal(panda.joint_q.numpy(), panda.joint_q)
    ancestors = panda.joint_ancestor.numpy()
    assert ancestors[0] == -1 and not ancestors.flags.writeable
    revolute = panda.joint_type.numpy() == ikwb.JointType.REVOLUTE
    assert revolute.sum() == 7
    assert panda.device == "cpu" and state.body_q.device == "cpu"
    assert isinstance(state.body_qd, np.ndarray) and isinstance(panda.joint_q, ikwb.Array)


def test_tiny_fk_by_hand(tiny):
    s = tiny.state()
    q = np.array([np.pi / 2, -np.pi / 2])
    ikwb.eval_fk(tiny, q, np.array([1.0, 0.0]), s)
    tip = tiny.body_index("tip")
    # shoulder turns +90 deg about z: the elbow sits at (0, 0.5, 0.1); elbow -90: tip along +x
    np.testing.assert_allclose(s.body_q[tip, :3], [0.4, 0.5, 0.1], atol=1e-15)
    np.testing.assert_allclose(s.body_q[tip, 3:], [0, 0, 0, 1], atol=1e-15)
    # body_qd = (v_com_world, omega_world): upper turns at 1 rad/s, its COM 0.25 m out along y
    upper = tiny.body_index("upper")
    np.testing.assert_allclose(s.body_qd[upper], [-0.25, 0, 0, 0, 0, 1], atol=1e-15)


def read_cli_poses(path, n, bodies):
    poses = np.zeros((n, bodies, 7))
    with open(path) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["config", "body", "x", "y", "z", "qx", "qy", "qz", "qw"]
    assert len(rows) == 1 + n * bodies
    for k, row in enumerate(rows[1:]):
        poses[int(row[0]), k % bodies] = [float(v) for v in row[2:]]
    return poses


def test_fk_equals_cli_bit_for_bit(panda, cli, tmp_path):
    qs = random_configurations(panda, 20, seed=3)
    np.savetxt(tmp_path / "q.csv", qs, delimiter=",", fmt="%.17g")
    subprocess.run([cli, "fk", PANDA, "--q", str(tmp_path / "q.csv"), "--out",
                    str(tmp_path / "poses.csv")], check=True, capture_output=True)
    expected = read_cli_poses(tmp_path / "poses.csv", len(qs), panda.body_count)
    s = panda.state()
    for i, q in enumerate(qs):
        ikwb.eval_fk(panda, q, None, s)
        assert np.array_equal(s.body_q, expected[i]), f"configuration {i}"
    body_q, body_qd = ikwb.eval_fk_batch(panda, qs)
    assert body_qd is None
    assert np.array_equal(body_q, expected)


def test_fk_accepts_float32_and_lists(tiny):
    s1, s2 = tiny.state(), tiny.state()
    ikwb.eval_fk(tiny, [0.5, 0.25], None, s1)
    ikwb.eval_fk(tiny, np.array([0.5, 0.25], dtype=np.float32), None, s2)
    np.testing.assert_array_equal(s1.body_q, s2.body_q)  # 0.5 and 0.25 are exact in float32


def test_joint_mask_preserves_unselected_bit_for_bit(panda):
    rng = np.random.default_rng(1)
    q = random_configurations(panda, 1, seed=4)[0]
    qd = rng.normal(size=panda.joint_dof_count)
    s = panda.state()
    ikwb.eval_fk(panda, q, qd, s)
    # simulated drift: poses and twists that no joint configuration reproduces exactly
    s.body_q[:, :3] += rng.normal(scale=1e-3, size=(13, 3))
    s.body_qd[:] += rng.normal(scale=1e-3, size=(13, 6))
    before_q, before_qd = s.body_q.copy(), s.body_qd.copy()
    j4 = panda.joint_index("panda_joint4")
    q2, qd2 = q.copy(), qd.copy()
    q2[panda.joint_q_start[j4]] += 0.3
    # only joint 4: its child moves, its descendants keep pose and velocity exactly
    mask = np.zeros(panda.joint_count, dtype=bool)
    mask[j4] = True
    ikwb.eval_fk(panda, q2, qd2, s, joint_mask=mask)
    child = panda.joint_child[j4]
    changed = [b for b in range(13) if not np.array_equal(s.body_q[b], before_q[b])]
    assert changed == [child]
    for b in range(13):
        if b != child:
            assert np.array_equal(s.body_qd[b], before_qd[b])
    # the branch (joint 4 and descendants) follows; bodies above keep their values
    s2 = panda.state()
    s2.body_q, s2.body_qd = before_q, before_qd
    branch = panda.branch_joint_mask(j4, True)
    assert branch.dtype == bool and branch.sum() == 1 + len(panda.joint_descendants(j4))
    ikwb.eval_fk(panda, q2, qd2, s2, joint_mask=branch)
    below = {panda.joint_child[j] for j in [j4] + panda.joint_descendants(j4)}
    for b in range(13):
        if b in below:
            assert not np.array_equal(s2.body_q[b], before_q[b])
        else:
            assert np.array_equal(s2.body_q[b], before_q[b])
            assert np.array_equal(s2.body_qd[b], before_qd[b])
    # a selected joint uses its parent's current (preserved, drifted) pose
    ref = panda.state()
    ref.body_q, ref.body_qd = before_q, before_qd
    ikwb.eval_fk(panda, q2, qd2, ref)
    assert not np.array_equal(ref.body_q[child], s2.body_q[child])


def test_articulation_and_flag_filters(panda):
    q = random_configurations(panda, 1, seed=5)[0]
    full = panda.state()
    ikwb.eval_fk(panda, q, None, full)
    for kwargs in [dict(mask=np.array([False])), dict(indices=np.array([], dtype=np.int64)),
                   dict(body_flag_filter=ikwb.BodyFlags.KINEMATIC)]:
        s = panda.state()
        s.body_q[:, 0] = 7.0
        ikwb.eval_fk(panda, q, None, s, **kwargs)
        np.testing.assert_array_equal(s.body_q[1:, 0], 7.0)  # not zeroed: kept
    for kwargs in [dict(mask=[True]), dict(indices=[0]),
                   dict(body_flag_filter=ikwb.BodyFlags.DYNAMIC), dict(body_flag_filter=3)]:
        s = panda.state()
        ikwb.eval_fk(panda, q, None, s, **kwargs)
        assert np.array_equal(s.body_q, full.body_q)


def test_eval_fk_value_errors(panda, tiny):
    s = panda.state()
    q = np.zeros(panda.joint_coord_count)
    with pytest.raises(ValueError, match="either mask or indices, not both"):
        ikwb.eval_fk(panda, q, None, s, mask=[True], indices=[0])
    with pytest.raises(ValueError, match="joint_mask: expected dtype bool, got int64"):
        ikwb.eval_fk(panda, q, None, s, joint_mask=np.ones(panda.joint_count, dtype=np.int64))
    with pytest.raises(ValueError, match=r"joint_mask \(joint_count\): expected 13 values, got 12"):
        ikwb.eval_fk(panda, q, None, s, joint_mask=np.ones(12, dtype=bool))
    with pytest.raises(ValueError, match="joint_mask: expected a 1-D array"):
        ikwb.eval_fk(panda, q, None, s, joint_mask=np.ones((13, 1), dtype=bool))
    with pytest.raises(ValueError, match=r"mask \(articulation_count\): expected 1 values, got 2"):
        ikwb.eval_fk(panda, q, None, s, mask=[True, False])
    with pytest.raises(ValueError, match="indices: articulation 1 out of range"):
        ikwb.eval_fk(panda, q, None, s, indices=[1])
    with pytest.raises(ValueError, match=r"joint_q \(joint_coord_count\): expected 8 values, got 7"):
        ikwb.eval_fk(panda, q[:7], None, s)
    with pytest.raises(ValueError, match=r"joint_qd \(joint_dof_count\): expected 8 values, got 3"):
        ikwb.eval_fk(panda, q, np.zeros(3), s)
    with pytest.raises(ValueError, match="joint_q: expected numbers"):
        ikwb.eval_fk(panda, np.array(["a"] * 8), None, s)
    with pytest.raises(ValueError, match="joint_q: expected shape"):
        ikwb.eval_fk(panda, q.reshape(1, 8), None, s)
    with pytest.raises(ValueError, match="made for a model with 4 bodies"):
        ikwb.eval_fk(panda, q, None, tiny.state())


def test_eval_ik_round_trip(panda):
    q = random_configurations(panda, 1, seed=6)[0]
    qd = np.random.default_rng(2).normal(size=panda.joint_dof_count)
    s = panda.state()
    ikwb.eval_fk(panda, q, qd, s)
    q_out = np.full(panda.joint_coord_count, np.nan)
    qd_out = np.zeros(panda.joint_dof_count)
    ikwb.eval_ik(panda, s, q_out, qd_out)
    np.testing.assert_allclose(q_out, q, atol=1e-12)
    np.testing.assert_allclose(qd_out, qd, atol=1e-12)
    with pytest.raises(ValueError, match=r"eval_ik joint_q: expected shape \(8,\)"):
        ikwb.eval_ik(panda, s, np.zeros(7))
    with pytest.raises(ValueError, match="eval_ik joint_q: expected dtype float64"):
        ikwb.eval_ik(panda, s, np.zeros(8, dtype=np.float32))
    with pytest.raises(ValueError, match="read-only"):
        ikwb.eval_ik(panda, s, panda.joint_limit_lower)


def test_floating_base_eval_ik_and_velocity(panda):
    m = ikwb.Model.from_urdf(PANDA, floating_base=True)
    rng = np.random.default_rng(7)
    q = m.joint_q
    quat = rng.normal(size=4)
    q[:3], q[3:7] = [0.3, -0.2, 0.5], quat / np.linalg.norm(quat)
    q[7:] = random_configurations(panda, 1, seed=8)[0]
    s = m.state()
    ikwb.eval_fk(m, q, rng.normal(size=m.joint_dof_count), s)
    out = np.zeros(m.joint_coord_count)
    ikwb.eval_ik(m, s, out)
    sign = np.sign(out[6]) * np.sign(q[6])
    np.testing.assert_allclose(out[:3], q[:3], atol=1e-12)
    np.testing.assert_allclose(out[3:7] * sign, q[3:7], atol=1e-12)
    np.testing.assert_allclose(out[7:], q[7:], atol=1e-12)


def test_batch_equals_single_and_writes_in_place(panda):
    qs = random_configurations(panda, 16, seed=9)
    qds = np.random.default_rng(3).normal(size=(16, panda.joint_dof_count))
    body_q = np.zeros((16, 13, 7))
    body_qd = np.zeros((16, 13, 6))
    bq, bqd = ikwb.eval_fk_batch(panda, qs, qds, body_q, body_qd)
    assert bq is body_q and bqd is body_qd
    s = panda.state()
    for i in range(16):
        ikwb.eval_fk(panda, qs[i], qds[i], s)
        assert np.array_equal(body_q[i], s.body_q) and np.array_equal(body_qd[i], s.body_qd)
    # masked batch keeps unselected bodies of the given arrays
    j6 = panda.joint_index("panda_joint6")
    keep = body_q.copy()
    ikwb.eval_fk_batch(panda, qs + 0.1, None, body_q, joint_mask=panda.branch_joint_mask(j6, False))
    child = panda.joint_child[j6]
    others = [b for b in range(13) if b != child]
    assert np.array_equal(body_q[:, others], keep[:, others])
    assert not np.array_equal(body_q[:, child], keep[:, child])
    # eval_ik_batch inverts it
    q_back = np.full_like(qs, np.nan)  # no previous angles: unwrapped near the limits' middle
    bq, _ = ikwb.eval_fk_batch(panda, qs)
    ikwb.eval_ik_batch(panda, bq, q_back)
    np.testing.assert_allclose(q_back, qs, atol=1e-12)
    with pytest.raises(ValueError, match=r"eval_fk_batch joint_q: expected shape \(n, 8\)"):
        ikwb.eval_fk_batch(panda, qs[:, :7])
    with pytest.raises(ValueError, match=r"body_q: expected shape \(16, 13, 7\)"):
        ikwb.eval_fk_batch(panda, qs, None, np.zeros((16, 13, 6)))
    with pytest.raises(ValueError, match="C-contiguous"):
        ikwb.eval_fk_batch(panda, qs, None, np.zeros((13, 16, 7)).transpose(1, 0, 2))
    with pytest.raises(ValueError, match="not both"):
        ikwb.eval_fk_batch(panda, qs, mask=[True], indices=[0])


def test_batch_releases_the_gil(panda):
    """Another Python thread runs during the second half of a large batch (it could not while
    the batch held the GIL: a switch can only happen before the call starts)."""
    qs = np.repeat(random_configurations(panda, 1, seed=10), 200000, axis=0)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    t = threading.Thread(target=count)
    t.start()
    try:
        t0 = time.perf_counter()
        ikwb.eval_fk_batch(panda, qs)
        t1 = time.perf_counter()
    finally:
        done.set()
        t.join()
    late = [x for x in ticks if t0 + 0.5 * (t1 - t0) < x < t1]
    assert len(late) > 0, f"no other thread ran in {t1 - t0:.3f} s"


def test_joint_type_compares_with_the_enum(panda):
    revolute = panda.joint_type == ikwb.JointType.REVOLUTE
    assert revolute.dtype == bool and revolute.shape == (panda.joint_count,)
    assert revolute.sum() == 7
    expected = [ikwb.JointType(int(t)).name == "REVOLUTE" for t in panda.joint_type]
    np.testing.assert_array_equal(revolute, expected)
    np.testing.assert_array_equal(ikwb.JointType.REVOLUTE == panda.joint_type, revolute)
    np.testing.assert_array_equal(panda.joint_type != ikwb.JointType.REVOLUTE, ~revolute)
    assert ikwb.JointType.REVOLUTE == int(ikwb.JointType.REVOLUTE)
    assert ikwb.JointType.REVOLUTE != ikwb.JointType.FIXED
    assert ikwb.JointType.REVOLUTE != "REVOLUTE"


def test_non_finite_values_are_rejected(panda):
    q = random_configurations(panda, 3, seed=11)
    s = panda.state()
    ikwb.eval_fk(panda, q[0], None, s)
    kept = s.body_q.copy()
    bad = q[0].copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"^eval_fk joint_q: column 3 \(joint 'panda_joint4'\) "
                                         r"is nan; values must be finite$"):
        ikwb.eval_fk(panda, bad, None, s)
    np.testing.assert_array_equal(s.body_q, kept)
    qd = np.zeros(panda.joint_dof_count)
    qd[7] = np.inf
    with pytest.raises(ValueError, match=r"eval_fk joint_qd: column 7 .* is inf"):
        ikwb.eval_fk(panda, q[0], qd, s)
    batch = q.copy()
    batch[2, 3] = -np.inf
    with pytest.raises(ValueError, match=r"^eval_fk_batch joint_q: row 2, column 3 "
                                         r"\(joint 'panda_joint4'\) is -inf"):
        ikwb.eval_fk_batch(panda, batch)
    qds = np.zeros_like(q)
    qds[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"eval_fk_batch joint_qd: row 1, column 0"):
        ikwb.eval_fk_batch(panda, q, qds)

    # eval_ik reads the state's poses (and twists)
    ikwb.eval_fk(panda, q[0], np.zeros(panda.joint_dof_count), s)
    s.body_q[4, 1] = np.nan
    out = np.zeros(panda.joint_coord_count)
    with pytest.raises(ValueError, match=r"^eval_ik state\.body_q: body 4 \('panda_link4'\), "
                                         r"column 1 is nan"):
        ikwb.eval_ik(panda, s, out)
    np.testing.assert_array_equal(out, 0.0)
    s.body_q[4] = kept[4]
    s.body_q[5, 3:] = 0
    with pytest.raises(ValueError, match=r"body 5 \('panda_link5'\) has a zero quaternion"):
        ikwb.eval_ik(panda, s, out)
    s.body_q[5] = kept[5]
    s.body_qd[2, 5] = np.inf
    ikwb.eval_ik(panda, s, out)  # twists are read only for joint_qd
    with pytest.raises(ValueError, match=r"eval_ik state\.body_qd: body 2 .*column 5 is inf"):
        ikwb.eval_ik(panda, s, out, np.zeros(panda.joint_dof_count))
    body_q = ikwb.eval_fk_batch(panda, q)[0]
    body_q[1, 0, 2] = np.nan
    with pytest.raises(ValueError, match=r"eval_ik_batch body_q: row 1, body 0 .*column 2 is nan"):
        ikwb.eval_ik_batch(panda, body_q, np.zeros_like(q))
    # rows that differ: the output is the one named (body_q, the input, sets the count)
    with pytest.raises(ValueError, match=r"eval_ik_batch joint_q: expected shape \(%d, 8\)"
                                         % len(q)):
        ikwb.eval_ik_batch(panda, body_q, np.zeros((len(q) - 1, 8)))


def test_zero_quaternion_of_a_free_joint_is_rejected():
    m = ikwb.Model.from_urdf(PANDA, floating_base=True)
    q = m.joint_q.copy()
    q[3:7] = 0
    with pytest.raises(ValueError, match=r"eval_fk joint_q: joint '.*' \(free\) has a zero "
                                         r"quaternion \(columns 3 to 6\)"):
        ikwb.eval_fk(m, q, None, m.state())
    with pytest.raises(ValueError, match=r"eval_fk_batch joint_q: row 1, joint '.*' \(free\) "
                                         r"has a zero quaternion"):
        ikwb.eval_fk_batch(m, np.stack([m.joint_q, q]))
    q[3:7] = [0, 0, 0, 2]  # not unit: normalised, as before
    s = m.state()
    ikwb.eval_fk(m, q, None, s)
    np.testing.assert_allclose(np.linalg.norm(s.body_q[:, 3:], axis=1), 1.0)


def test_fk_filter_arguments(panda):
    q = random_configurations(panda, 2, seed=12)
    s = panda.state()
    s.body_q[:, 0] = 7.0
    ikwb.eval_fk(panda, q[0], None, s, indices=[])  # selects no articulation
    np.testing.assert_array_equal(s.body_q[:, 0], 7.0)
    body_q, _ = ikwb.eval_fk_batch(panda, q, indices=[])
    np.testing.assert_array_equal(body_q[..., 6], 1.0)
    for flags in [99, -1, 4]:
        with pytest.raises(ValueError, match=f"eval_fk body_flag_filter: {flags} is not a "
                                             r"combination of ikwb.BodyFlags \(0 to 3\)"):
            ikwb.eval_fk(panda, q[0], None, s, body_flag_filter=flags)
        with pytest.raises(ValueError, match="eval_fk_batch body_flag_filter"):
            ikwb.eval_fk_batch(panda, q, body_flag_filter=flags)
    with pytest.raises(ValueError, match="eval_fk indices: 9223372036854775808 is out of range"):
        ikwb.eval_fk(panda, q[0], None, s, indices=np.array([2**63], np.uint64))
    with pytest.raises(ValueError, match="eval_fk indices: -3000000000 is out of range"):
        ikwb.eval_fk(panda, q[0], None, s, indices=[-3_000_000_000])
    with pytest.raises(ValueError, match="eval_fk indices: expected integers, got dtype float64"):
        ikwb.eval_fk(panda, q[0], None, s, indices=[0.0])
    out = np.zeros((2, panda.body_count, 6))
    with pytest.raises(ValueError, match="eval_fk_batch: body_qd needs joint_qd"):
        ikwb.eval_fk_batch(panda, q, body_qd=out)


def test_models_and_states_copy_and_pickle(tmp_path):
    import copy
    import pickle
    m = ikwb.Model.from_urdf(PANDA, floating_base=True)
    assert copy.copy(m) is m  # the kinematics are immutable: shared
    # a deep copy has joint_q and joint_qd of its own (it shared the model's writable ones)
    m.joint_q[0] = 1.0
    deep = copy.deepcopy(m)
    assert deep is not m and deep.joint_q[0] == 1.0
    deep.joint_q[0] = 2.0
    assert m.joint_q[0] == 1.0 and list(deep.body_key) == list(m.body_key)
    # and a state starts at the model's joint_q, as Newton's Model.state() clones it
    assert m.state().joint_q[0] == 1.0 and ikwb.State(deep).joint_q[0] == 2.0
    m.joint_q = ikwb.Model.from_urdf(PANDA, floating_base=True).joint_q
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(m, protocol))  # loaded again from its file and options
        assert back.joint_coord_count == m.joint_coord_count == 15
        assert list(back.body_key) == list(m.body_key)
    s = m.state()
    q = m.joint_q.copy()
    q[2] = 0.4
    ikwb.eval_fk(m, q, None, s)
    copies = [copy.copy(s), copy.deepcopy(s)]
    copies += [pickle.loads(pickle.dumps(s, p)) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    for c in copies:
        assert np.array_equal(c.body_q, s.body_q) and np.array_equal(c.body_qd, s.body_qd)
        c.body_q[0, 0] += 1.0  # an independent copy
        assert c.body_q[0, 0] != s.body_q[0, 0]
    assert repr(s) == f"<ikwb.State of {m.body_count} bodies>"


def test_a_masked_edit_refuses_a_parent_pose_that_is_not_finite(panda):
    # masked FK reads the parent pose the state holds: NaN there would come back as NaN poses
    q = random_configurations(panda, 1, seed=5)[0]
    s = panda.state()
    ikwb.eval_fk(panda, q, None, s)
    j4 = panda.joint_index("panda_joint4")
    parent = panda.joint_parent[j4]
    mask = np.zeros(panda.joint_count, dtype=bool)
    mask[j4] = True
    s.body_q[parent, 0] = np.nan
    before = s.body_q.copy()
    with pytest.raises(ValueError, match=r"eval_fk state\.body_q: body 3 \('panda_link3'\), "
                                         r"read as the parent of the selected joint "
                                         r"'panda_joint4', column 0 is nan"):
        ikwb.eval_fk(panda, q, None, s, joint_mask=mask)
    np.testing.assert_array_equal(s.body_q, before)
    # a NaN the edit does not read is no concern of its own
    s.body_q[parent, 0] = 0.0
    s.body_q[0, 0] = np.nan
    ikwb.eval_fk(panda, q, None, s, joint_mask=mask)
    # batched, in given arrays: the row is named
    ikwb.eval_fk(panda, q, None, s)
    body_q = np.tile(s.body_q, (2, 1, 1))
    body_q[1, parent, 0] = np.inf
    with pytest.raises(ValueError, match=r"eval_fk_batch body_q: row 1, body 3"):
        ikwb.eval_fk_batch(panda, np.tile(q, (2, 1)), body_q=body_q, joint_mask=mask)


def test_a_branch_mask_takes_the_joints_that_mimic_it(panda):
    # editing a finger moves its mimic twin: the branch's masked FK equals a full one
    s = panda.state()
    q = panda.middle_configuration()
    ikwb.eval_fk(panda, q, None, s)
    finger = panda.joint_index("panda_finger_joint1")
    q[panda.joint_q_start[finger]] = 0.04
    ikwb.eval_fk(panda, q, None, s, joint_mask=panda.branch_joint_mask(finger))
    full = panda.state()
    ikwb.eval_fk(panda, q, None, full)
    assert np.array_equal(s.body_q, full.body_q)
    assert panda.branch_joint_mask(finger)[panda.joint_index("panda_finger_joint2")]


def test_batch_outputs_that_share_an_inputs_memory_are_refused(panda):
    # rows written while others are still to be read gave wrong poses silently
    q = np.tile(panda.middle_configuration(), (5, 1))
    buf = np.zeros((5, panda.body_count, 7))
    shared = buf.reshape(-1)[: q.size].reshape(q.shape)
    shared[:] = q
    with pytest.raises(ValueError, match="eval_fk_batch: body_q and joint_q share memory"):
        ikwb.eval_fk_batch(panda, shared, body_q=buf)
    body_q, _ = ikwb.eval_fk_batch(panda, q)
    with pytest.raises(ValueError, match="eval_ik_batch: joint_q and body_q share memory"):
        ikwb.eval_ik_batch(panda, body_q, body_q.reshape(-1)[: q.size].reshape(q.shape))
    # as body_qd without joint_qd is for eval_fk_batch, joint velocities nowhere to go are named
    with pytest.raises(ValueError, match="eval_ik_batch: body_qd needs joint_qd"):
        ikwb.eval_ik_batch(panda, body_q, q.copy(), body_qd=np.zeros((5, panda.body_count, 6)))


def test_an_input_too_large_to_copy_is_a_memory_error_that_names_it(panda):
    # a broadcast view of 8e12 values (64 TB, more than any machine allocates) costs nothing until
    # it must be made contiguous; pybind11's message was "cannot create a pybind11::array_t from
    # a nullptr"
    q = np.broadcast_to(panda.middle_configuration(), (10**12, panda.joint_coord_count))
    with pytest.raises(MemoryError, match=r"eval_fk_batch joint_q: a contiguous float64 copy "
                       r"of 8000000000000 values \(6.4e\+04 GB\) could not be made"):
        ikwb.eval_fk_batch(panda, q)


def test_newton_branch_edit_on_the_models_own_joint_q():
    # Newton's recipe: refresh model.joint_q from the state (eval_ik), edit an element, masked FK
    # from it. Each access was a new neutral array: the refresh and the edit were lost without a
    # word and the tool ended 0.6 m from the edited pose (a review)
    model = ikwb.Model.from_urdf(PANDA)
    state = model.state(requires_grad=False)
    q_sim = np.array([0.1, -0.3, 0.2, -2.0, 0.1, 1.8, 0.8, 0.02])
    ikwb.eval_fk(model, q_sim, None, state)
    ikwb.eval_ik(model, state, model.joint_q, model.joint_qd)
    np.testing.assert_allclose(model.joint_q, q_sim, atol=1e-12)
    j = model.joint_index("panda_joint4")
    model.joint_q[model.joint_q_start[j]] += 0.2
    ikwb.eval_fk(model, model.joint_q, model.joint_qd, state,
                 joint_mask=model.branch_joint_mask(j, with_descendants=True))
    expect = q_sim.copy()
    expect[3] += 0.2
    ref = model.state()
    ikwb.eval_fk(model, expect, None, ref)
    np.testing.assert_allclose(state.body_q, ref.body_q, atol=1e-12)
    # assigning copies into it; a wrong size names the array
    model.joint_q = model.joint_limit_lower
    assert np.array_equal(model.joint_q, model.joint_limit_lower)
    with pytest.raises(ValueError, match="Model.joint_q"):
        model.joint_q = np.zeros(3)
    with pytest.raises(ValueError, match="requires_grad=True: ikwb has no gradients"):
        model.state(requires_grad=True)
    # each model has its own
    assert not np.array_equal(ikwb.Model.from_urdf(PANDA).joint_q, model.joint_q)


def test_arrays_assign_zero_and_fill_as_warp_arrays(panda):
    state = panda.state()
    poses = np.tile([0.1, 0.2, 0.3, 0, 0, 0, 1.0], (panda.body_count, 1))
    state.body_q.assign(poses)
    assert np.array_equal(state.body_q, poses)
    state.body_qd.fill_(2.0)
    assert (state.body_qd == 2.0).all()
    state.body_qd.zero_()
    assert not state.body_qd.any()
    with pytest.raises(ValueError, match=r"Array.assign: expected shape \(13, 6\), got \(6,\)"):
        state.body_qd.assign(np.zeros(6))


def test_a_state_has_newtons_joint_q_and_joint_qd(panda):
    # newton code runs FK from the state's own coordinates (they were missing: AttributeError)
    import copy
    import pickle
    state = panda.state()
    np.testing.assert_array_equal(state.joint_q, ikwb.Model.from_urdf(PANDA).joint_q)
    assert state.joint_qd.shape == (panda.joint_dof_count,) and not state.joint_qd.any()
    state.joint_q[3] = -1.2
    state.joint_qd[0] = 0.5
    ikwb.eval_fk(panda, state.joint_q, state.joint_qd, state)
    ref = panda.state()
    q = ikwb.Model.from_urdf(PANDA).joint_q.copy()
    q[3] = -1.2
    qd = np.zeros(panda.joint_dof_count)
    qd[0] = 0.5
    ikwb.eval_fk(panda, q, qd, ref)
    np.testing.assert_array_equal(state.body_q, ref.body_q)
    np.testing.assert_array_equal(state.body_qd, ref.body_qd)
    for c in [state.copy(), copy.deepcopy(state), pickle.loads(pickle.dumps(state))]:
        assert c.joint_q[3] == -1.2 and c.joint_qd[0] == 0.5
    with pytest.raises(ValueError, match="State.joint_q"):
        state.joint_q = np.zeros(2)


def test_eval_ik_reads_body_quaternions_as_unit(panda):
    # a body quaternion 0.1 % long (or twice as long) is the same rotation: the finger's slide
    # came back 0.030127 (0.3285) instead of 0.03, its translation scaled by the squared norm
    q = panda.middle_configuration()
    q[7] = 0.03
    s = panda.state()
    ikwb.eval_fk(panda, q, None, s)
    for scale in (1.001, 2.0):
        scaled = s.copy()
        scaled.body_q[:, 3:] *= scale
        out = np.zeros(panda.joint_coord_count)
        ikwb.eval_ik(panda, scaled, out)
        np.testing.assert_allclose(out, q, atol=1e-12)
        rows = np.zeros((1, panda.joint_coord_count))
        ikwb.eval_ik_batch(panda, scaled.body_q[None], rows)
        np.testing.assert_allclose(rows[0], q, atol=1e-12)
    # one array for both outputs: refused, as eval_ik_batch refuses it (the velocities were
    # written over the coordinates)
    both = np.zeros(panda.joint_coord_count)
    with pytest.raises(ValueError, match="eval_ik: joint_q and joint_qd share memory"):
        ikwb.eval_ik(panda, s, both, both)


def test_a_masked_edit_reads_a_parent_quaternion_as_its_rotation_and_refuses_a_zero_one(panda):
    # a parent pose of norm 2 went on to every body of the branch: it is read as the rotation it
    # stands for, and left as it was (it is no body of the mask); a zero one is refused
    q = random_configurations(panda, 1, seed=7)[0]
    s = panda.state()
    ikwb.eval_fk(panda, q, None, s)
    reference = s.body_q.copy()
    mask = panda.branch_joint_mask(panda.joint_index("panda_joint4"))
    parent = panda.joint_parent[panda.joint_index("panda_joint4")]
    for scale in (2.0, 1.0 + 1.5e-6):  # (rounded to 5 digits, a quaternion is that far off)
        s.body_q[parent, 3:] = reference[parent, 3:] * scale
        edited = s.body_q[parent].copy()
        ikwb.eval_fk(panda, q, None, s, joint_mask=mask)
        np.testing.assert_array_equal(s.body_q[parent], edited)
        np.testing.assert_allclose(s.body_q[parent + 1:], reference[parent + 1:], atol=1e-12)
        batch = np.tile(s.body_q, (2, 1, 1))
        ikwb.eval_fk_batch(panda, np.tile(q, (2, 1)), body_q=batch, joint_mask=mask)
        np.testing.assert_array_equal(batch[:, parent], np.tile(edited, (2, 1)))
    s.body_q[parent, 3:] = 0.0
    before = s.body_q.copy()
    with pytest.raises(ValueError, match=r"body 3 \('panda_link3'\), read as the parent of the "
                                         r"selected joint 'panda_joint4', has a zero quaternion"):
        ikwb.eval_fk(panda, q, None, s, joint_mask=mask)
    np.testing.assert_array_equal(s.body_q, before)


def test_a_flag_filter_that_writes_every_body_reads_none_of_the_buffer(panda):
    # every Panda body is DYNAMIC: the filter writes them all, so a buffer of NaN is no parent
    # read (it was refused, named as one)
    q = random_configurations(panda, 2, seed=3)
    buffer = np.full((2, panda.body_count, 7), np.nan)
    ikwb.eval_fk_batch(panda, q, body_q=buffer, body_flag_filter=ikwb.BodyFlags.DYNAMIC)
    np.testing.assert_array_equal(buffer, ikwb.eval_fk_batch(panda, q)[0])
