// Shared pieces of the `ikwb` Python module: the Model handle, numpy conversions that name the
// argument in their ValueError, solver settings from keyword arguments, and the bind_* functions
// of each area (model_fk.cpp, ik_objectives.cpp, ik_solver.cpp, adam_ik.cpp, scene.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/model.hpp"
#include "solver/solver.hpp"

namespace ikwb::python {

namespace py = pybind11;

// A loaded robot as Python sees it: the read-only Model and what loading warned about.
struct PyModel {
  std::shared_ptr<const Model> model;
  std::vector<std::string> warnings;
  // how it was loaded (Model.from_urdf's arguments): a pickled Model is this, loaded again
  std::string path;
  bool floating_base = false;
  std::vector<std::string> package_paths;
  bool strict = false;
  std::vector<std::string> xacro_args;
  // Newton's model.joint_q and model.joint_qd: the neutral configuration and zero velocities
  // until written (eval_ik into them, an edit of an element), kept from access to access
  std::vector<double> joint_q, joint_qd;
  bool joint_arrays = false;
};

// Robot file (URDF, xacro, MJCF; or a shipped robot's name) through load_robot_file;
// xacro_args: NAME:=VALUE arguments for a .xacro file.
std::shared_ptr<PyModel> load_model(const std::string& path, bool floating_base,
                                    const std::vector<std::string>& package_paths, bool strict,
                                    const std::vector<std::string>& xacro_args = {});

// Paths arrive as std::filesystem::path (a str or any os.PathLike, e.g. pathlib.Path); the
// loaders take their text
std::vector<std::string> path_texts(const std::vector<std::filesystem::path>& paths);

// `obj` as a C-contiguous float64 array (no copy when it is one already) of `ndim` dimensions;
// shape[i] >= 0 must match. Raises ValueError naming `what` for other dtypes (bool, objects,
// strings), dimensions or sizes.
py::array_t<double, py::array::c_style> as_doubles(py::handle obj, const std::string& what,
                                                   const std::vector<py::ssize_t>& shape);
// the same for an output: a writable C-contiguous float64 array of exactly this shape (written
// in place; never a copy)
py::array_t<double, py::array::c_style> as_output(py::handle obj, const std::string& what,
                                                  const std::vector<py::ssize_t>& shape);
// a 1-D bool array (numpy bool dtype, or a sequence of Python bools); its size is checked by
// the core, whose message names the count it expects
std::vector<uint8_t> as_bools(py::handle obj, const std::string& what);
// a 1-D integer array (or an empty sequence); values outside int32 are a ValueError
std::vector<int> as_ints(py::handle obj, const std::string& what);
// "(3, 7)"
std::string shape_text(const py::array& a);
// a number as Python writes it ("0.1", "nan", "-inf"); needs the GIL
std::string number_text(double v);

// "row R, " in a batch's messages, "" for a single configuration
std::string row_text(py::ssize_t row, bool batch);
// the joint whose coordinates include coordinate c
int coord_joint(const Model& m, int c);
// `rows` configurations of `what` (joint_q: coord_count values each; or joint_qd: dof_count):
// every value finite, and the quaternions of ball and free joints not zero (FK would make them
// identities). ValueError naming the row (of a batch), the column and the joint.
void check_joint_values(const Model& m, const double* v, py::ssize_t rows, bool coords, bool batch,
                        const std::string& what);

// a as an ikwb.Array (a numpy array with Warp's numpy() and device; module.cpp), as the
// Newton-shaped Model and State hand their arrays out
py::array newton_array(const py::array& a);

// A numpy view of memory owned by `owner` (kept alive by the array); read-only unless writable.
// An ikwb.Array (newton_array).
template <class T>
py::array view_of(const T* data, std::vector<py::ssize_t> shape, py::handle owner, bool writable) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t s = sizeof(T);
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  py::array a(py::dtype::of<T>(), shape, strides, data, owner);
  if (!writable)
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return newton_array(a);
}

// Applies solver settings given by their scene keys (README "Solver options"; the settings
// table of solver/settings.hpp): {"tol_position": 1e-5, "sampler": "roberts", ...}. Raises
// ValueError for an unknown key (listing the keys) or an unusable value (the table's message),
// naming a key that came from a function argument by argument_names[key] too.
void apply_settings(const py::dict& values, SolverSettings& settings, const std::string& what,
                    const std::map<std::string, std::string>& argument_names = {});
// every setting by scene key, as a dict
py::dict settings_dict(const SolverSettings& settings);

// a quaternion x, y, z, w from a 3x3 rotation matrix (checked: orthonormal within 1e-3,
// determinant +1; ValueError naming `what` otherwise)
Quat<double> quat_from_matrix(const double* r, const std::string& what);
// a unit quaternion x, y, z, w from 4 numbers (within 1e-3 of unit, then renormalised)
Quat<double> unit_quat(const double* q, const std::string& what);
// a target position from 3 numbers: finite, and within kMaxLength (1e6 m) per coordinate
// as the core and the command line require (ValueError naming `what` otherwise)
Vec3<double> target_position(const double* p, const std::string& what);
// a; marked read-only (a copy whose writes would be lost says so when written)
py::array read_only(py::array a);
// 4x4 homogeneous matrix of a transform (row-major)
py::array matrix_of(const Transform<double>& x);

void bind_model_fk(py::module_& m);
void bind_ik(py::module_& ik);
void bind_adam(py::module_& m);
void bind_scene(py::module_& m);

}  // namespace ikwb::python
