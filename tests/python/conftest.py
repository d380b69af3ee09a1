"""Shared fixtures of the ikwb Python tests (run by CTest with the interpreter the module was
built for; PYTHONPATH points at BUILD/python and IKWB_CLI at the `ikwb` command line tool)."""
import os
import pathlib

import numpy as np
import pytest

import ikwb

ROOT = pathlib.Path(__file__).resolve().parents[2]
PANDA = str(ROOT / "assets" / "robots" / "panda" / "panda.urdf")
PANDA_PRESET = str(ROOT / "assets" / "robots" / "panda" / "preset.json")
HUMANOID = str(ROOT / "assets" / "robots" / "humanoid" / "humanoid.urdf")
# continuous joints: a turntable, a wrist roll, and a spinner a mimic follows at half its angle
TURNTABLE = str(ROOT / "tests" / "data" / "robots" / "turntable_arm.urdf")

# two revolute joints in a chain plus a ball joint on a branch (tiny, hand-checkable)
TINY_URDF = """<robot name="tiny">
  <link name="base"/>
  <link name="upper"><inertial><mass value="1"/><origin xyz="0.25 0 0"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><mass value="1"/><origin xyz="0.2 0 0"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tip"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.5 0 0"/><axis xyz="0 0 1"/><limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="wrist" type="fixed"><parent link="lower"/><child link="tip"/>
    <origin xyz="0.4 0 0"/></joint>
</robot>
"""


@pytest.fixture(scope="session")
def panda():
    return ikwb.Model.from_urdf(PANDA)


@pytest.fixture(scope="session")
def tiny_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("robots") / "tiny.urdf"
    path.write_text(TINY_URDF)
    return str(path)


@pytest.fixture(scope="session")
def tiny(tiny_path):
    return ikwb.Model.from_urdf(tiny_path)


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("IKWB_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("IKWB_CLI (the ikwb command line tool) not given")
    return path


def random_configurations(model, n, seed=0):
    """n configurations within the limits (unlimited dofs in [-pi, pi]); 1-dof joints only."""
    rng = np.random.default_rng(seed)
    lo = np.where(np.isfinite(model.joint_limit_lower), model.joint_limit_lower, -np.pi)
    hi = np.where(np.isfinite(model.joint_limit_upper), model.joint_limit_upper, np.pi)
    assert model.joint_coord_count == model.joint_dof_count
    return rng.uniform(lo, hi, size=(n, model.joint_dof_count))
