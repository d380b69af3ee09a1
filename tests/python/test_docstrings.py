"""Docstrings: every method and property of the public classes says what it is (beyond the
signature pybind11 writes), and IKSolver's points at settings that exist."""
import inspect

import pytest

import ikwb
from ikwb import ik


def documentation(member):
    """The docstring without pybind11's signature lines ("name(self: ...) -> ...")."""
    doc = inspect.getdoc(member) or ""
    return "\n".join(line for line in doc.splitlines()
                     if not (line.startswith(("__init__(", "Overloaded function"))
                             or "(self: " in line))


CLASSES = [ikwb.Model, ikwb.State, ikwb.InverseKinematics, ikwb.Scene, ik.IKSolver,
           ik.IKObjective]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_member_is_documented(cls):
    undocumented = []
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, property) or callable(member):
            if not documentation(member).strip():
                undocumented.append(name)
    assert not undocumented, f"{cls.__name__}: no docstring for {undocumented}"


def test_exceptions_are_documented():
    for error in (ikwb.ModelError, ikwb.SceneError):
        assert issubclass(error, ValueError)
        assert "ValueError" in error.__doc__ and "names the file" in error.__doc__


def test_solver_docstring_names_real_settings():
    doc = ik.IKSolver.__init__.__doc__
    assert "max_restarts" not in doc and "restarts=20" in doc
    assert "ikwb.ik.solver_setting_keys()" in doc
    assert "restarts" in ik.solver_setting_keys()
    assert "ikwb.solver_setting_keys" not in doc.replace("ikwb.ik.solver_setting_keys", "")
